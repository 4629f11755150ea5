/**
 * The search pages' handlers (search.routes.ts declares their routes; decision 298), evaluated
 * with the search read model and its engines when a search page is first asked for
 * (`lazyService`, decision 349).
 */
import type { Caller } from '../../shared/domain/caller.ts';
import { config } from '../../shared/config.ts';
import { reply } from '../../shared/http/route.ts';
import { search, searchSuggestions } from '../../shared/read-models/search.ts';
import { searchContent, type PageFilter } from './content/search-page.ts';
import { asPage, htmlReply, pageHeaders } from './html/page-reply.ts';

/** How many suggestions the box shows. */
const SUGGESTIONS = 8;

/** The search page: results of GET /search/{query} for the reader, with filters, paging and matches marked. */
export function searchPage(
  caller: Caller | null,
  query: { query: string; filter: PageFilter; langid?: string; offset: string; limit: string },
) {
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
}

/** The search box's suggestions: the titles of the best matches the reader may read (3+ characters). */
export async function suggestionsReply(caller: Caller | null, query: { query: string; langid?: string }) {
  const text = query.query.trim();
  const suggestions =
    text.length < 3
      ? []
      : await searchSuggestions(caller, text, {
          langid: query.langid ?? config().STEPWISE_LANGUAGES[0] ?? 'en',
          limit: SUGGESTIONS,
        });
  return reply(200, { query: text, suggestions }, pageHeaders(caller));
}
