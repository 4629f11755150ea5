/**
 * GET /api/2.0/health (functions/docs/health.service.ts): open on the private test site, the
 * version from package.json and one answer per store, 200 when all answer. The 503 is shown on a
 * second stack whose media bucket is then deleted (the shared stack's buckets stay whole).
 */
import { readFileSync } from 'node:fs';
import { DeleteBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, describe, expect, it } from 'vitest';
import { EMULATOR_CREDENTIALS } from '../../shared/storage/emulator-credentials.ts';
import { api, apiAt } from '../support/api.ts';
import { startStackProcess, type RunningStack } from '../support/local-stack-process.ts';

const VERSION = JSON.parse(readFileSync('package.json', 'utf8')).version as string;
let second: RunningStack | undefined;
afterAll(() => second?.stop());

describe('GET /health', () => {
  it('answers 200 without a token on a private site: the version and every store ok, no names', async () => {
    const response = await api('GET', '/health');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      status: 'ok',
      version: VERSION,
      checks: { table: 'ok', media_bucket: 'ok', modules_bucket: 'ok' },
    });
    // Nothing that names a resource of the deployment.
    expect(response.text).not.toMatch(/stepwise-media|stepwise-modules|"stepwise"|arn:|http/);
  });

  it('answers 503 with the same shape when a bucket does not answer', { timeout: 120_000 }, async () => {
    second = await startStackProcess();
    const s3 = new S3Client({
      endpoint: second.s3Endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: EMULATOR_CREDENTIALS,
    });
    // The emulator signs `/bucket` where the SDK sends `/bucket/` (as shared/storage/s3-client.ts does).
    s3.middlewareStack.add(
      (next) => async (args) => {
        const request = args.request as { path: string };
        request.path = request.path.replace(/\/$/, '');
        return next(args);
      },
      { step: 'build' },
    );
    await s3.send(new DeleteBucketCommand({ Bucket: 'stepwise-media' }));
    const response = await apiAt(second.url, 'GET', '/health');
    expect(response.status).toBe(503);
    expect(response.body).toEqual({
      status: 'unavailable',
      version: VERSION,
      checks: { table: 'ok', media_bucket: 'unavailable', modules_bucket: 'ok' },
    });
    expect(response.text).not.toMatch(/NoSuchBucket|NotFound|stepwise-media/);
  });
});
