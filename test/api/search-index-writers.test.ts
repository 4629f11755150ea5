/**
 * The search index's writers lose no update (decisions 208, 289): writers started side by side
 * against the test stack's table and S3 emulator, each changing the delta, all land; the ones that
 * lost the race on the head read it again and re-applied their change. Merges run beside them and
 * lose nothing either. Runs in this process, beside the stack's own indexer (a writer more).
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { reloadConfig } from '../../shared/config.ts';
import { resetS3ClientForTests } from '../../shared/storage/s3-client.ts';
import { uniqueSuffix } from '../support/api.ts';
import type { SearchDocument, SearchKind } from '../../shared/search/search-port.ts';

const WRITERS = 6;
const word = `wr${uniqueSuffix()}`;
const kinds = new Set<SearchKind>(['wiki']);
let store: typeof import('../../shared/search/index-store.ts');
let head: typeof import('../../shared/db/entities/search-index-head.ts');
let allDocuments: () => Promise<SearchDocument[]>;

function doc(n: number, title = `${word} writer ${n}`): SearchDocument {
  return {
    key: `wiki:${900_000_000 + n}`,
    kind: 'wiki',
    recordid: 900_000_000 + n,
    langid: 'zz',
    type: '',
    title,
    summary: '',
    body: '',
    access: null,
  };
}

async function found(text: string): Promise<number[]> {
  store.forgetHeldIndex();
  const hits = await store.searchIndex({ text, langid: 'zz', kinds });
  return hits.map((hit) => hit.recordid).sort();
}

beforeAll(async () => {
  Object.assign(process.env, { DDB_ENDPOINT: inject('ddbEndpoint'), S3_ENDPOINT: inject('s3Endpoint') });
  reloadConfig();
  resetS3ClientForTests();
  store = await import('../../shared/search/index-store.ts');
  head = await import('../../shared/db/entities/search-index-head.ts');
  ({ allDocuments } = await import('../../shared/search/indexer.ts'));
  // An index to write to: with none, the first writer builds it from the table, where this file's
  // documents are not (the file failed when it ran before any other wrote the head).
  await store.writeIndex(async () => {}, allDocuments);
});

afterAll(async () => {
  // The test's documents leave the shared index (language "zz": no other test searches it).
  await store.writeIndex(async (index) => {
    for (let n = 0; n < 2 * WRITERS; n++) index.remove(doc(n).key);
  }, allDocuments);
  resetS3ClientForTests();
});

describe('search index writers side by side', () => {
  it('all land: the losers of the head race re-read and re-apply', async () => {
    const before = (await head.getSearchIndexHead(store.LAYOUT_FORMAT, true))?.version ?? 0;
    const writes = await Promise.all(
      Array.from({ length: WRITERS }, (_, n) => store.writeIndex(async (index) => index.upsert(doc(n)), allDocuments)),
    );
    expect(Math.max(...writes.map((write) => write.attempts))).toBeGreaterThan(1);
    const after = await head.getSearchIndexHead(store.LAYOUT_FORMAT, true);
    expect(after!.version).toBeGreaterThanOrEqual(before + WRITERS);
    expect(await found(word)).toEqual(Array.from({ length: WRITERS }, (_, n) => doc(n).recordid).sort());
  });

  it('merges fold the delta into the shards while writes go on, and nothing is lost', async () => {
    const writes = Promise.all(
      Array.from({ length: WRITERS }, (_, n) =>
        store.writeIndex(async (index) => index.upsert(doc(WRITERS + n)), allDocuments),
      ),
    );
    const merges: boolean[] = [];
    for (let round = 0; round < 4; round++) merges.push(await store.mergeOnce());
    await writes;
    // Everything folded: the delta empties.
    while (await store.mergeOnce()) merges.push(true);
    expect(merges).toContain(true);
    const now = (await head.getSearchIndexHead(store.LAYOUT_FORMAT, true))!.head!;
    expect(now.delta).toMatchObject({ documents: 0, tombstones: 0 });
    expect(now.languages.zz!.shards.length).toBeGreaterThan(0);
    expect(await found(word)).toEqual(Array.from({ length: 2 * WRITERS }, (_, n) => doc(n).recordid).sort());

    // A change after the merge lives in the delta and hides the shard's older copy.
    await store.writeIndex(async (index) => index.upsert(doc(0, 'renamed page')), allDocuments);
    expect(await found(word)).not.toContain(doc(0).recordid);
    expect(await found('renamed')).toEqual([doc(0).recordid]);
  });

  it('a rebuild (the indexer invoked with {"rebuild": true}) makes the index from the table alone', async () => {
    const { onTableStream } = await import('../../shared/search/stream-handler.ts');
    const rebuilt = await onTableStream({ rebuild: true });
    expect(rebuilt).toMatchObject({ documents: expect.any(Number) });
    // The documents this file wrote are in no table item: gone.
    expect(await found(word)).toEqual([]);
    const now = (await head.getSearchIndexHead(store.LAYOUT_FORMAT, true))!.head!;
    expect(now.delta.documents).toBe(0);
    expect(now.documents).toBe((rebuilt as { documents: number }).documents);
  });
});
