/**
 * The search contract (decision 292): the cases GET /search relies on, run against every backend
 * behind the search port with the same documents and callers:
 * - the embedded engine (MiniSearch, in memory: the segments and the store have their own tests);
 * - the OpenSearch adapter over a fake transport answering as OpenSearch does
 *   (test/support/fake-opensearch.ts): its mapping, the query and bulk bodies it builds, and how
 *   it reads the answers;
 * - with OPENSEARCH_URL set (a throwaway cluster: its stepwise-search-* indexes are replaced), the
 *   same adapter through the official client against that cluster.
 * Access is the rule of shared/content/guide-access.ts on one side and the adapter's query
 * filter on the other: every case asks as every caller below, and both must agree.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../infra/repo-paths.ts';
import { canViewGuideNow } from '../../shared/content/guide-access.ts';
import type { Caller } from '../../shared/domain/caller.ts';
import { readablePage } from '../../shared/search/backends.ts';
import { miniSearchEngine } from '../../shared/search/minisearch-engine.ts';
import {
  openSearchBackend,
  openSearchIndexBody,
  openSearchQueryBody,
  type OpenSearchApi,
} from '../../shared/search/opensearch-adapter.ts';
import type { SearchBackend, SearchDocument, SearchKind } from '../../shared/search/search-port.ts';
import { searchDocument } from '../support/search-documents.ts';
import { viewerOf } from '../../shared/read-models/search.ts';
import { fakeOpenSearch, memoryGenerations } from '../support/fake-opensearch.ts';

const doc = searchDocument;

const privately = (userid: number, grants: { users?: number[]; teams?: number[] } = {}) => ({
  public: false,
  userid,
  grant_userids: grants.users ?? [],
  grant_teamids: grants.teams ?? [],
});

const page = (recordid: number, kind: SearchKind, fields: Partial<SearchDocument>) =>
  doc(recordid, { key: `wiki:${recordid}`, kind, type: '', access: null, ...fields });

const DOCUMENTS: SearchDocument[] = [
  doc(1, { body: 'remove the platen unit' }),
  doc(2, { title: 'Platen replacement' }),
  doc(3, { summary: 'the platen, step by step' }),
  doc(4, { title: 'Battery swap', body: 'lift the roller' }),
  doc(5, { title: 'Battery tauschen', langid: 'de' }),
  doc(6, { title: 'Battery teardown', type: 'teardown' }),
  doc(7, { title: 'Fuser cleaning' }),
  doc(10, { title: 'Draft fuser notes', access: privately(20) }),
  doc(11, { title: 'Granted fuser procedure', access: privately(20, { users: [21] }) }),
  doc(12, { title: 'Team fuser procedure', access: privately(20, { teams: [7] }) }),
  page(30, 'category', { title: 'Fuser models' }),
  page(31, 'wiki', { title: 'How a fuser wears' }),
];

const caller = (userid: number, extra: Partial<Caller> = {}): Caller => ({
  userid,
  username: `u${userid}`,
  privileges: ['User'],
  teams: [],
  ...extra,
});

const CALLERS: Record<string, Caller | null> = {
  anonymous: null,
  outsider: caller(22),
  author: caller(20, { privileges: ['Author'] }),
  granted: caller(21),
  member: caller(23, { teams: [7, 9] }),
  admin: caller(24, { privileges: ['Admin'] }),
};

const ALL = new Set<SearchKind>(['guide', 'category', 'wiki']);

/** The embedded engine's query and the access filter the embedded backend applies (readablePage). */
function embeddedInMemory(): SearchBackend {
  let index = miniSearchEngine.empty();
  return {
    name: 'embedded',
    search: async ({ query, readable, offset, limit }) => readablePage(index.query(query), readable, offset, limit),
    write: async (read) => {
      await read(index);
      return {};
    },
    rebuild: async (whole) => {
      index = miniSearchEngine.empty();
      for (const document of await whole()) index.upsert(document);
      return { documents: index.documentCount };
    },
  };
}

