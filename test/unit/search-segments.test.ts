/**
 * The segmented index's parts (decision 289): shards by key hash, the delta and its tombstones,
 * merges. A query of shards + delta answers what one index of the same documents would.
 */
import { describe, expect, it } from 'vitest';
import { shardBitsFor } from '../../shared/search/index-store.ts';
import { miniSearchEngine } from '../../shared/search/minisearch-engine.ts';
import { Delta, inShard, keyHash, shardBits } from '../../shared/search/segments.ts';
import type { SearchDocument, SearchKind, SearchQuery } from '../../shared/search/search-port.ts';
import { searchDocument } from '../support/search-documents.ts';

const FORMAT = 'test-layout';
const every = new Set<SearchKind>(['guide', 'category', 'wiki']);
const q = (text: string, langid = 'en'): SearchQuery => ({ text, langid, kinds: every });

function doc(recordid: number, title: string, fields: Partial<SearchDocument> = {}): SearchDocument {
  return searchDocument(recordid, { title, ...fields });
}

/** Two shards of English from these documents, as a whole build makes them. */
function shardsOf(documents: SearchDocument[]) {
  return [0, 1].map((slot) => {
    const index = miniSearchEngine.empty();
    for (const document of documents) if (inShard(document.key, { slot, bits: 1 })) index.upsert(document);
    return { index, place: { slot, bits: 1 } };
  });
}

function query(shards: ReturnType<typeof shardsOf>, delta: Delta, text: string, langid = 'en') {
  const { segment, hidden } = delta.segmentOf(langid);
  const segments = [
    ...(langid === 'en' ? shards.map(({ index }) => ({ index, hidden })) : []),
    ...(segment ? [segment] : []),
  ];
  return miniSearchEngine.querySegments(segments, q(text, langid));
}

describe('shards by key hash', () => {
  it('puts each key in exactly one shard of a level, and sizes the level by documents', () => {
    for (let id = 1; id <= 200; id++) {
      const key = `guide:${id}`;
      const at = [0, 1, 2, 3].filter((slot) => inShard(key, { slot, bits: 2 }));
      expect(at).toEqual([keyHash(key) & 3]);
    }
    expect(shardBits(10, 500)).toBe(0);
    expect(shardBits(5000, 500)).toBe(4);
    expect(shardBits(50_000, 500)).toBe(7);
    // A built language has at most 32 shards: past 16,000 documents they grow (decision 330).
    expect(shardBitsFor(5000)).toBe(4);
    expect(shardBitsFor(16_000)).toBe(5);
    expect(shardBitsFor(50_000)).toBe(5);
  });
});

describe('the delta', () => {
  const base = Array.from({ length: 30 }, (_, n) => doc(n + 1, `Hinge ${n % 3 === 0 ? 'cover' : 'pin'}`));

  it('hides the shards’ copy of a changed or deleted document; the delta’s copy answers', () => {
    const shards = shardsOf(base);
    const delta = Delta.empty(miniSearchEngine);
    delta.upsert(
      doc(4, 'Hinge spring', { access: { public: false, userid: 2, grant_userids: [], grant_teamids: [] } }),
      2,
      ['en'],
    );
    delta.remove('guide:7', 3, ['en']);
    const cover = query(shards, delta, 'cover').map((hit) => hit.key);
    expect(cover).not.toContain('guide:4');
    expect(cover).not.toContain('guide:7');
    expect(cover).toContain('guide:1');
    const spring = query(shards, delta, 'spring');
    expect(spring.map((hit) => [hit.key, hit.access?.public])).toEqual([['guide:4', false]]);
  });

  it('moves a document between languages: gone from the old one, found in the new', () => {
    const shards = shardsOf(base);
    const delta = Delta.empty(miniSearchEngine);
    delta.upsert(doc(1, 'Scharnier Abdeckung', { langid: 'de' }), 2, ['en']);
    expect(query(shards, delta, 'cover').map((hit) => hit.key)).not.toContain('guide:1');
    expect(query(shards, delta, 'abdeckung', 'de').map((hit) => hit.key)).toEqual(['guide:1']);
  });

  it('survives its stored form', () => {
    const delta = Delta.empty(miniSearchEngine);
    delta.upsert(doc(3, 'Valve seat'), 5, ['en']);
    delta.remove('guide:9', 6, ['en', 'de']);
    const read = Delta.parse(miniSearchEngine, FORMAT, JSON.parse(JSON.stringify(delta.toJSON(FORMAT))));
    expect(read.size).toBe(3);
    expect(read.segmentOf('de').hidden).toEqual(new Set(['guide:9']));
    expect(
      read
        .segmentOf('en')
        .segment!.index.query(q('valve'))
        .map((hit) => hit.key),
    ).toEqual(['guide:3']);
    expect(() => Delta.parse(miniSearchEngine, 'other', delta.toJSON(FORMAT))).toThrow();
  });

  it('a merge folds a shard’s entries in and forgets them, but keeps what was written after it began', () => {
    const shards = shardsOf(base);
    const delta = Delta.empty(miniSearchEngine);
    for (let id = 1; id <= 10; id++) delta.upsert(doc(id, `Hinge bracket ${id}`), 2, ['en']);
    delta.remove('guide:20', 2, ['en']);
    const before = query(shards, delta, 'hinge')
      .map((hit) => hit.key)
      .sort();
    // A merge of each shard, from the delta as it was at version 2; meanwhile version 3 changed guide 1 again.
    const snapshot = Delta.parse(miniSearchEngine, FORMAT, delta.toJSON(FORMAT));
    delta.upsert(doc(1, 'Hinge latch'), 3, ['en']);
    for (const { index, place } of shards) {
      snapshot.foldInto(index, 'en', place);
      delta.forgetMerged('en', place, 2);
    }
    expect([...delta.documents.keys()]).toEqual(['guide:1']);
    expect([...delta.tombstones.keys()]).toEqual(['guide:1']);
    const after = query(shards, delta, 'hinge')
      .map((hit) => hit.key)
      .sort();
    expect(after).toEqual(before);
    expect(query(shards, delta, 'bracket').map((hit) => hit.key)).not.toContain('guide:1');
    expect(query(shards, delta, 'latch').map((hit) => hit.key)).toEqual(['guide:1']);
    expect(shards.reduce((sum, { index }) => sum + index.documentCount, 0)).toBe(29);
  });
});
