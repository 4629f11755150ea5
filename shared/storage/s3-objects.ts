/**
 * The S3 side of objects.ts, loaded by it on first use as `#s3-objects` (a side bundle when
 * deployed; import it through objects.ts). Presigned POSTs use s3Client(), so locally the forms
 * point at the emulator's proxy.
 */
import {
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
} from '@aws-sdk/client-s3';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import { ObjectTooLargeError, type UploadRequest, type UploadTarget } from './object-types.ts';
import { s3Client } from './s3-client.ts';

/** The whole object in memory, refused past `maxBytes` (checked before and while reading). */
export async function getObjectBytes(bucket: string, key: string, maxBytes: number): Promise<Buffer> {
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
  return Buffer.concat(chunks);
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
export async function deleteByPrefixes(bucket: string, prefixes: string[]): Promise<number> {
  let deleted = 0;
  for (const prefix of prefixes) {
    let token: string | undefined;
    do {
      const page = await s3Client().send(
        new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }),
      );
      const keys = (page.Contents ?? []).map((object) => ({ Key: object.Key! }));
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
