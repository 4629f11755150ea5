/**
 * The search port's second backend: Amazon OpenSearch Service (decision 292, docs/search.md),
 * for a site past the embedded index's threshold (decision 291). The same documents as the
 * embedded engine, one index per language (`stepwise-search-<langid>`, that language's stemmer),
 * fed by the same stream indexer; the access rule is a filter of the query, so the engine counts
 * only what the caller may read and a page is one request, however deep.
 * Everything here builds request bodies and reads answers: the client (`#opensearch-client`,
 * a side bundle loaded with the first request) only carries them. Answers are parsed with their
 * schema before anything is used.
 */
import * as z from 'zod/mini';
import { log } from '../observability/logger.ts';
import { OPENSEARCH_INDEX_PREFIX } from './keys.ts';
import type {
  IndexEditor,
  SearchAccess,
  SearchBackend,
  SearchDocument,
  SearchHit,
  SearchPage,
  SearchQuery,
  SearchRequest,
  SearchViewer,
} from './search-port.ts';

/** What the adapter calls of the official client (`@opensearch-project/opensearch`'s Client). */
export interface OpenSearchApi {
  search(params: { index: string; body: unknown; ignore_unavailable?: boolean }): Promise<{ body: unknown }>;
  bulk(params: { body: unknown[] }): Promise<{ body: unknown }>;
  indices: {
    exists(params: { index: string }): Promise<{ body: unknown }>;
    create(params: { index: string; body: unknown }): Promise<{ body: unknown }>;
    delete(params: { index: string; ignore_unavailable?: boolean }): Promise<{ body: unknown }>;
  };
}

/**
 * The index of a language in a generation (decision 329): generation 0 is the name from before
 * generations; a rebuild's is `_g<generation>` after it (a langid never holds `_`).
 */
export function openSearchIndexName(langid: string, generation = 0): string {
  const name = `${OPENSEARCH_INDEX_PREFIX}${langid.toLowerCase().replace(/[^a-z0-9-]/g, '')}`;
  return generation === 0 ? name : `${name}_g${generation}`;
}

/** Which generation of indexes searches read, and a rebuild's while it is filled (decision 329). */
export interface IndexGeneration {
  current: number;
  building?: number;
}

/**
 * Where the pointer is kept (the table's SEARCH_INDEX / OPENSEARCH item; in memory in tests).
 * `move` is on condition of the version read and throws when another writer moved it first.
 */
export interface IndexGenerations {
  read(consistent: boolean): Promise<(IndexGeneration & { version: number }) | undefined>;
  move(next: IndexGeneration, expectedVersion: number | undefined): Promise<void>;
}

/**
 * OpenSearch's stemmer per language (the `language` of its `stemmer` filter), by the primary
 * subtag of `langid`; another language is only lower-cased. No stop words: as in the embedded
 * engine, every word of a query must be found, `the` too.
 */
const STEMMERS: Record<string, string> = {
  ar: 'arabic',
  bg: 'bulgarian',
  ca: 'catalan',
  cs: 'czech',
  da: 'danish',
  de: 'light_german',
  el: 'greek',
  en: 'english',
  es: 'light_spanish',
  fi: 'light_finnish',
  fr: 'light_french',
  hu: 'light_hungarian',
  id: 'indonesian',
  it: 'light_italian',
  nl: 'dutch',
  no: 'norwegian',
  pt: 'light_portuguese',
  ro: 'romanian',
  ru: 'light_russian',
  sv: 'light_swedish',
  tr: 'turkish',
};

/** A title match weighs most, then the summary, then the body: the embedded engine's boosts. */
const FIELDS = ['title^4', 'summary^2', 'body'];

/** offset (at most 100,000, the legacy lists' bound) + limit (at most 200). */
const MAX_RESULT_WINDOW = 100_200;

/** The index of one language: its analyzer and the stored fields (strict: nothing else gets in). */
export function openSearchIndexBody(langid: string): Record<string, unknown> {
  const stemmer = STEMMERS[langid.toLowerCase().split('-')[0]!];
  const text = { type: 'text', analyzer: 'stepwise_text' };
  return {
    settings: {
      'index.max_result_window': MAX_RESULT_WINDOW,
      analysis: {
        filter: stemmer ? { stepwise_stem: { type: 'stemmer', language: stemmer } } : {},
        analyzer: {
          stepwise_text: {
            type: 'custom',
            tokenizer: 'standard',
            filter: ['lowercase', 'asciifolding', ...(stemmer ? ['stepwise_stem'] : [])],
          },
        },
      },
    },
    mappings: {
      dynamic: 'strict',
      properties: {
        key: { type: 'keyword' },
        kind: { type: 'keyword' },
        recordid: { type: 'long' },
        langid: { type: 'keyword' },
        type: { type: 'keyword' },
        title: text,
        summary: text,
        body: text,
        access: {
          properties: {
            public: { type: 'boolean' },
            userid: { type: 'long' },
            grant_userids: { type: 'long' },
            grant_teamids: { type: 'long' },
          },
        },
      },
    },
  };
}

