/**
 * Object operations every S3 user here needs: bounded reads, prefix deletes and presigned URLs.
 * Presigned GETs, which the views hand out on every read, need no S3 client (presigned-get.ts).
 * Everything else loads the S3 client on the first call, from a side bundle of its own in the
 * deployed asset (`#s3-objects`, decision 155): most requests of the functions carrying it never
 * touch S3, and a cold start pays for parsing and evaluating what the bundle file holds
 * (decisions 154 and 160, docs/benchmarks.md "Cold start").
 */
import { config } from '../config.ts';
import type { ObjectHead, ServedHeaders, UploadRequest, UploadTarget } from './object-types.ts';
import { presignGetObject } from './presigned-get.ts';

export {
  ObjectTooLargeError,
  type ObjectHead,
  type ServedHeaders,
  type UploadRequest,
  type UploadTarget,
} from './object-types.ts';

/** `#s3-objects` is shared/storage/s3-objects.ts (package.json "imports"); a file of its own when deployed. */
const s3Objects = () => import('#s3-objects');

/**
 * The origins a browser posts a presigned upload of `bucket` to (a page's CSP `connect-src`):
 * the emulator's when S3_ENDPOINT is set, else the bucket's virtual-hosted S3 hosts.
 */
export function uploadOrigins(bucket: string): string[] {
  const { S3_ENDPOINT, AWS_REGION } = config();
  if (S3_ENDPOINT) return [new URL(S3_ENDPOINT).origin];
  return [`https://${bucket}.s3.${AWS_REGION}.amazonaws.com`, `https://${bucket}.s3.amazonaws.com`];
}

/** The whole object in memory, refused past `maxBytes` (checked before and while reading). */
export async function getObjectBytes(bucket: string, key: string, maxBytes: number): Promise<Buffer> {
  return (await s3Objects()).getObjectBytes(bucket, key, maxBytes);
}

/** The object and its Content-Type, or undefined when there is no object under the key. */
export async function getObjectIfExists(
  bucket: string,
  key: string,
  maxBytes: number,
): Promise<{ bytes: Buffer; contentType: string | undefined } | undefined> {
  return (await s3Objects()).getObjectIfExists(bucket, key, maxBytes);
}

/** Bytes `start`..`end` (inclusive) of an object; fewer when it ends sooner. */
export async function getObjectRange(bucket: string, key: string, start: number, end: number): Promise<Buffer> {
  return (await s3Objects()).getObjectRange(bucket, key, start, end);
}

export async function putObject(
  bucket: string,
  key: string,
  body: Buffer | string,
  contentType: string,
): Promise<void> {
  return (await s3Objects()).putObject(bucket, key, body, contentType);
}

/**
 * Deletes every object under each prefix (only the keys `select` keeps), 1000 keys per request.
 * Returns how many went.
 */
export async function deleteByPrefixes(
  bucket: string,
  prefixes: string[],
  select?: (key: string) => boolean,
): Promise<number> {
  return (await s3Objects()).deleteByPrefixes(bucket, prefixes, select);
}

/** Resolves when the bucket answers a HEAD (it exists and may be listed); rejects otherwise. */
export async function headBucket(bucket: string): Promise<void> {
  return (await s3Objects()).headBucket(bucket);
}

/** An object's size in bytes, or undefined when there is no object under the key. */
export async function objectSize(bucket: string, key: string): Promise<number | undefined> {
  return (await s3Objects()).objectSize(bucket, key);
}

/** An object's size, ETag and Content-Type, or undefined when there is no object under the key. */
export async function headObject(bucket: string, key: string): Promise<ObjectHead | undefined> {
  return (await s3Objects()).headObject(bucket, key);
}

/** A copy inside the bucket (S3 copies it, nothing passes through here) with the headers it is served with. */
export async function copyObject(bucket: string, from: string, to: string, headers: ServedHeaders): Promise<void> {
  return (await s3Objects()).copyObject(bucket, from, to, headers);
}

/**
 * A time-limited GET URL; `downloadAs` makes browsers save the file under that name. Signed
 * without the S3 client (presigned-get.ts): the views hand these out on every read.
 */
export async function presignedGetUrl(
  bucket: string,
  key: string,
  expiresInSeconds: number,
  downloadAs?: string,
): Promise<string> {
  // Plain ASCII in a quoted filename: RFC 5987's `filename*=UTF-8''` form carries characters
  // (' and *) whose query encoding the S3 emulator signs differently from the SDK.
  const contentDisposition = downloadAs
    ? `attachment; filename="${downloadAs.replace(/[^\x20-\x7e]|["\\]/g, '_')}"`
    : undefined;
  return presignGetObject({ bucket, key, expiresInSeconds, contentDisposition });
}

/**
 * A browser upload (presigned POST) for exactly this key and Content-Type, with S3 enforcing
 * the size range: an oversize file is refused by S3 itself (400 EntityTooLarge).
 */
export async function presignedUpload(input: UploadRequest): Promise<UploadTarget> {
  return (await s3Objects()).presignedUpload(input);
}
