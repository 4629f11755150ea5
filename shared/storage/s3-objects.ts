/**
 * The S3 side of objects.ts, loaded by it on first use as `#s3-objects` (a side bundle when
 * deployed; import it through objects.ts). Presigned POSTs use s3Client(), so locally the forms
 * point at the emulator's proxy.
 */
import {
  CopyObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
} from '@aws-sdk/client-s3';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import {
  ObjectTooLargeError,
  type ObjectHead,
  type ServedHeaders,
  type UploadRequest,
  type UploadTarget,
} from './object-types.ts';
import { s3Client } from './s3-client.ts';

/** The whole object in memory, refused past `maxBytes` (checked before and while reading). */
export async function getObjectBytes(bucket: string, key: string, maxBytes: number): Promise<Buffer> {
  return (await readObject(bucket, key, maxBytes)).bytes;
}

/** The object and its Content-Type, or undefined when there is none the function may read. */
export async function getObjectIfExists(
  bucket: string,
  key: string,
  maxBytes: number,
): Promise<{ bytes: Buffer; contentType: string | undefined } | undefined> {
  try {
    return await readObject(bucket, key, maxBytes);
  } catch (error) {
    // Without s3:ListBucket (which would reveal every key), S3 answers a missing key 403 AccessDenied.
    if (['NoSuchKey', 'NotFound', 'AccessDenied'].includes((error as Error).name)) return undefined;
    throw error;
  }
}

async function readObject(
  bucket: string,
  key: string,
  maxBytes: number,
): Promise<{ bytes: Buffer; contentType: string | undefined }> {
  const result = await s3Client().send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  if ((result.ContentLength ?? 0) > maxBytes) {
    result.Body?.transformToWebStream()
      .cancel()
      .catch(() => undefined);
    throw new ObjectTooLargeError(`s3://${bucket}/${key} is ${result.ContentLength} bytes, more than ${maxBytes}`);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of result.Body as AsyncIterable<Uint8Array>) {
    total += chunk.length;
    if (total > maxBytes) throw new ObjectTooLargeError(`s3://${bucket}/${key} is more than ${maxBytes} bytes`);
    chunks.push(Buffer.from(chunk));
  }
  return { bytes: Buffer.concat(chunks), contentType: result.ContentType };
}

/** Bytes `start`..`end` (inclusive) of an object; fewer when it ends sooner. */
export async function getObjectRange(bucket: string, key: string, start: number, end: number): Promise<Buffer> {
  const result = await s3Client().send(
    new GetObjectCommand({ Bucket: bucket, Key: key, Range: `bytes=${start}-${end}` }),
  );
  return Buffer.from(await result.Body!.transformToByteArray());
}

export async function putObject(
  bucket: string,
  key: string,
  body: Buffer | string,
  contentType: string,
): Promise<void> {
  await s3Client().send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentType: contentType }));
}

/** Deletes every object under each prefix, 1000 keys per request. Returns how many went. */
export async function deleteByPrefixes(
  bucket: string,
  prefixes: string[],
  keep: (key: string) => boolean = () => true,
): Promise<number> {
  let deleted = 0;
  for (const prefix of prefixes) {
    let token: string | undefined;
    do {
      const page = await s3Client().send(
        new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }),
      );
      const keys = (page.Contents ?? []).filter((object) => keep(object.Key!)).map((object) => ({ Key: object.Key! }));
      if (keys.length > 0) {
        await s3Client().send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: keys, Quiet: true } }));
        deleted += keys.length;
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }
  return deleted;
}

/** Resolves when the bucket answers a HEAD (the health route; s3:ListBucket); rejects otherwise. */
export async function headBucket(bucket: string): Promise<void> {
  await s3Client().send(new HeadBucketCommand({ Bucket: bucket }));
}

/** An object's size in bytes, or undefined when there is no object under the key. */
export async function objectSize(bucket: string, key: string): Promise<number | undefined> {
  try {
    const head = await s3Client().send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    return head.ContentLength ?? 0;
  } catch (error) {
    const name = (error as Error).name;
    if (name === 'NotFound' || name === 'NoSuchKey') return undefined;
    throw error;
  }
}

/** An object's size, ETag and Content-Type, or undefined when there is no object under the key. */
export async function headObject(bucket: string, key: string): Promise<ObjectHead | undefined> {
  try {
    const head = await s3Client().send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    return { size: head.ContentLength ?? 0, etag: head.ETag ?? '', contentType: head.ContentType };
  } catch (error) {
    const name = (error as Error).name;
    if (name === 'NotFound' || name === 'NoSuchKey') return undefined;
    throw error;
  }
}

/** A copy inside the bucket (S3 copies it, nothing passes through here) with the headers it is served with. */
export async function copyObject(bucket: string, from: string, to: string, headers: ServedHeaders): Promise<void> {
  await s3Client().send(
    new CopyObjectCommand({
      Bucket: bucket,
      Key: to,
      CopySource: `${bucket}/${from.split('/').map(encodeURIComponent).join('/')}`,
      MetadataDirective: 'REPLACE',
      ContentType: headers.contentType,
      ContentDisposition: headers.contentDisposition,
      CacheControl: headers.cacheControl,
    }),
  );
}

/**
 * A browser upload (presigned POST) for exactly this key and Content-Type, with S3 enforcing
 * the size range: an oversize file is refused by S3 itself (400 EntityTooLarge).
 */
export async function presignedUpload(input: UploadRequest): Promise<UploadTarget> {
  const post = await createPresignedPost(s3Client(), {
    Bucket: input.bucket,
    Key: input.key,
    Conditions: [
      ['content-length-range', 1, input.maxBytes],
      ['eq', '$Content-Type', input.contentType],
    ],
    Fields: { 'Content-Type': input.contentType },
    Expires: input.expiresInSeconds,
  });
  return {
    url: post.url,
    fields: post.fields,
    expires: Math.floor(Date.now() / 1000) + input.expiresInSeconds,
    max_bytes: input.maxBytes,
  };
}