/** MiniSearch's default tokenizer: words are split at spaces and punctuation. */
const WORD_SEPARATOR = /[\n\r\p{Z}\p{P}]+/u;
/** A query of more words than this is cut: each word is a clause. */
const MAX_WORDS = 32;

export function queryWords(text: string): string[] {
  return text
    .toLowerCase()
    .split(WORD_SEPARATOR)
    .filter((word) => word !== '')
    .slice(0, MAX_WORDS);
}

/** Every word must match in some field; one of 3+ letters also as the start of a word ("batter" finds "battery"). */
function wordClause(word: string): Record<string, unknown> {
  const exact = { multi_match: { query: word, fields: FIELDS } };
  if (word.length < 3) return exact;
  return {
    bool: {
      should: [exact, { multi_match: { query: word, fields: FIELDS, type: 'phrase_prefix', max_expansions: 200 } }],
      minimum_should_match: 1,
    },
  };
}

const notAGuide = { bool: { must_not: [{ term: { kind: 'guide' } }] } };

/**
 * The access rule of shared/content/guide-access.ts (`canViewGuideNow`) as a filter: pages are
 * for everyone who may call the API; a guide when it is public, or the viewer wrote it, or it is
 * granted to them or one of their teams; Admins read everything.
 */
export function accessFilter(viewer: SearchViewer | null): Record<string, unknown> | undefined {
  if (viewer?.admin) return undefined;
  const should: unknown[] = [notAGuide, { term: { 'access.public': true } }];
  if (viewer) {
    should.push({ term: { 'access.userid': viewer.userid } }, { term: { 'access.grant_userids': viewer.userid } });
    if (viewer.teams.length > 0) should.push({ terms: { 'access.grant_teamids': [...viewer.teams] } });
  }
  return { bool: { should, minimum_should_match: 1 } };
}

function scopeFilters(query: SearchQuery): unknown[] {
  const filters: unknown[] = [{ term: { langid: query.langid } }, { terms: { kind: [...query.kinds].sort() } }];
  if (query.guideTypes) {
    filters.push({
      bool: { should: [notAGuide, { terms: { type: [...query.guideTypes].sort() } }], minimum_should_match: 1 },
    });
  }
  return filters;
}

const SOURCE_FIELDS = ['key', 'kind', 'recordid', 'langid', 'type', 'access'];

/** The body of one page's search: words, scope and access filters, best first (ties by key), an exact total. */
export function openSearchQueryBody(request: Omit<SearchRequest, 'readable'>): Record<string, unknown> | undefined {
  const words = queryWords(request.query.text);
  if (words.length === 0) return undefined;
  const access = accessFilter(request.viewer);
  return {
    from: request.offset,
    size: request.limit,
    track_total_hits: true,
    sort: [{ _score: 'desc' }, { key: 'asc' }],
    _source: SOURCE_FIELDS,
    query: {
      bool: {
        must: words.map(wordClause),
        filter: [...scopeFilters(request.query), ...(access ? [access] : [])],
      },
    },
  };
}

const accessSchema = z.object({
  public: z.boolean(),
  userid: z.number(),
  grant_userids: z.array(z.number()),
  grant_teamids: z.array(z.number()),
});

const searchAnswer = z.object({
  hits: z.object({
    total: z.object({ value: z.number().check(z.int(), z.nonnegative()) }),
    hits: z.array(
      z.object({
        _score: z.nullish(z.number()),
        _source: z.object({
          key: z.string(),
          kind: z.enum(['guide', 'category', 'wiki']),
          recordid: z.number().check(z.int()),
          langid: z.string(),
          type: z.string(),
          access: z.nullable(accessSchema),
        }),
      }),
    ),
  }),
});

