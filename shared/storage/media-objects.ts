/**
 * Where a media item's objects live in the media bucket. Originals sit under their own prefix
 * because that prefix is what triggers processing (S3 event notification filter): derived
 * sizes written elsewhere can never trigger it again.
 */
import { config } from '../config.ts';
import { deleteByPrefixes } from './objects.ts';

/** The S3 event notification filter of the media processor (CDK and the local stack). */
export const MEDIA_ORIGINALS_PREFIX = 'originals/';
/** The sizes and posters processing writes. */
export const MEDIA_DERIVED_PREFIX = 'derived/';

export function mediaBucket(): string {
  return config().MEDIA_BUCKET;
}

export function originalKey(itemid: number, filename: string): string {
  return `${MEDIA_ORIGINALS_PREFIX}${itemid}/${filename}`;
}

export function derivedKey(itemid: number, guid: string, size: string): string {
  return `${MEDIA_DERIVED_PREFIX}${itemid}/${guid}.${size}`;
}

/** The item an original belongs to, from its key; undefined for any other key. */
export function itemIdOfOriginalKey(key: string): number | undefined {
  const match = /^originals\/(\d{1,15})\/[^/]+$/.exec(key);
  return match ? Number(match[1]) : undefined;
}

export async function deleteMediaObjects(itemid: number): Promise<void> {
  await deleteByPrefixes(mediaBucket(), [`${MEDIA_ORIGINALS_PREFIX}${itemid}/`, `${MEDIA_DERIVED_PREFIX}${itemid}/`]);
}
