/**
 * Wiki namespaces Stepwise serves. CATEGORY pages form the category tree guides hang from;
 * WIKI pages are free-standing articles (they may nest too); INFO and ITEM pages are plain
 * pages; COURSE pages are courses (their own endpoints build on them; POST /wikis does not
 * create them). USER and TEAM pages of the real service are profiles here, not wikis.
 */
import { wikiPath as linkPath } from './wiki-syntax/index.ts';

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

/**
 * Titles name the page in URLs and in `[[NS:Title]]` links, so they follow the link rules of
 * the wiki syntax: underscores read as spaces, runs of whitespace collapse, and none of
 * `< > [ ] { } |`, `/ ? # \\` or control characters.
 */
const BAD_TITLE = /[<>[\]{}|/?#\\\u0000-\u001f\u007f]/;
export const MAX_TITLE_LENGTH = 200;
/** Wiki markup of one page; the page and each revision snapshot must fit a DynamoDB item. */
export const MAX_CONTENTS_LENGTH = 100_000;

/** The canonical form of a title as typed or as found in a URL path. */
export function canonicalTitle(raw: string): string {
  return raw.replace(/_/g, ' ').replace(/\s+/g, ' ').trim();
}

/** Why a canonical title is not acceptable, or undefined when it is. */
export function titleProblem(title: string): string | undefined {
  if (title === '') return 'title must not be empty';
  if (title.length > MAX_TITLE_LENGTH) return `title must be at most ${MAX_TITLE_LENGTH} characters`;
  if (BAD_TITLE.test(title)) return 'title must not contain < > [ ] { } | / ? # \\ or control characters';
  return undefined;
}

/** Site path of a page: the same path `[[NS:Title]]` links render to (`/c/iPhone_6`, `/Wiki/Battery_Care`). */
export function wikiPath(page: { namespace: WikiNamespace; title: string }): string {
  return linkPath(page.namespace, page.title);
}

/** A page's absolute URL on the site (`siteUrl` with or without its trailing slash). */
export function wikiUrl(siteUrl: string, page: { namespace: WikiNamespace; title: string }): string {
  return siteUrl.replace(/\/+$/, '') + wikiPath(page);
}