/** An answer of OpenSearch as a page of hits (refused when it is not the shape asked for). */
export function pageOfAnswer(body: unknown): SearchPage {
  const parsed = searchAnswer.safeParse(body);
  if (!parsed.success) throw new Error(`OpenSearch answered a search in an unexpected shape: ${parsed.error.message}`);
  return {
    total: parsed.data.hits.total.value,
    hits: parsed.data.hits.hits.map(
      ({ _score, _source }): SearchHit => ({
        ..._source,
        access: _source.access as SearchAccess | null,
        score: _score ?? 0,
      }),
    ),
  };
}

/**
 * One batch as bulk actions, each versioned with the time its documents were read (external
 * versions): a slower writer that read an older state cannot overwrite a newer one.
 */
export function openSearchBulkBody(
  upserts: SearchDocument[],
  removals: string[],
  removedFrom: string[],
  version: number,
  generation = 0,
) {
  const body: unknown[] = [];
  const name = (langid: string) => openSearchIndexName(langid, generation);
  for (const document of upserts) {
    body.push(
      { index: { _index: name(document.langid), _id: document.key, version, version_type: 'external' } },
      document,
    );
    // The document may have moved language: its copies elsewhere go.
    for (const langid of removedFrom) {
      if (langid === document.langid) continue;
      body.push({ delete: { _index: name(langid), _id: document.key, version, version_type: 'external' } });
    }
  }
  for (const key of removals) {
    for (const langid of removedFrom) {
      body.push({ delete: { _index: name(langid), _id: key, version, version_type: 'external' } });
    }
  }
  return body;
}

const bulkAnswer = z.object({
  errors: z.boolean(),
  items: z.array(z.record(z.string(), z.object({ status: z.number(), error: z.optional(z.unknown()) }))),
});

/**
 * The failures of a bulk answer that matter: a version conflict (a newer copy is in) and a
 * delete of what is not there are what versioning and deleting mean.
 */
export function bulkFailures(body: unknown): string[] {
  const parsed = bulkAnswer.safeParse(body);
  if (!parsed.success) return [`OpenSearch answered a bulk request in an unexpected shape: ${parsed.error.message}`];
  if (!parsed.data.errors) return [];
  return parsed.data.items.flatMap((item) =>
    Object.entries(item).flatMap(([action, result]) => {
      if (result.status < 300 || result.status === 409 || (action === 'delete' && result.status === 404)) return [];
      return [`${action} ${result.status}: ${JSON.stringify(result.error ?? null).slice(0, 300)}`];
    }),
  );
}

/** Bulk requests of at most this many documents (a rebuild of 100,000 guides is 200 requests). */
const BULK_DOCUMENTS = 500;

export interface OpenSearchBackendOptions {
  /** The client, made on first use (the side bundle loads then). */
  api: () => Promise<OpenSearchApi>;
  /** The languages a removal is applied to: those of the site (STEPWISE_LANGUAGES) and any indexed since. */
  languages: () => readonly string[];
  /** The generation pointer (decision 329). */
  generations: IndexGenerations;
  now?: () => number;
  /**
   * How long a rebuild waits after making its generation current before it deletes the one
   * before (searches re-read the pointer every GENERATION_RECHECK_MS); tests pass 0.
   */
  retireAfterMs?: number;
}

/** How long a search container reads the generation it holds before it reads the pointer again. */
export const GENERATION_RECHECK_MS = 1000;

/** A rebuild that finds its generation replaced (another rebuild began meanwhile) gives way. */
export class RebuildSupersededError extends Error {
  constructor(generation: number) {
    super(`The search rebuild of generation ${generation} was superseded by another rebuild`);
    this.name = 'RebuildSupersededError';
  }
}

