/**
 * Object operations every S3 user here needs: bounded reads, prefix deletes and presigned URLs.
 * The S3 client and presigners (about a fifth of an API bundle) load on the first call, not at
 * import: most requests of the functions carrying them never touch S3, and a cold start pays
 * for compiling and evaluating what is imported (decision 154, docs/operations.md "Cold start").
 */
import type { UploadRequest, UploadTarget } from './object-types.ts';

export { ObjectTooLargeError, type UploadRequest, type UploadTarget } from './object-types.ts';

/** esbuild keeps a dynamic import's modules in the bundle but evaluates them only when first called. */
const s3Objects = () => import('./s3-objects.ts');

/** The whole object in memory, refused past `maxBytes` (checked before and while reading). */
export async function getObjectBytes(bucket: string, key: string, maxBytes: number): Promise<Buffer> {
  return (await s3Objects()).getObjectBytes(bucket, key, maxBytes);
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

/** Deletes every object under each prefix, 1000 keys per request. Returns how many went. */
export async function deleteByPrefixes(bucket: string, prefixes: string[]): Promise<number> {
  return (await s3Objects()).deleteByPrefixes(bucket, prefixes);
}

/** An object's size in bytes, or undefined when there is no object under the key. */
export async function objectSize(bucket: string, key: string): Promise<number | undefined> {
  return (await s3Objects()).objectSize(bucket, key);
}

/** A time-limited GET URL; `downloadAs` makes browsers save the file under that name. */
export async function presignedGetUrl(
  bucket: string,
  key: string,
  expiresInSeconds: number,
  downloadAs?: string,
): Promise<string> {
  return (await s3Objects()).presignedGetUrl(bucket, key, expiresInSeconds, downloadAs);
}

/**
 * A browser upload (presigned POST) for exactly this key and Content-Type, with S3 enforcing
 * the size range: an oversize file is refused by S3 itself (400 EntityTooLarge).
 */
export async function presignedUpload(input: UploadRequest): Promise<UploadTarget> {
  return (await s3Objects()).presignedUpload(input);
}
