/** The search port's MiniSearch adapter: ranking, filters, languages, and the stored form. */
import { describe, expect, it } from 'vitest';
import { IndexFormatError, miniSearchEngine } from '../../shared/search/minisearch-engine.ts';
import type MiniSearch from 'minisearch';
import type { SearchDocument, SearchIndexPort, SearchKind } from '../../shared/search/search-port.ts';
import { searchDocument } from '../support/search-documents.ts';
import { gunzipSync, gzipSync } from 'node:zlib';
import { ShardFormatError } from '../../shared/search/minisearch-shard-format.ts';

const doc = searchDocument;

const every = new Set<SearchKind>(['guide', 'category', 'wiki']);

describe('the MiniSearch adapter', () => {
  it('ranks a title match above a summary match above a body match', () => {
    const index = miniSearchEngine.empty();
    index.upsert(doc(1, { body: 'remove the fuser unit' }));
    index.upsert(doc(2, { title: 'Fuser replacement' }));
    index.upsert(doc(3, { summary: 'the fuser, step by step' }));
    expect(index.query({ text: 'fuser', langid: 'en', kinds: every }).map((hit) => hit.recordid)).toEqual([2, 3, 1]);
  });

  it('keeps languages apart, narrows to teardowns, and finds a half-typed last word', () => {
    const index = miniSearchEngine.empty();
    index.upsert(doc(1, { title: 'Battery swap' }));
    index.upsert(doc(2, { title: 'Battery tauschen', langid: 'de' }));
    index.upsert(doc(3, { title: 'Battery teardown', type: 'teardown' }));
    const ids = (langid: string, guideTypes?: Set<string>) =>
      index.query({ text: 'batt', langid, kinds: every, guideTypes }).map((hit) => hit.recordid);
    expect(ids('de')).toEqual([2]);
    expect(ids('en').sort()).toEqual([1, 3]);
    expect(ids('en', new Set(['teardown']))).toEqual([3]);
  });

  it('replaces and removes documents, and loads what it serialized', () => {
    const index = miniSearchEngine.empty();
    index.upsert(doc(1, { title: 'Old words' }));
    index.upsert(doc(1, { title: 'New words' }));
    index.upsert(doc(2, { title: 'Gone soon' }));
    index.remove('guide:2');
    const loaded = miniSearchEngine.load(index.serialize());
    expect(loaded.documentCount).toBe(1);
    expect(loaded.query({ text: 'old', langid: 'en', kinds: every })).toEqual([]);
    const [hit] = loaded.query({ text: 'new', langid: 'en', kinds: every });
    expect(hit).toMatchObject({ key: 'guide:1', recordid: 1, kind: 'guide', access: { public: true } });
    expect(() => miniSearchEngine.load(gzipSync(JSON.stringify({ format: 'other', index: {} })))).toThrow(
      IndexFormatError,
    );
  });
});

const VOCABULARY = [
  'fuser',
  'roller',
  'battery',
  'panel',
  'screw',
  'belt',
  'tension',
  'cover',
  'hinge',
  'valve',
  'drum',
];
let seed = 11;
function pick(): string {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return VOCABULARY[Math.floor((seed / 2147483648) ** 2 * VOCABULARY.length)]!;
}
const words = (count: number) => Array.from({ length: count }, pick).join(' ');
const corpus = Array.from({ length: 120 }, (_, n) =>
  doc(n + 1, { title: words(3), summary: words(6), body: words(20 + (n % 17)) }),
);

describe('querying segments (decision 289)', () => {
  it('scores and orders a document the same whichever segment holds it (global statistics)', () => {
    const whole = miniSearchEngine.empty();
    const parts = [miniSearchEngine.empty(), miniSearchEngine.empty(), miniSearchEngine.empty()];
    corpus.forEach((document, n) => {
      whole.upsert(document);
      // Uneven parts: per-segment statistics would score the same text differently in each.
      parts[n % 7 === 0 ? 0 : n % 2 === 0 ? 1 : 2]!.upsert(document);
    });
    const segments = parts.map((index) => ({ index, hidden: new Set<string>() }));
    for (const text of ['fuser', 'belt tension', 'val', 'drum cover', 'hinge screw roller']) {
      const expected = whole.query({ text, langid: 'en', kinds: every });
      const found = miniSearchEngine.querySegments(segments, { text, langid: 'en', kinds: every });
      expect(expected.length, text).toBeGreaterThan(0);
      expect(
        found.map((hit) => hit.key),
        text,
      ).toEqual(expected.map((hit) => hit.key));
      for (const [n, hit] of found.entries())
        expect(hit.score, `${text} ${hit.key}`).toBeCloseTo(expected[n]!.score, 9);
    }
    // Each segment alone scores differently (the statistics are what the test is about).
    const alone = parts[0]!.query({ text: 'fuser', langid: 'en', kinds: every })[0]!;
    const inWhole = whole.query({ text: 'fuser', langid: 'en', kinds: every }).find((hit) => hit.key === alone.key)!;
    expect(alone.score).not.toBeCloseTo(inWhole.score, 3);
    // The segments' own statistics are back after the query.
    expect(parts[0]!.query({ text: 'fuser', langid: 'en', kinds: every })[0]!.score).toBeCloseTo(alone.score, 9);
  });

  it('leaves out the keys a segment hides (replaced or deleted in a newer one)', () => {
    const older = miniSearchEngine.empty();
    const newer = miniSearchEngine.empty();
    older.upsert(doc(1, { title: 'Hinge cover' }));
    older.upsert(doc(2, { title: 'Hinge pin' }));
    newer.upsert(
      doc(1, { title: 'Hinge cover', access: { public: false, userid: 9, grant_userids: [], grant_teamids: [] } }),
    );
    const hits = miniSearchEngine.querySegments(
      [
        { index: older, hidden: new Set(['guide:1']) },
        { index: newer, hidden: new Set() },
      ],
      { text: 'hinge', langid: 'en', kinds: every },
    );
    expect(hits.map((hit) => [hit.key, hit.access?.public])).toEqual(
      expect.arrayContaining([
        ['guide:1', false],
        ['guide:2', true],
      ]),
    );
    expect(hits).toHaveLength(2);
  });
});

