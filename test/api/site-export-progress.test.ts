/**
 * A site export step saves its percent while it runs (shared/site-archive/export-step.ts): on AWS
 * one step may last 600 s and be the whole export, and `npm run export` shows the job's percent.
 * The step runs here in the test process against the test stack's table and buckets, with AWS's
 * step budget and part size, and every UpdateItem it sends is recorded through the SDK client
 * hook.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { reloadConfig } from '../../shared/config.ts';
import { SDK_CLIENT_HOOK } from '../../shared/sdk-client-hook.ts';
import { resetS3ClientForTests } from '../../shared/storage/s3-client.ts';

const percentsSaved: number[] = [];

/** The `percent` an UpdateItem sets, plain or as a DynamoDB number; undefined when it sets none. */
function percentSet(input: {
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
}): number | undefined {
  const name = Object.entries(input.ExpressionAttributeNames ?? {}).find(([, value]) => value === 'percent')?.[0];
  if (!name) return undefined;
  const value = input.ExpressionAttributeValues?.[name.replace('#', ':')] as number | { N: string } | undefined;
  return typeof value === 'object' ? Number(value.N) : value;
}

beforeAll(() => {
  Object.assign(process.env, {
    DDB_ENDPOINT: inject('ddbEndpoint'),
    S3_ENDPOINT: inject('s3Endpoint'),
    STEPWISE_TRANSFER_STEP_SECONDS: '600',
    STEPWISE_TRANSFER_PART_BYTES: String(1024 ** 3),
  });
  reloadConfig();
  resetS3ClientForTests();
  (globalThis as Record<string, unknown>)[SDK_CLIENT_HOOK] = (client: {
    middlewareStack: { add(middleware: unknown, options: Record<string, unknown>): void };
  }) =>
    client.middlewareStack.add(
      (next: (args: unknown) => Promise<unknown>, context: { commandName?: string }) =>
        async (args: { input: Parameters<typeof percentSet>[0] }) => {
          const percent = context.commandName === 'UpdateItemCommand' ? percentSet(args.input) : undefined;
          if (percent !== undefined) percentsSaved.push(percent);
          return next(args);
        },
      { step: 'serialize', priority: 'high' },
    );
});
afterAll(() => {
  delete (globalThis as Record<string, unknown>)[SDK_CLIENT_HOOK];
  resetS3ClientForTests();
});

describe('a site export step', () => {
  it('saves its percent as it moves, before the step ends', async () => {
    const { insertExport, nextExportId, getExport } = await import('../../shared/db/entities/site-transfer-job.ts');
    const { runExportStep } = await import('../../shared/site-archive/export-step.ts');
    const exportid = await nextExportId();
    await insertExport({
      exportid,
      status: 'running',
      include_objects: true,
      percent: 0,
      cursor: { phase: 'table', segment: 0, last_key: null, bucket: 'media', after_key: null },
      parts: [],
      records: 0,
      counts: {},
      objects: 0,
      execution_arn: null,
      error: null,
      created_by: 1,
      created_at: Math.floor(Date.now() / 1000),
      completed_at: null,
    });
    percentsSaved.length = 0;
    // One step does the whole export (600 s, 1 GiB parts), as on AWS for any but a huge site.
    expect(await runExportStep(exportid, { progressEveryMs: 0 })).toEqual({ done: true });
    const final = percentsSaved.at(-1);
    expect(final).toBe(100);
    // Before that last save: the table's segments and the buckets, in order, each saved once.
    expect(percentsSaved.slice(0, -1)).toEqual([20, 40, 60, 80, 90]);
    expect(await getExport(exportid)).toMatchObject({ status: 'complete', percent: 100, parts: [{ part: 1 }] });
  });
});
