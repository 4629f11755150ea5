/**
 * The local S3 (s3rver behind the POST-policy proxy) with the project's own s3Client():
 * signatures are checked, POST policies and their size limits hold, data persists.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startS3Emulator, type LocalS3 } from '../../infra/local/s3-emulator.ts';
import { reloadConfig } from '../../shared/config.ts';
import { resetS3ClientForTests, s3Client } from '../../shared/storage/s3-client.ts';

const BUCKET = 'stepwise-uploads';

let directory: string;
let emulator: LocalS3;
let s3: S3Client;

beforeAll(async () => {
  directory = await mkdtemp(path.join(os.tmpdir(), 'stepwise-s3-'));
  emulator = await startS3Emulator({ directory: path.join(directory, 'objects'), buckets: [BUCKET] });
  useEndpoint(emulator.endpoint);
});

afterAll(async () => {
  resetS3ClientForTests();
  await emulator?.close();
  await rm(directory, { recursive: true, force: true });
});

function useEndpoint(endpoint: string) {
  process.env.S3_ENDPOINT = endpoint;
  reloadConfig();
  resetS3ClientForTests();
  s3 = s3Client();
}

async function exists(key: string): Promise<boolean> {
  try {
    await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key }));
    return true;
  } catch (error) {
    if ((error as Error).name === 'NotFound') return false;
    throw error;
  }
}

describe('s3Client against the emulator', () => {
  it('puts, gets and lists objects (bucket-level requests are signed correctly too)', async () => {
    await s3.send(
      new PutObjectCommand({ Bucket: BUCKET, Key: 'notes/a.txt', Body: 'hello', ContentType: 'text/plain' }),
    );

    const object = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'notes/a.txt' }));
    expect(await object.Body!.transformToString()).toBe('hello');
    expect(object.ContentType).toBe('text/plain');

    const listing = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: 'notes/' }));
    expect(listing.Contents?.map((o) => o.Key)).toEqual(['notes/a.txt']);
  });

  it('refuses anonymous requests, as a bucket with public access blocked does', async () => {
    const response = await fetch(`${emulator.endpoint}/${BUCKET}/notes/anonymous.txt`, { method: 'PUT', body: 'x' });
    expect(response.status).toBe(403);
    expect(await response.text()).toContain('<Code>AccessDenied</Code>');
  });

  it('keeps objects across a restart on the same directory', async () => {
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'persist.txt', Body: 'kept' }));
    await emulator.close();

    emulator = await startS3Emulator({ directory: path.join(directory, 'objects'), buckets: [BUCKET] });
    useEndpoint(emulator.endpoint);
    const object = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'persist.txt' }));
    expect(await object.Body!.transformToString()).toBe('kept');
  });
});

describe('presigned PUT', () => {
  it('uploads with fetch', async () => {
    const url = await getSignedUrl(s3, new PutObjectCommand({ Bucket: BUCKET, Key: 'put/ok.txt' }), { expiresIn: 60 });
    expect(url).not.toContain('x-amz-checksum'); // WHEN_REQUIRED: no empty-body checksum baked in

    const response = await fetch(url, { method: 'PUT', body: 'uploaded' });
    expect(response.status).toBe(200);
    const object = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'put/ok.txt' }));
    expect(await object.Body!.transformToString()).toBe('uploaded');
  });

  it('refuses a URL whose key was changed (403) and stores nothing', async () => {
    const url = await getSignedUrl(s3, new PutObjectCommand({ Bucket: BUCKET, Key: 'put/signed.txt' }), {
      expiresIn: 60,
    });
    const tampered = url.replace('put/signed.txt', 'put/other.txt');

    const response = await fetch(tampered, { method: 'PUT', body: 'sneaky' });
    expect(response.status).toBe(403);
    expect(await response.text()).toContain('SignatureDoesNotMatch');
    expect(await exists('put/other.txt')).toBe(false);
  });
});

describe('presigned POST (browser upload)', () => {
  const key = 'post/upload.txt';
  const presign = (options: { key?: string; expires?: number } = {}) =>
    createPresignedPost(s3, {
      Bucket: BUCKET,
      Key: options.key ?? key,
      Conditions: [['content-length-range', 1, 1024]],
      Fields: { 'Content-Type': 'text/plain' },
      Expires: options.expires ?? 60,
    });

  async function upload(post: { url: string; fields: Record<string, string> }, size: number) {
    const form = new FormData();
    for (const [name, value] of Object.entries(post.fields)) form.append(name, value);
    form.append('file', new Blob([Buffer.alloc(size, 'a')], { type: 'text/plain' }), 'upload.txt');
    const response = await fetch(post.url, { method: 'POST', body: form });
    return { status: response.status, body: await response.text() };
  }

  it('accepts a file inside content-length-range (204) and stores it', async () => {
    const result = await upload(await presign(), 100);
    expect(result.status).toBe(204);
    const head = await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key }));
    expect(head.ContentLength).toBe(100);
    expect(head.ContentType).toBe('text/plain');
  });

  it('refuses an oversize file with 400 EntityTooLarge and stores nothing', async () => {
    const result = await upload(await presign({ key: 'post/too-big.txt' }), 5000);
    expect(result.status).toBe(400);
    expect(result.body).toContain('<Code>EntityTooLarge</Code>');
    expect(result.body).toContain('<MaxSizeAllowed>1024</MaxSizeAllowed>');
    expect(await exists('post/too-big.txt')).toBe(false);
  });

  it('refuses an empty file with 400 EntityTooSmall', async () => {
    const result = await upload(await presign(), 0);
    expect(result.status).toBe(400);
    expect(result.body).toContain('<Code>EntityTooSmall</Code>');
  });

  it('refuses an expired policy (403)', async () => {
    const result = await upload(await presign({ expires: -60 }), 10);
    expect(result.status).toBe(403);
    expect(result.body).toContain('Policy expired');
  });

  it('refuses a tampered signature (403)', async () => {
    const post = await presign();
    const signature = post.fields['X-Amz-Signature']!;
    post.fields['X-Amz-Signature'] = (signature[0] === '0' ? '1' : '0') + signature.slice(1);
    const result = await upload(post, 10);
    expect(result.status).toBe(403);
    expect(result.body).toContain('<Code>SignatureDoesNotMatch</Code>');
  });

  it('refuses a changed key, a changed Content-Type and extra fields (403)', async () => {
    const post = await presign();
    const changedKey = await upload({ ...post, fields: { ...post.fields, key: 'post/elsewhere.txt' } }, 10);
    const changedType = await upload({ ...post, fields: { ...post.fields, 'Content-Type': 'text/html' } }, 10);
    const extraField = await upload({ ...post, fields: { ...post.fields, 'x-amz-meta-owner': 'me' } }, 10);

    expect(changedKey.status).toBe(403);
    expect(changedKey.body).toContain('Policy Condition failed');
    expect(changedType.status).toBe(403);
    expect(extraField.status).toBe(403);
    expect(extraField.body).toContain('Extra input fields: x-amz-meta-owner');
    expect(await exists('post/elsewhere.txt')).toBe(false);
  });
});