/** One clock for every adapter: versions only grow, also on a live cluster's indexes. */
let clock = 1_000;
/** The OpenSearch adapter over `api`, its generation pointer in memory; a swapped-out generation is dropped at once. */
function openSearchOver(api: OpenSearchApi, languages = ['en', 'de']) {
  const generations = memoryGenerations();
  const backend = openSearchBackend({
    api: async () => api,
    languages: () => languages,
    generations,
    now: () => ++clock,
    retireAfterMs: 0,
  });
  return Object.assign(backend, { generations });
}

/** A write of the stream's kind: these documents changed (nothing to read from the table). */
const upsert = (backend: SearchBackend, document: SearchDocument) =>
  backend.write(
    async (index) => index.upsert(document),
    async () => [],
  );

async function liveApi(url: string): Promise<OpenSearchApi> {
  const { createOpenSearchClient } = await import('../../shared/search/opensearch-client.ts');
  const api = createOpenSearchClient(url, process.env.AWS_REGION ?? 'us-east-1');
  // Searchable at once: the contract is about answers, not the refresh interval.
  return {
    ...api,
    indices: api.indices,
    search: api.search.bind(api),
    bulk: (p) => api.bulk({ ...p, refresh: true } as never),
  };
}

const BACKENDS: Array<[string, () => Promise<SearchBackend>]> = [
  ['embedded (MiniSearch)', async () => embeddedInMemory()],
  ['OpenSearch adapter (fake transport)', async () => openSearchOver(fakeOpenSearch())],
];
if (process.env.OPENSEARCH_URL) {
  BACKENDS.push([
    'OpenSearch adapter (live cluster)',
    async () => openSearchOver(await liveApi(process.env.OPENSEARCH_URL!)),
  ]);
}

describe.each(BACKENDS)('the search contract: %s', (_name, make) => {
  async function loaded(): Promise<SearchBackend> {
    const backend = await make();
    await backend.rebuild(async () => DOCUMENTS);
    return backend;
  }

  const ask = (
    backend: SearchBackend,
    who: Caller | null,
    text: string,
    more: Partial<{
      langid: string;
      kinds: Set<SearchKind>;
      guideTypes: Set<string>;
      offset: number;
      limit: number;
    }> = {},
  ) =>
    backend.search({
      query: { text, langid: more.langid ?? 'en', kinds: more.kinds ?? ALL, guideTypes: more.guideTypes },
      viewer: viewerOf(who),
      readable: (access) => canViewGuideNow(who, access),
      offset: more.offset ?? 0,
      limit: more.limit ?? 20,
    });
  const keys = async (found: Promise<{ hits: Array<{ key: string }> }>) => (await found).hits.map((hit) => hit.key);

  it('ranks title above summary above body; every word must match; a half-typed word is a prefix', async () => {
    const backend = await loaded();
    const platen = await keys(ask(backend, CALLERS.outsider!, 'platen'));
    expect(platen).toEqual(['guide:2', 'guide:3', 'guide:1']);
    expect(await keys(ask(backend, null, 'battery roller'))).toEqual(['guide:4']);
    expect((await keys(ask(backend, null, 'batt'))).sort()).toEqual(['guide:4', 'guide:6']);
    expect(await keys(ask(backend, null, 'platen zzyzx'))).toEqual([]);
  });

  it('keeps languages apart and narrows by kind and guide type', async () => {
    const backend = await loaded();
    expect(await keys(ask(backend, null, 'battery', { langid: 'de' }))).toEqual(['guide:5']);
    expect(await keys(ask(backend, null, 'battery', { guideTypes: new Set(['teardown']) }))).toEqual(['guide:6']);
    expect(await keys(ask(backend, null, 'fuser', { kinds: new Set(['category']) }))).toEqual(['wiki:30']);
    expect((await keys(ask(backend, null, 'fuser', { kinds: new Set(['category', 'wiki']) }))).sort()).toEqual([
      'wiki:30',
      'wiki:31',
    ]);
    // A language nobody wrote in: nothing, not an error.
    expect(await ask(backend, null, 'fuser', { langid: 'fr' })).toEqual({ total: 0, hits: [] });
  });

  it('finds and counts only what each caller may read, as the access rule says', async () => {
    const backend = await loaded();
    const expected: Record<string, number[]> = {
      anonymous: [7],
      outsider: [7],
      author: [7, 10, 11, 12],
      granted: [7, 11],
      member: [7, 12],
      admin: [7, 10, 11, 12],
    };
    for (const [name, who] of Object.entries(CALLERS)) {
      const found = await ask(backend, who, 'fuser', { kinds: new Set(['guide']) });
      expect(
        found.hits.map((hit) => hit.recordid).sort((a, b) => a - b),
        name,
      ).toEqual(expected[name]);
      expect(found.total, name).toBe(expected[name]!.length);
      for (const hit of found.hits) expect(canViewGuideNow(who, hit.access!), `${name} ${hit.key}`).toBe(true);
    }
    // Pages are for everyone who may call: counted with the guides.
    expect((await ask(backend, null, 'fuser')).total).toBe(3);
  });

  it('pages with offset and limit; the total is of the whole', async () => {
    const backend = await loaded();
    const all = await keys(ask(backend, CALLERS.admin!, 'fuser'));
    expect(all).toHaveLength(6);
    const second = await ask(backend, CALLERS.admin!, 'fuser', { offset: 3, limit: 3 });
    expect(second.total).toBe(6);
    expect(second.hits.map((hit) => hit.key)).toEqual(all.slice(3, 6));
    expect((await ask(backend, CALLERS.admin!, 'fuser', { offset: 5, limit: 3 })).hits).toHaveLength(1);
  });

  it('a write after the caller lost access hides the guide; a removal forgets it', async () => {
    const backend = await loaded();
    expect(await keys(ask(backend, CALLERS.member!, 'team fuser'))).toEqual(['guide:12']);
    await upsert(backend, { ...DOCUMENTS.find((d) => d.key === 'guide:12')!, access: privately(20) });
    expect(await ask(backend, CALLERS.member!, 'team fuser')).toEqual({ total: 0, hits: [] });
    expect(await keys(ask(backend, CALLERS.author!, 'team fuser'))).toEqual(['guide:12']);
    await backend.write(
      async (index) => index.remove('guide:12'),
      async () => [],
    );
    expect(await keys(ask(backend, CALLERS.admin!, 'team fuser'))).toEqual([]);
  });
});

