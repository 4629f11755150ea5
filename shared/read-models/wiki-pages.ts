/**
 * Wiki pages as the API and the site's pages show them: the full page (author, ancestors, child
 * titles) and the category page (the page with the guides filed under it that the caller may
 * read). Shared by the wikis group and the pages group (functions/pages), so both show the same.
 */
import { siteUrl } from '../config.ts';
import { hasRole, type Caller } from '../domain/caller.ts';
import { FEATURED_FLAG } from '../domain/guide-rules.ts';
import { HIERARCHICAL_NAMESPACES, MAX_HIERARCHY_DEPTH } from '../domain/wiki-namespaces.ts';
import { canViewGuideNow } from '../content/guide-access.ts';
import { guideAccessChunks } from '../db/entities/guide.ts';
import { categoryGuideids } from '../db/entities/guide-link.ts';
import { getUser } from '../db/entities/user.ts';
import { getWiki, listChildren, type WikiRecord } from '../db/entities/wiki.ts';
import { imageGuidsOf } from '../media/wiki-image-guids.ts';
import { wikiView, type WikiListItem } from '../views/wiki-views.ts';
import { guidesForList, listedGuideSummaries, type ListedGuide } from './guide-pages.ts';

/** Children titles shown inside a page (the children endpoint pages through all of them). */
export const CHILDREN_IN_PAGE = 200;

function canEdit(caller: Caller | null): boolean {
  return caller !== null && hasRole(caller, 'Author');
}

/** Parents from the page's parent up to the root (bounded: moves refuse cycles and depth). */
export async function ancestorsOf(wiki: WikiRecord): Promise<WikiRecord[]> {
  const chain: WikiRecord[] = [];
  let next = wiki.parent_wikiid;
  while (next && chain.length <= MAX_HIERARCHY_DEPTH) {
    const parent = await getWiki(next);
    if (!parent) break;
    chain.push(parent);
    next = parent.parent_wikiid;
  }
  return chain;
}

/** The full page as the API (and the page at its url) shows it. */
export async function pageView(wiki: WikiRecord, caller: Caller | null, options: { hideRevisionid?: boolean } = {}) {
  const hierarchical = HIERARCHICAL_NAMESPACES.includes(wiki.namespace);
  const [author, ancestors, children, imageGuids] = await Promise.all([
    getUser(wiki.author_userid),
    hierarchical ? ancestorsOf(wiki) : Promise.resolve([]),
    hierarchical && wiki.child_count > 0
      ? listChildren(wiki.wikiid, { limit: CHILDREN_IN_PAGE, offset: 0 })
      : Promise.resolve([]),
    imageGuidsOf([wiki.contents_raw]),
  ]);
  return wikiView(wiki, {
    siteUrl: siteUrl(),
    author,
    canEdit: canEdit(caller),
    parent: ancestors[0] ?? null,
    ancestors: [...ancestors].reverse(),
    children: children.map((child) => child.title),
    hideRevisionid: options.hideRevisionid,
    imageGuids,
  });
}

/** Guides listed on one category page (the real page pages no further either). */
const GUIDES_ON_PAGE = 200;

/**
 * The guides the caller may read, by category title. One pass over the guide index with a
 * small projection: O(guides); only the category tree's `requireGuides` needs every category.
 */
export async function visibleGuidesByCategory(caller: Caller | null): Promise<Map<string, number[]>> {
  const byCategory = new Map<string, number[]>();
  for await (const chunk of guideAccessChunks()) {
    for (const fields of chunk) {
      if (!canViewGuideNow(caller, fields)) continue;
      byCategory.set(fields.category, [...(byCategory.get(fields.category) ?? []), fields.guideid]);
    }
  }
  return byCategory;
}

/**
 * The first GUIDES_ON_PAGE guides of a category the caller may read, by guideid: the category
 * index (shared/db/entities/guide.ts `categoryGuideids`) read a chunk at a time, each chunk's
 * guides in one BatchGet, until the page is full. O(the category's guides) at worst, never the site.
 */
async function visibleGuidesIn(caller: Caller | null, title: string): Promise<ListedGuide[]> {
  const shown: ListedGuide[] = [];
  for await (const guideids of categoryGuideids(title)) {
    const listed = (await guidesForList(guideids)).sort((a, b) => a.guide.guideid - b.guide.guideid);
    for (const entry of listed) {
      // The guide item is the truth: a reference left behind by an interrupted rebuild shows nothing.
      if (entry.guide.category === title && canViewGuideNow(caller, entry.guide)) shown.push(entry);
      if (shown.length === GUIDES_ON_PAGE) return shown;
    }
  }
  return shown;
}

/**
 * The category page: the wiki page with the guides filed under it that the caller may read,
 * the featured ones among them, its child categories as related pages, and no answers forum
 * (solutions_url empty). `langid` is accepted and changes nothing: pages are not translated per
 * language, and an app sends its device's language, which need not be a site language.
 */
export async function categoryPage(caller: Caller | null, category: WikiRecord) {
  const [page, guides] = await Promise.all([
    pageView(category, caller, { hideRevisionid: true }),
    visibleGuidesIn(caller, category.title),
  ]);
  const summaries = await listedGuideSummaries(guides);
  return {
    ...page,
    guides: summaries,
    featured_guides: summaries.filter((_, at) => guides[at].guide.flags.includes(FEATURED_FLAG)),
    related_wikis: [] as WikiListItem[],
    solutions_url: '',
  };
}
