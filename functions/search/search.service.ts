/**
 * Full-text search (docs/search.md): the index ranks (shared/search), the guide access rule
 * filters (shared/content/guide-access.ts, the rule GET /guides uses) before anything is
 * counted, and only the page asked for is read from the table and shown. Each guide of the page
 * is checked again on its record as it is now: the index may trail a change by the indexer's lag.
 */
import { isAdmin, type Caller } from '../../shared/domain/caller.ts';
import { canViewGuideNow } from '../../shared/content/guide-access.ts';
import { getGuides } from '../../shared/db/entities/guide.ts';
import { getWiki, type WikiRecord } from '../../shared/db/entities/wiki.ts';
import { guideSummaries } from '../../shared/read-models/guide-pages.ts';
import { searchBackend } from '../../shared/search/backends.ts';
import type { SearchHit, SearchKind, SearchViewer } from '../../shared/search/search-port.ts';
import { siteUrl } from '../../shared/config.ts';
import type { GuideSummary } from '../../shared/views/guide-views.ts';
import { wikiListItem, type WikiListItem } from '../../shared/views/wiki-views.ts';
import { searchResults, type SearchResults } from '../../shared/views/search-views.ts';
import type { SearchFilter, SearchQueryInput } from './search.schemas.ts';

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
  const guides = (await getGuides(guideids)).filter((guide) => canViewGuideNow(caller, guide));
  const summaries = new Map((await guideSummaries(guides)).map((summary) => [summary.guideid, summary]));
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

export async function search(caller: Caller | null, text: string, query: SearchQueryInput): Promise<SearchResults> {
  // The site's backend ranks, filters by access and counts (decision 292); the page is read here.
  const found = await searchBackend().search({
    query: { text, langid: query.langid, ...scopeOf(query.filter) },
    viewer: viewerOf(caller),
    readable: (access) => canViewGuideNow(caller, access),
    offset: query.offset,
    limit: query.limit,
  });
  return searchResults(
    { search: text, limit: query.limit, offset: query.offset, total: found.total },
    await pageResults(caller, found.hits),
  );
}
