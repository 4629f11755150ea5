/**
 * GET /search/{query} (docs/search.md): the envelope the Android app parses
 * (`search, limit, offset, totalResults, moreResults, results`), results being guide summaries
 * (`dataType: "guide"`) and wiki or category pages (`dataType: "wiki"`, with `display_title,
 * title, text, namespace, summary, url, image`).
 */
import * as z from 'zod/mini';
import { guideSummarySchema, type GuideSummary } from './guide-views.ts';
import { wikiListItemSchema, type WikiListItem } from './wiki-views.ts';

export const searchResultSchema = z.union([guideSummarySchema, wikiListItemSchema]);

export const searchResultsSchema = z.object({
  search: z.string(),
  limit: z.int(),
  offset: z.int(),
  totalResults: z.int(),
  moreResults: z.boolean(),
  results: z.array(searchResultSchema),
});

export type SearchResults = z.output<typeof searchResultsSchema>;

export function searchResults(
  page: { search: string; limit: number; offset: number; total: number },
  results: Array<GuideSummary | WikiListItem>,
): SearchResults {
  return {
    search: page.search,
    limit: page.limit,
    offset: page.offset,
    totalResults: page.total,
    moreResults: page.offset + page.limit < page.total,
    results,
  };
}
