/**
 * Where a site transfer's files live. Apart from objects.ts so that the API function and the
 * views naming these keys do not load the S3 client at import (decision 154).
 */
import { config } from '../config.ts';
import type { BucketRole } from './records.ts';

/** Export parts and uploaded site files live here in the modules bucket; no trigger watches it. */
export const SITE_TRANSFER_PREFIX = 'site-transfer/';

export function bucketOf(role: BucketRole): string {
  return role === 'media' ? config().MEDIA_BUCKET : config().MODULES_BUCKET;
}

export function exportPartKey(exportid: number, part: number): string {
  return `${SITE_TRANSFER_PREFIX}exports/${exportid}/part-${String(part).padStart(5, '0')}.jsonl`;
}

export function importFileKey(importid: number): string {
  return `${SITE_TRANSFER_PREFIX}imports/${importid}/site.jsonl`;
}
