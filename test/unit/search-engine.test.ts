/** The search port's MiniSearch adapter: ranking, filters, languages, and the stored form. */
import { describe, expect, it } from 'vitest';
import { IndexFormatError, miniSearchEngine } from '../../shared/search/minisearch-engine.ts';
import type { SearchDocument, SearchKind } from '../../shared/search/search-port.ts';
import { gzipSync } from 'node:zlib';

function doc(recordid: number, fields: Partial<SearchDocument>): SearchDocument {
  return {
    key: `guide:${recordid}`,
    kind: 'guide',
    recordid,
    langid: 'en',
    type: 'how-to',
    title: '',
    summary: '',
    body: '',
    access: { public: true, userid: 1, grant_userids: [], grant_teamids: [] },
    ...fields,
  };
}

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
