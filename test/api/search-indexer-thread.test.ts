/**
 * The local search indexer runs in a worker thread (decision 290): a batch is indexed there, by
 * the Lambda's handler, against the test stack's table and S3 emulator; its failure comes back
 * to the stream reader (which hands the batch again); and the API's event loop keeps turning
 * while the thread works.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { reloadConfig } from '../../shared/config.ts';
import { resetS3ClientForTests } from '../../shared/storage/s3-client.ts';
import { startSearchIndexerThread, type SearchIndexerThread } from '../../infra/local/search-indexer-thread.ts';

let thread: SearchIndexerThread;

beforeAll(() => {
  Object.assign(process.env, { DDB_ENDPOINT: inject('ddbEndpoint'), S3_ENDPOINT: inject('s3Endpoint') });
  reloadConfig();
  resetS3ClientForTests();
  thread = startSearchIndexerThread();
});

afterAll(async () => {
  await thread.stop();
});

describe('the search indexer thread', () => {
  it('indexes in the thread while this event loop keeps turning, and hands back a failure', async () => {
    const { getSearchIndexHead } = await import('../../shared/db/entities/search-index-head.ts');
    const { LAYOUT_FORMAT } = await import('../../shared/search/index-store.ts');
    const before = (await getSearchIndexHead(LAYOUT_FORMAT, true))?.version ?? 0;
    let ticks = 0;
    const timer = setInterval(() => ticks++, 2);
    // A rebuild: the thread reads the whole table, builds every shard and stores them.
    await thread.handler({ rebuild: true } as never);
    clearInterval(timer);
    const after = await getSearchIndexHead(LAYOUT_FORMAT, true);
    expect(after!.version).toBeGreaterThan(before);
    expect(ticks).toBeGreaterThan(0);
    // A batch of items search ignores is answered without a write.
    await thread.handler({ Records: [{ dynamodb: { Keys: { pk: { S: 'USER#1' }, sk: { S: 'USER' } } } }] } as never);
    expect((await getSearchIndexHead(LAYOUT_FORMAT, true))!.version).toBe(after!.version);
    // A batch the handler cannot read rejects here, with the thread's reason.
    await expect(thread.handler({ Records: null } as never)).rejects.toThrow(/search indexer thread failed a batch/);
    // The thread survives a failed batch.
    await thread.handler({ Records: [] } as never);
  });
});
