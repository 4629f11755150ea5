/**
 * The bucket side of a site file: which objects travel (everything in the media and modules
 * buckets except the site-transfer area itself), streamed as an `object` record and base64
 * `object_chunk` records, and written back on import.
 */
import { createHash } from 'node:crypto';
import { GetObjectCommand, HeadObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { s3Client } from '../storage/s3-client.ts';
import { bucketOf, SITE_TRANSFER_PREFIX } from './keys.ts';
import { SEARCH_INDEX_PREFIX } from '../search/keys.ts';
import { isFilePublicCopyKey } from '../storage/media-objects.ts';
import { OBJECT_CHUNK_BYTES, type BucketRole, type SiteRecord } from './records.ts';

/**
 * One page of a bucket's keys after `afterKey`, the site-transfer area, the search index and the
 * public copies of videos' and documents' files (derived, made again on first use: decision 312) left out.
 */
export async function listObjectKeys(
  role: BucketRole,
  afterKey: string | null,
  pageSize: number,
): Promise<{ keys: string[]; more: boolean; lastKey: string | null }> {
  const page = await s3Client().send(
    new ListObjectsV2Command({ Bucket: bucketOf(role), StartAfter: afterKey ?? undefined, MaxKeys: pageSize }),
  );
  const keys = (page.Contents ?? [])
    .map((object) => object.Key!)
    .filter(
      (key) =>
        !key.startsWith(SITE_TRANSFER_PREFIX) &&
        !key.startsWith(SEARCH_INDEX_PREFIX) &&
        !(role === 'media' && isFilePublicCopyKey(key)),
    );
  return { keys, more: page.IsTruncated === true, lastKey: page.Contents?.at(-1)?.Key ?? afterKey };
}

async function* objectBytes(bucket: string, key: string): AsyncGenerator<Buffer> {
  const result = await s3Client().send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  for await (const chunk of result.Body as AsyncIterable<Uint8Array>) yield Buffer.from(chunk);
}

/** Cuts a byte stream into pieces of exactly `size` bytes (the last one shorter). */
async function* fixedChunks(source: AsyncIterable<Buffer>, size: number): AsyncGenerator<Buffer> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  for await (const chunk of source) {
    pending.push(chunk);
    pendingBytes += chunk.length;
    while (pendingBytes >= size) {
      const joined = Buffer.concat(pending);
      yield joined.subarray(0, size);
      pending = [joined.subarray(size)];
      pendingBytes = joined.length - size;
    }
  }
  if (pendingBytes > 0) yield Buffer.concat(pending);
}

/**
 * An object's records: its `object` record (size and sha256 need a first streaming pass, since
 * the record comes before the chunks) and then its chunks. A second pass that hashes differently
 * means the object changed meanwhile: the step fails and is retried.
 */
export async function* objectRecords(role: BucketRole, key: string): AsyncGenerator<SiteRecord> {
  const bucket = bucketOf(role);
  const head = await s3Client().send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
  const first = createHash('sha256');
  let size = 0;
  for await (const chunk of objectBytes(bucket, key)) {
    first.update(chunk);
    size += chunk.length;
  }
  const sha256 = first.digest('hex');
  yield {
    type: 'object',
    bucket: role,
    key,
    content_type: head.ContentType ?? null,
    size,
    sha256,
    chunks: Math.ceil(size / OBJECT_CHUNK_BYTES),
  };
  const second = createHash('sha256');
  let index = 0;
  for await (const piece of fixedChunks(objectBytes(bucket, key), OBJECT_CHUNK_BYTES)) {
    second.update(piece);
    yield { type: 'object_chunk', bucket: role, key, index, data: piece.toString('base64') };
    index += 1;
  }
  if (second.digest('hex') !== sha256) throw new Error(`s3://${bucket}/${key} changed while it was exported`);
}
