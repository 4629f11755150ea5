/**
 * The wire shapes of a wiki page (reference/wire-format.md §2.11): the full page of
 * GET/POST/PATCH, and the list item of GET /wikis/{namespace}. Rendering goes through the wiki
 * syntax engine only; `contents_rendered` is its sanitized HTML, `contents_json` its tree.
 */
import type { WikiRecord } from '../db/entities/wiki.ts';
import type { UserRecord } from '../db/entities/user.ts';
import { renderWiki } from '../domain/wiki-syntax/index.ts';
import type { DocNode } from '../domain/wiki-syntax/types.ts';
import { userSummary } from './user-views.ts';
import { HIERARCHICAL_NAMESPACES, wikiPath } from '../domain/wiki-namespaces.ts';

export function wikiUrl(siteUrl: string, wiki: Pick<WikiRecord, 'namespace' | 'title'>): string {
  return siteUrl.replace(/\/+$/, '') + wikiPath(wiki);
}

/** A page named by another (parent, ancestors): enough to link to it. */
export function wikiRef(wiki: Pick<WikiRecord, 'wikiid' | 'namespace' | 'title' | 'display_title'>, siteUrl: string) {
  return { wikiid: wiki.wikiid, namespace: wiki.namespace, title: wiki.title, display_title: wiki.display_title, url: wikiUrl(siteUrl, wiki) };
}

export interface WikiViewContext {
  siteUrl: string;
  author: UserRecord | undefined;
  canEdit: boolean;
  parent: WikiRecord | null;
  /** Root first, parent last (hierarchical namespaces). */
  ancestors: WikiRecord[];
  /** Titles of the direct children, alphabetical (hierarchical namespaces). */
  children: string[];
  /**
   * The real service answers GET /wikis/CATEGORY/{title} with `revisionid: null`; that read
   * passes true here. Writes and 409 bodies always carry the real revisionid.
   */
  hideRevisionid?: boolean;
}

export function wikiView(wiki: WikiRecord, context: WikiViewContext) {
  const { json, html } = renderWiki(wiki.contents_raw, { siteUrl: context.siteUrl });
  const url = wikiUrl(context.siteUrl, wiki);
  const hierarchical = HIERARCHICAL_NAMESPACES.includes(wiki.namespace);
  return {
    wikiid: wiki.wikiid,
    langid: wiki.langid,
    namespace: wiki.namespace,
    title: wiki.title,
    display_title: wiki.display_title,
    revisionid: context.hideRevisionid ? null : wiki.revisionid,
    source_revisionid: null,
    contents_raw: wiki.contents_raw,
    contents_rendered: html,
    contents_json: json,
    description: wiki.description,
    can_edit: context.canEdit,
    flags: wiki.flags,
    image: wiki.image,
    documents: [],
    table_of_contents: wiki.table_of_contents,
    url,
    fullUrl: url,
    author: context.author ? userSummary(context.author, context.siteUrl) : null,
    created_date: wiki.created_date,
    modified_date: wiki.modified_date,
    parent: context.parent ? wikiRef(context.parent, context.siteUrl) : null,
    ...(hierarchical ? { ancestors: context.ancestors.map((page) => page.title), children: context.children } : {}),
  };
}

/** GET /wikis/{namespace} item (ZAP sample shape). */
export function wikiListItem(wiki: WikiRecord, siteUrl: string) {
  return {
    dataType: 'wiki',
    wikiid: wiki.wikiid,
    namespace: wiki.namespace,
    title: wiki.title,
    display_title: wiki.display_title,
    summary: wiki.description,
    url: wikiUrl(siteUrl, wiki),
    text: wiki.excerpt,
    image: wiki.image,
    modified_date: wiki.modified_date,
  };
}

/** The first `max` characters of a document's text, for list items (`text`). */
export function plainExcerpt(doc: DocNode, max = 280): string {
  const parts: string[] = [];
  let length = 0;
  const visit = (node: DocNode): void => {
    if (length >= max) return;
    if (typeof node.text === 'string') {
      parts.push(node.text);
      length += node.text.length;
    }
    const blockBoundary = node.content && node.type !== 'text';
    node.content?.forEach(visit);
    if (blockBoundary && node.type !== 'doc') {
      parts.push(' ');
      length += 1;
    }
  };
  visit(doc);
  const text = parts.join('').replace(/\s+/g, ' ').trim();
  return text.length > max ? `${text.slice(0, max - 1).trimEnd()}…` : text;
}
