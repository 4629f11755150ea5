/**
 * Search (docs/search.md): full text over guides (title, summary, introduction, step lines),
 * category and wiki pages, ranked, in one language, filtered to what the caller may read
 * before anything is counted. The index is kept by the search indexer from the table's stream.
 */
import { defineGroup, route } from '../../shared/http/route.ts';
import { searchResultsSchema } from '../../shared/views/search-views.ts';
import { SEARCH_INDEX_PREFIX } from '../../shared/search/keys.ts';
import { searchParams, searchQuery } from './search.schemas.ts';
import { search } from '../../shared/read-models/search.ts';

export const searchGroup = defineGroup({
  name: 'search',
  // A full vCPU: a cold container parses its language's shards (~0.9 s of CPU at 10,000 guides,
  // decision 289), which at the default 512 MB would take three times as long.
  memoryMb: 1769,
  // Reads the index objects the indexer writes (or the site's OpenSearch collection, decision 292),
  // and the guides, pages and authors of a page.
  access: {
    table: 'read',
    modulesBucket: { read: [SEARCH_INDEX_PREFIX] },
    mediaBucket: 'read',
    searchCollection: 'read',
  },
  routes: [
    route({
      method: 'GET',
      path: '/search/{query}',
      auth: 'public',
      // The apps form-encode the words (`+` for a space); punctuation is not searched anyway.
      plusAsSpace: true,
      summary: 'Full-text search over guides, categories and wiki pages, best match first',
      description:
        '`filter`: a comma list of guide, teardown, device (or category), wiki (default: all). ' +
        '`langid` (default en), `offset`/`limit` (default 20, at most 200). Only what the caller may ' +
        'read is found and counted in `totalResults`. The index follows writes within seconds.',
      params: searchParams,
      query: searchQuery,
      queryExample: { filter: 'guide,device', limit: '50' },
      response: searchResultsSchema,
      handler: ({ caller, params, query }) => search(caller, params.query, query),
    }),
  ],
});
