/**
 * The category endpoints the mobile apps read: the tree (GET /categories), the flat list
 * (GET /categories/all) and the category page (GET /categories/{name}, and GET
 * /wikis/CATEGORY/{title}). Categories are the CATEGORY wiki pages; a guide names its category
 * by title. Shapes: docs/wire-fidelity.md §3.7.
 */
import type { Caller } from '../../shared/domain/caller.ts';
import { MAX_HIERARCHY_DEPTH } from '../../shared/domain/wiki-namespaces.ts';
import { requirePage } from '../../shared/content/wiki-pages.ts';
import { listWikiNodes, type WikiNode } from '../../shared/db/entities/wiki.ts';
import { categoryPage, visibleGuidesByCategory } from '../../shared/read-models/wiki-pages.ts';
import type { CategoryTreeQuery } from './wikis.schemas.ts';

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

/**
 * `{title: children | leaf}`. The two forms differ as the real service's do (decision 282): the
 * plain GET /categories answers a leaf as `{}` (two Dozuki sites captured by clients; a crawler
 * written against them descends into every object), while the `withDisplayTitles` form's
 * `hierarchy` answers it as null (the iOS app tells a device from a category by that NSNull).
 */
type TitleTree = { [title: string]: TitleTree | null };

function titleTree(forest: TreeNode[], leaf: () => TitleTree | null): TitleTree {
  return Object.fromEntries(
    forest.map((tree) => [tree.node.title, tree.children.length > 0 ? titleTree(tree.children, leaf) : leaf()]),
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
 * GET /categories: the tree as an object of titles (leaves `{}`); with withDisplayTitles,
 * `{hierarchy, display_titles}` as the iOS start screen reads it. requireGuides keeps only
 * branches with a guide the caller may read; every category is a full page here, so there are
 * no stubs to leave out and includeStubs changes nothing.
 */
export async function categoryTree(caller: Caller | null, query: CategoryTreeQuery) {
  let forest = await categoryForest();
  if (query.requireGuides) forest = withGuides(forest, await visibleGuidesByCategory(caller));
  if (!query.withDisplayTitles) return titleTree(forest, () => ({}));
  return { hierarchy: titleTree(forest, () => null), display_titles: displayTitles(forest) };
}

/** GET /categories/all: every category title, alphabetical. */
export async function allCategoryTitles(page: { limit: number; offset: number }): Promise<string[]> {
  const nodes = await listWikiNodes('CATEGORY');
  return nodes
    .map((node) => node.title)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .slice(page.offset, page.offset + page.limit);
}

/** GET /categories/{name}: the category page (shared/read-models/wiki-pages.ts). */
export async function categoryPageByTitle(caller: Caller | null, title: string) {
  return categoryPage(caller, await requirePage('CATEGORY', title));
}
