/** FetchPackage's download into S3 (the emulator), from a real HTTP server on 127.0.0.1. */
import http from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { GetObjectCommand, HeadObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchIntoBucket } from '../../functions/pipeline/fetch-package.ts';
import { startS3Emulator, type LocalS3 } from '../../infra/local/s3-emulator.ts';
import { reloadConfig } from '../../shared/config.ts';
import { FetchRefusedError, NOT_ALLOWED_MESSAGE } from '../../shared/net/safe-fetch.ts';
import { resetS3ClientForTests, s3Client } from '../../shared/storage/s3-client.ts';

const BUCKET = 'stepwise-fetch';
const PACKAGE = Buffer.alloc(7 * 1024 * 1024, 'p'); // more than one 5 MiB part
let directory: string;
let s3: LocalS3;
let server: http.Server;
let base: string;

beforeAll(async () => {
  directory = await mkdtemp(path.join(os.tmpdir(), 'stepwise-fetch-'));
  s3 = await startS3Emulator({ directory, buckets: [BUCKET] });
  process.env.S3_ENDPOINT = s3.endpoint;
  reloadConfig();
  resetS3ClientForTests();
  server = http.createServer((req, res) => {
    if (req.url === '/package.zip') return res.end(PACKAGE); // chunked: no Content-Length
    res.writeHead(404);
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  resetS3ClientForTests();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await s3?.close();
  await rm(directory, { recursive: true, force: true });
});

const limits = (maxBytes: number, allowHosts = ['127.0.0.1']) => ({ allowHosts, maxBytes, timeoutMs: 5000 });

async function stored(key: string): Promise<boolean> {
  try {
    await s3Client().send(new HeadObjectCommand({ Bucket: BUCKET, Key: key }));
    return true;
  } catch {
    return false;
  }
}

async function refusal(promise: Promise<unknown>): Promise<FetchRefusedError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(FetchRefusedError);
  return error as FetchRefusedError;
}

describe('fetchIntoBucket', () => {
  it('streams the download into the bucket as a multipart upload', async () => {
    await fetchIntoBucket({
      url: `${base}/package.zip`,
      bucket: BUCKET,
      key: 'imports/1/package.zip',
      limits: limits(10 * 1024 * 1024),
    });
    const object = await s3Client().send(new GetObjectCommand({ Bucket: BUCKET, Key: 'imports/1/package.zip' }));
    expect(Buffer.from(await object.Body!.transformToByteArray()).equals(PACKAGE)).toBe(true);
  });

  it('stops a download past the size cap and leaves nothing behind', async () => {
    const error = await refusal(
      fetchIntoBucket({
        url: `${base}/package.zip`,
        bucket: BUCKET,
        key: 'imports/2/package.zip',
        limits: limits(6 * 1024 * 1024),
      }),
    );
    expect(error.code).toBe('download_too_large');
    expect(await stored('imports/2/package.zip')).toBe(false);
  });

  it('refuses the same loopback URL without the allow-list', async () => {
    const error = await refusal(
      fetchIntoBucket({
        url: `${base}/package.zip`,
        bucket: BUCKET,
        key: 'imports/3/package.zip',
        limits: limits(10 * 1024 * 1024, []),
      }),
    );
    expect(error.code).toBe('url_not_allowed');
    expect(error.message).toBe(NOT_ALLOWED_MESSAGE);
    expect(error.message).not.toContain('127.0.0.1');
    expect(await stored('imports/3/package.zip')).toBe(false);
  });
});
