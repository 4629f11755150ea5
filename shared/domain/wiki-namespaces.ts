/**
 * Wiki namespaces Stepwise serves. CATEGORY pages form the category tree guides hang from;
 * WIKI pages are free-standing articles (they may nest too); INFO and ITEM pages are plain
 * pages; COURSE pages are courses (their own endpoints build on them; POST /wikis does not
 * create them). USER and TEAM pages of the real service are profiles here, not wikis.
 */
export const WIKI_NAMESPACES = ['CATEGORY', 'WIKI', 'INFO', 'ITEM', 'COURSE'] as const;
export type WikiNamespace = (typeof WIKI_NAMESPACES)[number];

/** Namespaces POST /wikis creates pages in. */
export const CREATABLE_NAMESPACES: readonly WikiNamespace[] = ['CATEGORY', 'WIKI', 'INFO', 'ITEM'];

/** Namespaces whose pages have a parent (PUT …/parent) and form a hierarchy. */
export const HIERARCHICAL_NAMESPACES: readonly WikiNamespace[] = ['CATEGORY', 'WIKI'];

/** How deep a hierarchy may go: a move checks every ancestor in one transaction (limit 100). */
export const MAX_HIERARCHY_DEPTH = 40;

export function parseNamespace(value: string): WikiNamespace | undefined {
  const upper = value.trim().toUpperCase();
  return (WIKI_NAMESPACES as readonly string[]).includes(upper) ? (upper as WikiNamespace) : undefined;
}

/** Titles name the page in URLs: one path segment, no control characters. */
export const WIKI_TITLE_PATTERN = /^[^/?#\\\u0000-\u001f\u007f]+$/;
export const MAX_TITLE_LENGTH = 200;
/** Wiki markup of one page; the page and each revision snapshot must fit a DynamoDB item. */
export const MAX_CONTENTS_LENGTH = 100_000;

/** Site-relative path of a page, the real service's style per namespace. */
export function wikiPath(page: { namespace: string; title: string; wikiid: number }): string {
  const slug = encodeURIComponent(page.title.trim().replace(/\s+/g, '_'));
  switch (page.namespace) {
    case 'CATEGORY':
      return `/c/${slug}`;
    case 'COURSE':
      return `/Courses/View/${page.wikiid}`;
    case 'INFO':
      return `/Info/${slug}`;
    case 'ITEM':
      return `/Item/${slug}`;
    default:
      return `/Wiki/${slug}`;
  }
}