describe('the stored shard (decision 343)', () => {
  const build = () => {
    const index = miniSearchEngine.empty();
    for (const document of corpus) index.upsert(document);
    // Replaced and removed documents leave postings MiniSearch drops only at a vacuum.
    index.upsert({ ...corpus[3]!, title: 'hinge replaced' });
    index.remove(corpus[5]!.key);
    return index;
  };
  const queries = ['fuser roller', 'batt', 'hinge', 'cover tension'];

  it('loads to the index it was written from, without the postings of replaced or removed documents, at once or a step at a time', async () => {
    const bytes = build().serialize();
    // The same documents indexed afresh: no leftover postings of a replaced or removed one.
    const clean = miniSearchEngine.empty();
    corpus.forEach((document, n) => {
      if (n === 3) clean.upsert({ ...document, title: 'hinge replaced' });
      else if (n !== 5) clean.upsert(document);
    });
    const answers = (index: SearchIndexPort, text: string) =>
      index.query({ text, langid: 'en', kinds: every }).map((hit) => [hit.key, hit.score.toFixed(9)]);
    for (const copy of [miniSearchEngine.load(bytes), await miniSearchEngine.loadAsync(bytes)]) {
      expect(copy.documentCount).toBe(clean.documentCount);
      for (const text of queries) expect(answers(copy, text), text).toEqual(answers(clean, text));
      expect(copy.has(corpus[5]!.key)).toBe(false);
      // Still a MiniSearch index that changes in place (a merge folds the delta into it).
      copy.upsert(doc(999, { title: 'zeppelin' }));
      expect(copy.query({ text: 'zeppelin', langid: 'en', kinds: every }).map((hit) => hit.recordid)).toEqual([999]);
    }
  });

  it('still loads the previous stored form when the head names it, so searches answer until the rebuild', async () => {
    const written = build();
    const previous = gzipSync(
      JSON.stringify({ format: 'minisearch-1', index: (written as { toJSON(): unknown }).toJSON() }),
    );
    const read = await miniSearchEngine.loadAsync(previous, miniSearchEngine.previousFormat);
    const current = await miniSearchEngine.loadAsync(written.serialize());
    const hits = (index: SearchIndexPort, text: string) =>
      index
        .query({ text, langid: 'en', kinds: every })
        .map((hit) => hit.key)
        .sort();
    // The same documents found (the order may differ: the old form keeps a replaced one's postings until a vacuum).
    for (const text of queries) expect(hits(read, text), text).toEqual(hits(current, text));
    expect(hits(read, 'fuser roller').length).toBeGreaterThan(0);
    await expect(miniSearchEngine.loadAsync(previous, 'minisearch-0')).rejects.toThrow(IndexFormatError);
  });

  it('refuses an older stored form (rebuilt) and cut or damaged bytes, instead of loading half', () => {
    const plain = gunzipSync(build().serialize());
    expect(() => miniSearchEngine.load(gzipSync(JSON.stringify({ format: 'minisearch-1', index: {} })))).toThrow(
      IndexFormatError,
    );
    expect(() => miniSearchEngine.load(gzipSync(plain.subarray(0, plain.length - 4)))).toThrow(ShardFormatError);
    const extra = Buffer.concat([plain, Buffer.alloc(8)]);
    expect(() => miniSearchEngine.load(gzipSync(extra))).toThrow(ShardFormatError);
    // The first term's field count, past the fields there are.
    const damaged = Buffer.from(plain);
    damaged.writeUInt32LE(99, Math.ceil((4 + plain.readUInt32LE(0)) / 4) * 4);
    expect(() => miniSearchEngine.load(gzipSync(damaged))).toThrow(ShardFormatError);
  });
});

describe("the adapter's scoring loop (decision 343)", () => {
  it("scores every match as MiniSearch's own search does, one index or segments", () => {
    const index = miniSearchEngine.empty();
    for (const document of corpus) index.upsert(document);
    const miniSearch = (index as unknown as { engine: MiniSearch<SearchDocument> }).engine;
    for (const text of ['fuser roller', 'batt', 'hinge cover', 'tension belt valve']) {
      const own = miniSearch
        .search(text, {
          boost: { title: 4, summary: 2, body: 1 },
          combineWith: 'AND',
          prefix: (term) => term.length >= 3,
        })
        .map((result): [string, number] => [result.id, result.score]);
      const ours = index
        .query({ text, langid: 'en', kinds: every })
        .map((hit): [string, number] => [hit.key, hit.score]);
      expect(ours.length, text).toBeGreaterThan(0);
      expect(new Map(ours), text).toEqual(new Map(own));
    }
  });
});