export function openSearchBackend(options: OpenSearchBackendOptions): SearchBackend {
  const now = options.now ?? Date.now;
  const { generations } = options;
  /** Indexes this container knows exist (created with their mapping). */
  const ready = new Set<string>();
  /** The generation searches read here, and when the pointer was last read. */
  let held: { generation: number; checkedAt: number } | undefined;

  async function searchedGeneration(): Promise<number> {
    if (held && Date.now() - held.checkedAt < GENERATION_RECHECK_MS) return held.generation;
    const checkedAt = Date.now();
    const pointer = await generations.read(false);
    held = { generation: pointer?.current ?? 0, checkedAt };
    return held.generation;
  }

  async function ensureIndex(api: OpenSearchApi, langid: string, generation: number): Promise<void> {
    const index = openSearchIndexName(langid, generation);
    if (ready.has(index)) return;
    const exists = await api.indices.exists({ index });
    if (exists.body !== true) {
      try {
        await api.indices.create({ index, body: openSearchIndexBody(langid) });
      } catch (error) {
        // Another writer created it meanwhile.
        if (!/resource_already_exists_exception/.test(JSON.stringify((error as { body?: unknown }).body ?? ''))) {
          throw error;
        }
      }
    }
    ready.add(index);
  }

  async function bulk(
    api: OpenSearchApi,
    upserts: SearchDocument[],
    removals: string[],
    version: number,
    generation: number,
  ) {
    const languages = [...new Set([...options.languages(), ...upserts.map((document) => document.langid)])].sort();
    for (const langid of languages) await ensureIndex(api, langid, generation);
    for (let start = 0; start < Math.max(upserts.length, removals.length); start += BULK_DOCUMENTS) {
      const body = openSearchBulkBody(
        upserts.slice(start, start + BULK_DOCUMENTS),
        removals.slice(start, start + BULK_DOCUMENTS),
        languages,
        version,
        generation,
      );
      const failures = bulkFailures((await api.bulk({ body })).body);
      // Thrown: the stream batch is retried (the write is idempotent), then dead-lettered.
      if (failures.length > 0) throw new Error(`OpenSearch refused ${failures.length} change(s): ${failures[0]}`);
    }
  }

  return {
    name: 'opensearch',
    async search(request) {
      const body = openSearchQueryBody(request);
      if (!body) return { total: 0, hits: [] };
      const api = await options.api();
      const answer = await api.search({
        index: openSearchIndexName(request.query.langid, await searchedGeneration()),
        body,
        // A language nothing was written in yet has no index: no results, not an error.
        ignore_unavailable: true,
      });
      return pageOfAnswer(answer.body);
    },
    async write(read) {
      // Read before the documents (strongly): a batch begun after a rebuild started also fills its generation.
      const pointer = await generations.read(true);
      const targets = [pointer?.current ?? 0, ...(pointer?.building === undefined ? [] : [pointer.building])];
      const version = now();
      const upserts = new Map<string, SearchDocument>();
      const removals = new Set<string>();
      const editor: IndexEditor = {
        upsert: (document) => {
          removals.delete(document.key);
          upserts.set(document.key, document);
        },
        remove: (key) => {
          upserts.delete(key);
          removals.add(key);
        },
      };
      await read(editor);
      const api = await options.api();
      for (const generation of targets) await bulk(api, [...upserts.values()], [...removals], version, generation);
      log().info('Search index written', {
        engine: 'opensearch',
        upserts: upserts.size,
        removals: removals.size,
        generations: targets,
      });
      return {};
    },
    /**
     * Decision 329: the whole index into a new generation of indexes while searches still read
     * the current one (and writes go to both); then the pointer moves, and the generation before
     * is deleted once no search container can still be reading it.
     */
    async rebuild(whole) {
      const api = await options.api();
      const before = await generations.read(true);
      const generation = Math.max(now(), (before?.current ?? 0) + 1, (before?.building ?? 0) + 1);
      // A rebuild that stopped half-way left its generation: it is never made current, so it goes.
      if (before?.building !== undefined) await dropGeneration(api, before.building, []);
      await generations.move({ current: before?.current ?? 0, building: generation }, before?.version);
      // Taken after the pointer moved: a write that read the table later has a higher version and wins.
      const version = now();
      const documents = await whole();
      const languages = documents.map((document) => document.langid);
      await bulk(api, documents, [], version, generation);
      const filled = await generations.read(true);
      if (filled?.building !== generation) {
        await dropGeneration(api, generation, languages);
        throw new RebuildSupersededError(generation);
      }
      await generations.move({ current: generation }, filled.version);
      held = undefined;
      const retireAfterMs = options.retireAfterMs ?? 2 * GENERATION_RECHECK_MS;
      if (retireAfterMs > 0) await new Promise((resolve) => setTimeout(resolve, retireAfterMs));
      await dropGeneration(api, filled.current, languages);
      return { documents: documents.length };
    },
  };

  /** Deletes a generation's indexes: those of the site's languages and of `languages`. */
  async function dropGeneration(api: OpenSearchApi, generation: number, languages: string[]): Promise<void> {
    for (const langid of new Set([...options.languages(), ...languages])) {
      const index = openSearchIndexName(langid, generation);
      await api.indices.delete({ index, ignore_unavailable: true });
      ready.delete(index);
    }
  }
}
