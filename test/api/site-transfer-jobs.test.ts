/**
 * Site export and import jobs whose execution ends without them saying so (a kill -9 of the
 * runner, a stop from outside) read as failed and `interrupted`; an interrupted import starts
 * again. Cancels stop the execution; a cancelled import has written nothing (decision 166).
 * The execution is stopped through the local Step Functions endpoint (ABORTED), as in
 * test/api/modules-interrupted.test.ts. A large object keeps each job busy for a while.
 */
import { createHash, randomBytes } from 'node:crypto';
import { HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { SFNClient, StopExecutionCommand } from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN } from '../support/api.ts';
import { startStackProcess, type RunningStack } from '../support/local-stack-process.ts';
import { fileOf, siteAt, untilSettled, uploadSiteFile, type Site } from '../support/site-transfer.ts';

let stack: RunningStack;
let site: Site;
let admin: string;
const BIG = 12 * 1024 * 1024;

const executions = 'arn:aws:states:us-east-1:000000000000:execution';
const stopExecution = (executionArn: string) =>
  new SFNClient({
    endpoint: stack.sfnEndpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  }).send(new StopExecutionCommand({ executionArn, error: 'Operator', cause: 'stopped from outside' }));
const s3 = () =>
  new S3Client({
    endpoint: stack.s3Endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    // As shared/storage/s3-client.ts: the emulator takes no aws-chunked bodies.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
/** Whether the emulator holds the object (a HEAD: 404 is false). */
async function stored(bucket: string, key: string): Promise<boolean> {
  try {
    await s3().send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    return true;
  } catch (error) {
    if ((error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return false;
    throw error;
  }
}
const firstPart = (exportid: number) => `site-transfer/exports/${exportid}/part-00001.jsonl`;

/** A site file of one account and one large media object (validation hashes it, writing uploads it). */
function bigFile(key: string): Buffer {
  const data = randomBytes(BIG);
  const chunks: unknown[] = [];
  for (let index = 0; index * 256 * 1024 < data.length; index++) {
    const piece = data.subarray(index * 256 * 1024, (index + 1) * 256 * 1024);
    chunks.push({ type: 'object_chunk', bucket: 'media', key, index, data: piece.toString('base64') });
  }
  const body = [
    {
      type: 'header',
      format: 'stepwise-site',
      format_version: 1,
      created_at: '2026-11-26T00:00:00.000Z',
      source: { kind: 'export', base_url: null },
    },
    {
      type: 'object',
      bucket: 'media',
      key,
      content_type: 'application/octet-stream',
      size: data.length,
      sha256: createHash('sha256').update(data).digest('hex'),
      chunks: chunks.length,
    },
    ...chunks,
  ];
  return fileOf([...body, { type: 'end', records: body.length, counts: {}, objects: 1 }]);
}

async function uploadedImport(file: Buffer, body: Record<string, unknown> = { mode: 'merge' }) {
  const created = await site.call('POST', '/admin/imports', { token: admin, body });
  expect(created.status).toBe(201);
  await uploadSiteFile(created.body.upload, file);
  return created.body.importid as number;
}

beforeAll(async () => {
  stack = await startStackProcess({ STEPWISE_ADMIN_EMAIL: ADMIN.email, STEPWISE_ADMIN_PASSWORD: ADMIN.password });
  site = siteAt(stack.url);
  admin = await site.admin();
  await s3().send(new PutObjectCommand({ Bucket: 'stepwise-media', Key: 'derived/1/big.bin', Body: randomBytes(BIG) }));
}, 300_000);

afterAll(() => stack.stop());

describe('interrupted site jobs', () => {
  it('an export whose execution is stopped from outside reads as failed and interrupted, without parts', async () => {
    const started = await site.call('POST', '/admin/exports', { token: admin, body: {} });
    expect(started.status).toBe(202);
    const { exportid } = started.body;
    await stopExecution(`${executions}:stepwise-site-export:export-${exportid}`);
    const view = await untilSettled(site, `/admin/exports/${exportid}`, ['running']);
    expect(view).toMatchObject({ status: 'failed', interrupted: true, error: expect.stringMatching(/ABORTED/) });
    expect(await stored('stepwise-modules', firstPart(exportid))).toBe(false);
  }, 60_000);

  it('an interrupted import starts again and completes', async () => {
    const importid = await uploadedImport(bigFile('derived/2/restarted.bin'));
    expect((await site.call('POST', `/admin/imports/${importid}/start`, { token: admin })).status).toBe(202);
    await stopExecution(`${executions}:stepwise-site-import:import-${importid}`);
    const failed = await untilSettled(site, `/admin/imports/${importid}`, ['validating', 'writing', 'finishing']);
    expect(failed).toMatchObject({ status: 'failed', interrupted: true, error: expect.stringMatching(/ABORTED/) });

    const again = await site.call('POST', `/admin/imports/${importid}/start`, { token: admin });
    expect(again.status, again.text).toBe(202);
    expect(again.body).toMatchObject({ status: 'validating', interrupted: false, error: null });
    const done = await untilSettled(site, `/admin/imports/${importid}`, ['validating', 'writing', 'finishing']);
    expect(done).toMatchObject({ status: 'complete', interrupted: false, error: null });
    expect(await stored('stepwise-media', 'derived/2/restarted.bin')).toBe(true);
    // Only an interrupted import starts again.
    expect((await site.call('POST', `/admin/imports/${importid}/start`, { token: admin })).status).toBe(409);
  }, 240_000);
});

describe('cancels', () => {
  it('POST /admin/exports/{id}/cancel stops a running export and removes its parts; 409 once finished', async () => {
    const started = await site.call('POST', '/admin/exports', { token: admin, body: {} });
    const { exportid } = started.body;
    const cancelled = await site.call('POST', `/admin/exports/${exportid}/cancel`, { token: admin });
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body).toMatchObject({ exportid, status: 'cancelled', files: [] });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect((await site.call('GET', `/admin/exports/${exportid}`, { token: admin })).body.status).toBe('cancelled');
    expect(await stored('stepwise-modules', firstPart(exportid))).toBe(false);
    expect((await site.call('POST', `/admin/exports/${exportid}/cancel`, { token: admin })).status).toBe(409);
  }, 60_000);

  it('a cancelled import wrote nothing and its file is gone; 409 once finished', async () => {
    const importid = await uploadedImport(bigFile('derived/3/cancelled.bin'));
    expect((await site.call('POST', `/admin/imports/${importid}/start`, { token: admin })).status).toBe(202);
    const cancelled = await site.call('POST', `/admin/imports/${importid}/cancel`, { token: admin });
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body).toMatchObject({ importid, status: 'cancelled' });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const view = await site.call('GET', `/admin/imports/${importid}`, { token: admin });
    expect(view.body).toMatchObject({ status: 'cancelled', report: { written: 0 } });
    expect(await stored('stepwise-media', 'derived/3/cancelled.bin')).toBe(false);
    expect(await stored('stepwise-modules', `site-transfer/imports/${importid}/site.jsonl`)).toBe(false);
    expect((await site.call('POST', `/admin/imports/${importid}/cancel`, { token: admin })).status).toBe(409);
    expect((await site.call('POST', `/admin/imports/${importid}/start`, { token: admin })).status).toBe(409);
  }, 60_000);

  it('cancel answers 401/403 to anyone but an Admin and 404 for an unknown job', async () => {
    for (const path of ['/admin/exports/1/cancel', '/admin/imports/1/cancel']) {
      expect((await site.call('POST', path)).status, path).toBe(401);
    }
    expect((await site.call('POST', '/admin/imports/999999/cancel', { token: admin })).status).toBe(404);
    expect((await site.call('POST', '/admin/exports/999999/cancel', { token: admin })).status).toBe(404);
  });
});
