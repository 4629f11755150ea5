/**
 * Search in the browser (issue 42 item 2, decision 298): the results page at the real service's
 * path `/Search?query=…`, and the suggestions the header's search box asks for as a reader
 * types. Both read through the same use case and access rule as GET /search/{query}
 * (shared/read-models/search.ts): a reader finds only what they may read, and it is counted so.
 */
import * as z from 'zod/mini';
import { config } from '../../shared/config.ts';
import { reply, route, type RouteDef } from '../../shared/http/route.ts';
import { search, searchSuggestions } from '../../shared/read-models/search.ts';
import { PAGE_FILTERS, searchContent, type PageFilter } from './content/search-page.ts';
import { asPage, htmlReply, pageHeaders } from './html/page-reply.ts';

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

/** How many suggestions the box shows. */
const SUGGESTIONS = 8;

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
    handler: ({ caller, query }) => {
      const languages = config().STEPWISE_LANGUAGES;
      const input = {
        query: query.query.trim(),
        filter: query.filter,
        langid: query.langid ?? languages[0] ?? 'en',
        offset: Math.min(Number(query.offset), 10_000),
        limit: Math.min(Math.max(Number(query.limit), 1), 100),
        languages,
      };
      const path = `/Search?${new URLSearchParams({ query: input.query })}`;
      return asPage(caller, path, async () => {
        const results = input.query
          ? await search(caller, input.query, {
              filter: input.filter ? [input.filter] : undefined,
              langid: input.langid,
              offset: input.offset,
              limit: input.limit,
            })
          : undefined;
        return htmlReply(200, {
          title: input.query ? `Search: ${input.query}` : 'Search',
          caller,
          path,
          query: input.query,
          content: searchContent(input, results),
        });
      });
    },
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
    handler: async ({ caller, query }) => {
      const text = query.query.trim();
      const suggestions =
        text.length < 3
          ? []
          : await searchSuggestions(caller, text, {
              langid: query.langid ?? config().STEPWISE_LANGUAGES[0] ?? 'en',
              limit: SUGGESTIONS,
            });
      return reply(200, { query: text, suggestions }, pageHeaders(caller));
    },
  }),
];
