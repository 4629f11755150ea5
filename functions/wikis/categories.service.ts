/**
 * The category endpoints the mobile apps read: the tree (GET /categories), the flat list
 * (GET /categories/all) and the category page (GET /categories/{name}, and GET
 * /wikis/CATEGORY/{title}). Categories are the CATEGORY wiki pages; a guide names its category
 * by title. Shapes: docs/wire-fidelity.md §3.7.
 */
import type { Caller } from '../../shared/domain/caller.ts';
import { MAX_HIERARCHY_DEPTH } from '../../shared/domain/wiki-namespaces.ts';
import { FEATURED_FLAG } from '../../shared/domain/guide-rules.ts';
import { canViewGuideNow } from '../../shared/content/guide-access.ts';
import { requirePage } from '../../shared/content/wiki-pages.ts';
import { categoryGuideids, getGuides, guideAccessChunks, type GuideRecord } from '../../shared/db/entities/guide.ts';
import { listWikiNodes, type WikiNode, type WikiRecord } from '../../shared/db/entities/wiki.ts';
import { guideSummaries } from '../../shared/read-models/guide-pages.ts';
import type { WikiListItem } from '../../shared/views/wiki-views.ts';
import { pageView } from './page-view.ts';
import type { CategoryTreeQuery } from './wikis.schemas.ts';

/** Guides listed on one category page (the real page pages no further either). */
const GUIDES_ON_PAGE = 200;

/**
 * The guides the caller may read, by category title. One pass over the guide index with a
 * small projection: O(guides); only the category tree's `requireGuides` needs every category.
 */
async function visibleGuidesByCategory(caller: Caller | null): Promise<Map<string, number[]>> {
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
async function visibleGuidesIn(caller: Caller | null, title: string): Promise<GuideRecord[]> {
  const shown: GuideRecord[] = [];
  for await (const guideids of categoryGuideids(title)) {
    const guides = (await getGuides(guideids)).sort((a, b) => a.guideid - b.guideid);
    for (const guide of guides) {
      // The guide item is the truth: a reference left behind by an interrupted rebuild shows nothing.
      if (guide.category === title && canViewGuideNow(caller, guide)) shown.push(guide);
      if (shown.length === GUIDES_ON_PAGE) return shown;
    }
  }
  return shown;
}

interface TreeNode {
  node: WikiNode;
  children: TreeNode[];
}

/** The CATEGORY pages as a forest, siblings alphabetical; a page whose parent is missing is a root. */
async function categoryForest(): Promise<TreeNode[]> {
  const nodes = await listWikiNodes('CATEGORY');
  const known = new Set(nodes.map((node) => node.wikiid));
  const childrenOf = new Map<number, WikiNode[]>();
  for (const node of nodes) {
    const parent = node.parent_wikiid && known.has(node.parent_wikiid) ? node.parent_wikiid : 0;
    childrenOf.set(parent, [...(childrenOf.get(parent) ?? []), node]);
  }
  const build = (parent: number, depth: number): TreeNode[] =>
    depth > MAX_HIERARCHY_DEPTH
      ? []
      : (childrenOf.get(parent) ?? []).map((node) => ({ node, children: build(node.wikiid, depth + 1) }));
  return build(0, 0);
}

/** Keeps the branches holding at least one category with a guide the caller may read. */
function withGuides(forest: TreeNode[], guides: Map<string, number[]>): TreeNode[] {
  return forest.flatMap((tree) => {
    const children = withGuides(tree.children, guides);
    return children.length > 0 || guides.has(tree.node.title) ? [{ node: tree.node, children }] : [];
  });
}

/** `{title: children | null}`: a leaf is null (the iOS app tells a device from a category by it). */
type TitleTree = { [title: string]: TitleTree | null };

function titleTree(forest: TreeNode[]): TitleTree {
  return Object.fromEntries(
    forest.map((tree) => [tree.node.title, tree.children.length > 0 ? titleTree(tree.children) : null]),
  );
}

function displayTitles(forest: TreeNode[], into: Record<string, string> = {}): Record<string, string> {
  for (const tree of forest) {
    into[tree.node.title] = tree.node.display_title;
    displayTitles(tree.children, into);
  }
  return into;
}

/**
 * GET /categories: the tree as an object of titles (leaves null); with withDisplayTitles,
 * `{hierarchy, display_titles}` as the iOS start screen reads it. requireGuides keeps only
 * branches with a guide the caller may read; every category is a full page here, so there are
 * no stubs to leave out and includeStubs changes nothing.
 */
export async function categoryTree(caller: Caller | null, query: CategoryTreeQuery) {
  let forest = await categoryForest();
  if (query.requireGuides) forest = withGuides(forest, await visibleGuidesByCategory(caller));
  const hierarchy = titleTree(forest);
  return query.withDisplayTitles ? { hierarchy, display_titles: displayTitles(forest) } : hierarchy;
}

/** GET /categories/all: every category title, alphabetical. */
export async function allCategoryTitles(page: { limit: number; offset: number }): Promise<string[]> {
  const nodes = await listWikiNodes('CATEGORY');
  return nodes
    .map((node) => node.title)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .slice(page.offset, page.offset + page.limit);
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
  const featured = guides.filter((guide) => guide.flags.includes(FEATURED_FLAG));
  const [summaries, featuredSummaries] = await Promise.all([guideSummaries(guides), guideSummaries(featured)]);
  return {
    ...page,
    guides: summaries,
    featured_guides: featuredSummaries,
    related_wikis: [] as WikiListItem[],
    solutions_url: '',
  };
}

export async function categoryPageByTitle(caller: Caller | null, title: string) {
  return categoryPage(caller, await requirePage('CATEGORY', title));
}