describe('the OpenSearch adapter’s requests', () => {
  it('a strict mapping of the stored fields, the language’s stemmer, room for offset 100,000', () => {
    const body = openSearchIndexBody('de') as any;
    expect(Object.keys(body.mappings.properties).sort()).toEqual(Object.keys(doc(1, {})).sort());
    expect(body.mappings.dynamic).toBe('strict');
    expect(body.settings.analysis.filter.stepwise_stem).toEqual({ type: 'stemmer', language: 'light_german' });
    expect(body.settings['index.max_result_window']).toBeGreaterThanOrEqual(100_000 + 200);
    expect((openSearchIndexBody('xx') as any).settings.analysis.analyzer.stepwise_text.filter).toEqual([
      'lowercase',
      'asciifolding',
    ]);
  });

  it('an Admin’s query has no access filter; an anonymous one admits public guides and pages only', () => {
    const request = (who: Caller | null) =>
      openSearchQueryBody({
        query: { text: 'a b', langid: 'en', kinds: ALL },
        viewer: viewerOf(who),
        offset: 0,
        limit: 5,
      }) as any;
    expect(request(CALLERS.admin!).query.bool.filter).toHaveLength(2);
    const anonymous = request(null).query.bool.filter[2].bool.should;
    expect(anonymous).toEqual([
      { bool: { must_not: [{ term: { kind: 'guide' } }] } },
      { term: { 'access.public': true } },
    ]);
    expect(request(CALLERS.member!).query.bool.filter[2].bool.should).toContainEqual({
      terms: { 'access.grant_teamids': [7, 9] },
    });
    // Words of under three letters are matched whole, longer ones also as a prefix.
    expect(request(null).query.bool.must).toHaveLength(2);
    expect(
      openSearchQueryBody({ query: { text: ' ,.', langid: 'en', kinds: ALL }, viewer: null, offset: 0, limit: 5 }),
    ).toBeUndefined();
  });

  it('a stale writer loses to a newer one (external versions); a refused change throws, so the batch is retried', async () => {
    const api = fakeOpenSearch();
    let now = 100;
    const backend = openSearchBackend({
      api: async () => api,
      languages: () => ['en'],
      generations: memoryGenerations(),
      now: () => now,
    });
    await upsert(backend, doc(1, { title: 'Newer words' }));
    now = 50; // read earlier, written later
    await upsert(backend, doc(1, { title: 'Older words' }));
    expect(api.indexes.get('stepwise-search-en')!.documents.get('guide:1')!.source.title).toBe('Newer words');
    const refusing: OpenSearchApi = {
      ...api,
      bulk: async () => ({ body: { errors: true, items: [{ index: { status: 429, error: { type: 'rejected' } } }] } }),
    };
    const failing = openSearchBackend({
      api: async () => refusing,
      languages: () => ['en'],
      generations: memoryGenerations(),
    });
    await expect(upsert(failing, doc(2, {}))).rejects.toThrow(/refused/);
  });
});

