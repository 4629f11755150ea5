/**
 * Full-text search (docs/search.md), for GET /search/{query} and the site's search page and
 * suggestions (functions/pages, decision 298): the index ranks (shared/search), the guide access rule
 * filters (shared/content/guide-access.ts, the rule GET /guides uses) before anything is
 * counted, and only the page asked for is read from the table and shown. Each guide of the page
 * is checked again on its record as it is now: the index may trail a change by the indexer's lag.
 */
import { isAdmin, type Caller } from '../domain/caller.ts';
import { canViewGuideNow } from '../content/guide-access.ts';
import { getWiki, type WikiRecord } from '../db/entities/wiki.ts';
import { guidesForList, listedGuideSummaries } from './guide-pages.ts';
import { searchBackend } from '../search/backends.ts';
import type { SearchHit, SearchKind, SearchViewer } from '../search/search-port.ts';
import { siteUrl } from '../config.ts';
import type { GuideSummary } from '../views/guide-views.ts';
import { wikiListItem, type WikiListItem } from '../views/wiki-views.ts';
import { searchResults, type SearchResults } from '../views/search-views.ts';

/** What `filter` may name: guides, teardowns (guides of type teardown), categories (devices), wiki pages. */
export const SEARCH_FILTERS = ['guide', 'teardown', 'device', 'category', 'wiki'] as const;
export type SearchFilter = (typeof SEARCH_FILTERS)[number];

/** A search's options: the kinds wanted, the language, the page. */
export interface SearchOptions {
  filter?: readonly SearchFilter[];
  langid: string;
  offset: number;
  limit: number;
}

const ALL_KINDS: SearchKind[] = ['guide', 'category', 'wiki'];

/** The kinds and guide types a `filter` asks for (none: everything). */
export function scopeOf(filters: readonly SearchFilter[] | undefined): {
  kinds: Set<SearchKind>;
  guideTypes?: Set<string>;
} {
  if (!filters?.length) return { kinds: new Set(ALL_KINDS) };
  const kinds = new Set<SearchKind>();
  if (filters.includes('guide') || filters.includes('teardown')) kinds.add('guide');
  if (filters.includes('device') || filters.includes('category')) kinds.add('category');
  if (filters.includes('wiki')) kinds.add('wiki');
  // teardown alone narrows guides to that type; with guide every type is wanted.
  const guideTypes = filters.includes('teardown') && !filters.includes('guide') ? new Set(['teardown']) : undefined;
  return { kinds, guideTypes };
}

/** What the access rule reads of the caller, for a backend that filters in its query (decision 292). */
export function viewerOf(caller: Caller | null): SearchViewer | null {
  return caller && { userid: caller.userid, teams: caller.teams, admin: isAdmin(caller) };
}

async function pageResults(caller: Caller | null, hits: SearchHit[]): Promise<Array<GuideSummary | WikiListItem>> {
  const guideids = hits.filter((hit) => hit.kind === 'guide').map((hit) => hit.recordid);
  const guides = (await guidesForList(guideids)).filter(({ guide }) => canViewGuideNow(caller, guide));
  const summaries = new Map((await listedGuideSummaries(guides)).map((summary) => [summary.guideid, summary]));
  const wikis = new Map<number, WikiRecord>();
  await Promise.all(
    hits
      .filter((hit) => hit.kind !== 'guide')
      .map(async (hit) => {
        const wiki = await getWiki(hit.recordid);
        if (wiki) wikis.set(hit.recordid, wiki);
      }),
  );
  const site = siteUrl();
  return hits.flatMap((hit): Array<GuideSummary | WikiListItem> => {
    const wiki = hit.kind === 'guide' ? undefined : wikis.get(hit.recordid);
    const found = hit.kind === 'guide' ? summaries.get(hit.recordid) : wiki && wikiListItem(wiki, site);
    return found ? [found] : [];
  });
}

/**
 * One page of what the caller may read that matches: the site's backend ranks, filters by access
 * and counts (decision 292).
 */
function readableHits(caller: Caller | null, text: string, query: SearchOptions) {
  return searchBackend().search({
    query: { text, langid: query.langid, ...scopeOf(query.filter) },
    viewer: viewerOf(caller),
    readable: (access) => canViewGuideNow(caller, access),
    offset: query.offset,
    limit: query.limit,
  });
}

export async function search(caller: Caller | null, text: string, query: SearchOptions): Promise<SearchResults> {
  const found = await readableHits(caller, text, query);
  return searchResults(
    { search: text, limit: query.limit, offset: query.offset, total: found.total },
    await pageResults(caller, found.hits),
  );
}

/**
 * Suggestions as a reader types (the site's search box): the titles of the best few matches the
 * caller may read, each checked on its record as it is now, as a page of results is.
 */
export async function searchSuggestions(
  caller: Caller | null,
  text: string,
  options: { langid: string; limit: number },
): Promise<Array<{ title: string; url: string }>> {
  const { hits } = await readableHits(caller, text, { langid: options.langid, offset: 0, limit: options.limit });
  return (await pageResults(caller, hits)).map((result) => ({
    title: 'display_title' in result && result.display_title ? result.display_title : result.title,
    url: result.url,
  }));
}
