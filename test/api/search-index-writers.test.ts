/**
 * The search index's writers lose no update (decision 208): writers started side by side
 * against the test stack's table and S3 emulator, each adding its own document, all land; the
 * ones that lost the race on the head read it again and re-applied their change. Runs in this
 * process, beside the stack's own indexer (a writer more).
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { reloadConfig } from '../../shared/config.ts';
import { resetS3ClientForTests } from '../../shared/storage/s3-client.ts';
import { uniqueSuffix } from '../support/api.ts';
import type { SearchDocument, SearchKind } from '../../shared/search/search-port.ts';

const WRITERS = 6;
const word = `wr${uniqueSuffix()}`;
let store: typeof import('../../shared/search/index-store.ts');
let head: typeof import('../../shared/db/entities/search-index-head.ts');

function doc(n: number): SearchDocument {
  return {
    key: `wiki:${900_000_000 + n}`,
    kind: 'wiki',
    recordid: 900_000_000 + n,
    langid: 'zz',
    type: '',
    title: `${word} writer ${n}`,
    summary: '',
    body: '',
    access: null,
  };
}

beforeAll(async () => {
  Object.assign(process.env, { DDB_ENDPOINT: inject('ddbEndpoint'), S3_ENDPOINT: inject('s3Endpoint') });
  reloadConfig();
  resetS3ClientForTests();
  store = await import('../../shared/search/index-store.ts');
  head = await import('../../shared/db/entities/search-index-head.ts');
});

afterAll(async () => {
  // The test's documents leave the shared index (language "zz": no other test searches it).
  await store.writeIndex(async (current) => {
    const index = current ?? (await import('../../shared/search/minisearch-engine.ts')).miniSearchEngine.empty();
    for (let n = 0; n < WRITERS; n++) index.remove(doc(n).key);
    return index;
  });
  resetS3ClientForTests();
});

describe('search index writers side by side', () => {
  it('all land: the losers of the head race re-read and re-apply', async () => {
    const before = (await head.getSearchIndexHead(true))?.version ?? 0;
    const { miniSearchEngine } = await import('../../shared/search/minisearch-engine.ts');
    const writes = await Promise.all(
      Array.from({ length: WRITERS }, (_, n) =>
        store.writeIndex(async (current) => {
          const index = current ?? miniSearchEngine.empty();
          index.upsert(doc(n));
          return index;
        }),
      ),
    );
    expect(Math.max(...writes.map((write) => write.attempts))).toBeGreaterThan(1);
    const after = await head.getSearchIndexHead(true);
    expect(after!.version).toBeGreaterThanOrEqual(before + WRITERS);

    store.forgetHeldIndex();
    const index = await store.readIndex();
    const kinds = new Set<SearchKind>(['wiki']);
    const found = index.query({ text: word, langid: 'zz', kinds }).map((hit) => hit.recordid);
    expect(found.sort()).toEqual(Array.from({ length: WRITERS }, (_, n) => doc(n).recordid).sort());
  });

  it('a rebuild (the indexer invoked with {"rebuild": true}) makes the index from the table alone', async () => {
    const { onTableStream } = await import('../../shared/search/stream-handler.ts');
    const rebuilt = await onTableStream({ rebuild: true });
    expect(rebuilt).toMatchObject({ documents: expect.any(Number) });
    store.forgetHeldIndex();
    const index = await store.readIndex();
    // The documents this file wrote are in no table item: gone.
    expect(index.query({ text: word, langid: 'zz', kinds: new Set<SearchKind>(['wiki']) })).toEqual([]);
    expect(index.documentCount).toBe((rebuilt as { documents: number }).documents);
  });
});
