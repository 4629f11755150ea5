/**
 * Where a media item's objects live in the media bucket. Originals sit under their own prefix
 * because that prefix is what triggers processing (S3 event notification filter): derived
 * sizes written elsewhere can never trigger it again.
 *
 * What the apps load sits under `igi/`, at exactly the key its public path names
 * (`/igi/<guid>.<size>`, and `/igi/<guid>` for the Image's `original`), so CloudFront serves
 * the path from the bucket as it is and the local gateway reads the same key (decision 197).
 */
import { config } from '../config.ts';
import { deleteByPrefixes } from './objects.ts';

/** The S3 event notification filter of the media processor (CDK and the local stack). */
export const MEDIA_ORIGINALS_PREFIX = 'originals/';
/** The sizes, posters and public copies of originals processing writes: the `/igi/` path of the site. */
export const MEDIA_DERIVED_PREFIX = 'igi/';
/** Guide PDFs too large for a Lambda answer (functions/pages/pdf), expired after a day. */
export const MEDIA_PDF_PREFIX = 'pdf/';

/**
 * How long caches keep an image (CloudFront's TTL, the apps' max-age): what a deleted image may
 * live on, since nothing invalidates it (decision 198).
 */
export const IMAGE_MAX_AGE_SECONDS = 3600;

/** A guid as the site stores it: a UUIDv4 without dashes, or a migrated Dozuki site's own. */
const GUID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

export function mediaBucket(): string {
  return config().MEDIA_BUCKET;
}

export function originalKey(itemid: number, filename: string): string {
  return `${MEDIA_ORIGINALS_PREFIX}${itemid}/${filename}`;
}

/** The key of an image's size; without a size, of its `original` (a video's: its poster card). */
export function imageObjectKey(guid: string, size?: string): string {
  return `${MEDIA_DERIVED_PREFIX}${guid}${size === undefined ? '' : `.${size}`}`;
}

/** The path of the site that serves an image object: `/igi/<guid>.<size>`, `/igi/<guid>`. */
export function imagePublicPath(guid: string, size?: string): string {
  return `/${imageObjectKey(guid, size)}`;
}

/**
 * The last part of a video's or document's stable path and key: the file name in letters, digits,
 * dots, dashes and underscores (anything else `_`), so the path is the key without any encoding.
 */
export function fileObjectName(filename: string): string {
  const name = filename
    .split(/[\\/]/)
    .pop()!
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^\.+/, '')
    .slice(-120);
  return name === '' ? 'file' : name;
}

/**
 * The key of a video's or document's public copy (decision 312): beside its `/igi/<guid>` image
 * objects, under the guid, so the `/igi/*` behaviour, grant and deletes cover it.
 */
export function fileObjectKey(guid: string, filename: string): string {
  return `${imageObjectKey(guid)}/${fileObjectName(filename)}`;
}

/** The path of the site that serves a video's or document's file: `/igi/<guid>/<name>`. */
export function filePublicPath(guid: string, filename: string): string {
  return `/${fileObjectKey(guid, filename)}`;
}

/**
 * Whether a key is a video's or document's public copy (`igi/<guid>/<name>`): derived from the
 * original, made again on first use, so the site file leaves it out (docs/export-format.md).
 */
export function isFilePublicCopyKey(key: string): boolean {
  return key.startsWith(MEDIA_DERIVED_PREFIX) && key.indexOf('/', MEDIA_DERIVED_PREFIX.length) > 0;
}

/** Whether a string can be a guid of the site (a `/igi/` path segment). */
export function isGuid(value: string): boolean {
  return GUID_PATTERN.test(value);
}

/**
 * The key a `/igi/{file}` path names, or undefined when the file cannot be one (a made-up
 * name answers 404 without asking S3 about keys outside `igi/`).
 */
export function imageObjectKeyOfFile(file: string): string | undefined {
  const match = /^([^.]+)(?:\.([a-z0-9]{1,16}))?$/.exec(file);
  if (!match || !GUID_PATTERN.test(match[1]!)) return undefined;
  return imageObjectKey(match[1]!, match[2]);
}

/** The item an original belongs to, from its key; undefined for any other key. */
export function itemIdOfOriginalKey(key: string): number | undefined {
  const match = /^originals\/(\d{1,15})\/[^/]+$/.exec(key);
  return match ? Number(match[1]) : undefined;
}

/**
 * Every object of an item: its original and, given its guid, what `/igi/` serves of it (sizes,
 * poster, a video's or document's public copy). The `igi/<guid>` listing is narrowed to this
 * guid's own keys: another guid may start with it.
 */
export async function deleteMediaObjects(itemid: number, guid?: string): Promise<void> {
  await deleteByPrefixes(mediaBucket(), [`${MEDIA_ORIGINALS_PREFIX}${itemid}/`]);
  if (guid === undefined) return;
  const own = imageObjectKey(guid);
  await deleteByPrefixes(
    mediaBucket(),
    [own],
    (key) => key === own || key.startsWith(`${own}.`) || key.startsWith(`${own}/`),
  );
}