describe('an OpenSearch rebuild (decision 329)', () => {
  it('fills a new generation while searches answer from the current one, then swaps it in and drops the old', async () => {
    const api = fakeOpenSearch();
    const backend = openSearchOver(api, ['en']);
    const { generations } = backend;
    const found = async () =>
      (
        await backend.search({
          query: { text: 'platen', langid: 'en', kinds: ALL },
          viewer: null,
          readable: () => true,
          offset: 0,
          limit: 20,
        })
      ).hits
        .map((hit) => hit.key)
        .sort();
    await backend.rebuild(async () => [doc(1, { title: 'Platen one' }), doc(2, { title: 'Platen two' })]);
    const first = generations.pointer!.current;
    expect([...api.indexes.keys()]).toEqual([`stepwise-search-en_g${first}`]);

    let release!: () => void;
    let reading!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const inWhole = new Promise<void>((resolve) => (reading = resolve));
    const rebuilding = backend.rebuild(async () => {
      reading();
      await gate;
      return [doc(1, { title: 'Platen one' }), doc(3, { title: 'Platen three' })];
    });
    await inWhole;
    // While the rebuild runs, searches read the complete current generation, not an empty new one.
    expect(generations.pointer!.building).toBeGreaterThan(first);
    expect(await found()).toEqual(['guide:1', 'guide:2']);
    // A change meanwhile goes to both generations: found now, and still there after the swap.
    await upsert(backend, doc(4, { title: 'Platen four' }));
    expect(await found()).toEqual(['guide:1', 'guide:2', 'guide:4']);
    release();
    await rebuilding;
    // The new generation: guide 2 left the table before the rebuild read it, guide 4 came by the stream.
    expect(generations.pointer!.building).toBeUndefined();
    expect(generations.pointer!.current).toBeGreaterThan(first);
    expect(await found()).toEqual(['guide:1', 'guide:3', 'guide:4']);
    expect([...api.indexes.keys()]).toEqual([`stepwise-search-en_g${generations.pointer!.current}`]);
  });

  it('a rebuild another one superseded gives way and drops what it filled', async () => {
    const api = fakeOpenSearch();
    const backend = openSearchOver(api, ['en']);
    const { generations } = backend;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow = backend.rebuild(async () => {
      await gate;
      return [doc(1, { title: 'Platen one' })];
    });
    await new Promise((resolve) => setImmediate(resolve));
    await backend.rebuild(async () => [doc(2, { title: 'Platen two' })]);
    release();
    await expect(slow).rejects.toThrow(/superseded/);
    expect([...api.indexes.keys()]).toEqual([`stepwise-search-en_g${generations.pointer!.current}`]);
    expect(generations.pointer!.building).toBeUndefined();
  });
});

describe('the OpenSearch client', () => {
  const sources = (folder: string): string[] =>
    readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) return sources(path);
      return entry.name.endsWith('.ts') ? [path] : [];
    });

  it('is imported for its values by its side-bundle entry only (an embedded site never parses it)', () => {
    const client = /^\s*(?:import|export)\s+(?!type\s)[^;]*?from\s+'@opensearch-project\/opensearch/m;
    const importers = ['functions', 'shared']
      .flatMap((top) => sources(join(REPO_ROOT, top)))
      .filter((path) => client.test(readFileSync(path, 'utf8')))
      .map((path) => relative(REPO_ROOT, path));
    expect(importers).toEqual(['shared/search/opensearch-client.ts']);
    const imports = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')).imports;
    expect(imports['#opensearch-client']).toBe('./shared/search/opensearch-client.ts');
  });
});
