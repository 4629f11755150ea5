/**
 * Search in the browser (issue 42 item 2, decision 298): the results page at the real service's
 * path `/Search?query=…`, and the suggestions the header's search box asks for as a reader
 * types. Both read through the same use case and access rule as GET /search/{query}
 * (shared/read-models/search.ts): a reader finds only what they may read, and it is counted so.
 */
import * as z from 'zod/mini';
import { lazyService } from '../../shared/http/lazy-service.ts';
import { route, type RouteDef } from '../../shared/http/route.ts';
import { PAGE_FILTERS, type PageFilter } from './content/search-page.ts';
import type * as SearchPages from './search.pages.ts';

/** The handlers, with the search read model, evaluated on the first search page (decision 349). */
const pages = lazyService<typeof SearchPages>(() => import('./search.pages.ts'));

const language = z.string().check(z.regex(/^[a-z]{2}(-[a-z]{2,4})?$/i, 'must be a language code'));
const digits = (fallback: string) => z._default(z.string().check(z.regex(/^\d{1,6}$/)), fallback);

/** The page's query: the words, one filter of the API's, a language, and the page (limit 1-100). */
const searchPageQuery = z.object({
  query: z._default(z.string().check(z.maxLength(200)), ''),
  filter: z._default(z.enum(PAGE_FILTERS.map((option) => option.value) as [PageFilter, ...PageFilter[]]), ''),
  langid: z.optional(language),
  offset: digits('0'),
  limit: digits('20'),
});

const suggestionsSchema = z.object({
  query: z.string(),
  suggestions: z.array(z.object({ title: z.string(), url: z.string() })),
});

export const searchRoutes: RouteDef[] = [
  route({
    method: 'GET',
    path: '/Search',
    site: true,
    page: true,
    auth: 'public',
    summary: 'The search page: results of GET /search/{query} for the reader, with filters, paging and matches marked',
    query: searchPageQuery,
    queryExample: { query: 'nozzle', filter: 'guide', offset: '20' },
    handler: ({ caller, query }) => pages.searchPage(caller, query),
  }),
  route({
    method: 'GET',
    path: '/Search/suggest',
    site: true,
    page: true,
    auth: 'public',
    summary: "The search box's suggestions: the titles of the best matches the reader may read (3+ characters)",
    query: z.object({
      query: z.string().check(z.maxLength(200)),
      langid: z.optional(language),
    }),
    queryExample: { query: 'nozz' },
    response: suggestionsSchema,
    responseExample: {
      query: 'nozz',
      suggestions: [
        { title: 'Replace the print nozzle', url: 'https://docs.example.com/Guide/Replace+the+print+nozzle/12' },
      ],
    },
    handler: ({ caller, query }) => pages.suggestionsReply(caller, query),
  }),
];
