/** Where the LRS keeps statement attachments: the media bucket, under xapi/attachments/<sha2> (docs/lrs.md). */
import { config } from '../config.ts';

export const XAPI_ATTACHMENTS_PREFIX = 'xapi/attachments/';

export function xapiBucket(): string {
  return config().MEDIA_BUCKET;
}

export function xapiAttachmentKey(sha2: string): string {
  return `${XAPI_ATTACHMENTS_PREFIX}${sha2.toLowerCase()}`;
}
