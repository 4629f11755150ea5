/**
 * Which search backend a site uses (decision 292): the setting `searchEngine`
 * (STEPWISE_SEARCH_ENGINE), `embedded` by default. The search function and the stream indexer
 * both ask here, so they never disagree.
 */
import { config } from '../config.ts';
import { getSearchGeneration, moveSearchGeneration } from '../db/entities/search-generation.ts';
import { log } from '../observability/logger.ts';
import { mergeIfDue, replaceIndex, searchMatches, writeIndex } from './index-store.ts';
import { bestFirst } from './ranking.ts';
import { type IndexGenerations, openSearchBackend, type OpenSearchApi } from './opensearch-adapter.ts';
import type { SearchAccess, SearchBackend, SearchHit, SearchPage } from './search-port.ts';

/**
 * The page of hits the caller may read, best first: pages for all, guides by the access rule.
 * `hits` may come in any order: only the page's best `offset + limit` are ordered (decision 343).
 */
export function readablePage(
  hits: readonly SearchHit[],
  readable: (access: SearchAccess) => boolean,
  offset: number,
  limit: number,
): SearchPage {
  const kept = hits.filter((hit) => hit.kind !== 'guide' || (hit.access !== null && readable(hit.access)));
  return { total: kept.length, hits: bestFirst(kept, offset + limit).slice(offset) };
}

/** The segmented index in the modules bucket (decision 289): hits filtered here by the access rule. */
export const embeddedBackend: SearchBackend = {
  name: 'embedded',
  async search({ query, readable, offset, limit }) {
    return readablePage(await searchMatches(query), readable, offset, limit);
  },
  async write(read, whole) {
    const written = await writeIndex(read, whole);
    log().info('Search index written', {
      version: written.head.version,
      documents: written.head.documents,
      delta: written.head.delta.documents,
      tombstones: written.head.delta.tombstones,
      attempts: written.attempts,
    });
    // The change is searchable now; folding the delta into the shards comes after it (decisions 289, 293).
    return {
      upkeep: async (budgetMs) => {
        const merges = await mergeIfDue(written.head, budgetMs);
        if (merges > 0) log().info('Search delta merged', { merges });
      },
    };
  },
  async rebuild(whole) {
    const written = await replaceIndex(whole);
    return { documents: written.head.documents };
  },
};

let client: Promise<OpenSearchApi> | undefined;

async function openSearchClient(): Promise<OpenSearchApi> {
  const { STEPWISE_OPENSEARCH_ENDPOINT: endpoint, AWS_REGION: region } = config();
  if (!endpoint) throw new Error('STEPWISE_SEARCH_ENGINE=opensearch needs STEPWISE_OPENSEARCH_ENDPOINT');
  client ??= import('#opensearch-client').then((library) => library.createOpenSearchClient(endpoint, region));
  client.catch(() => {
    client = undefined;
  });
  return client;
}

/** The generation pointer in the table (decision 329). */
const tableGenerations: IndexGenerations = {
  async read(consistent) {
    const pointer = await getSearchGeneration(consistent);
    return pointer && { version: pointer.version, current: pointer.current, building: pointer.building };
  },
  move: (next, expectedVersion) => moveSearchGeneration({ ...next, updated_ms: Date.now() }, expectedVersion),
};

let openSearch: SearchBackend | undefined;

export function searchBackend(): SearchBackend {
  if (config().STEPWISE_SEARCH_ENGINE !== 'opensearch') return embeddedBackend;
  openSearch ??= openSearchBackend({
    api: openSearchClient,
    languages: () => config().STEPWISE_LANGUAGES,
    generations: tableGenerations,
  });
  return openSearch;
}
