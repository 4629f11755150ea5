/**
 * The wire shapes of a wiki page (docs/wire-fidelity.md §2.11): the full page of
 * GET/POST/PATCH, and the list item of GET /wikis/{namespace}. Rendering goes through the wiki
 * syntax engine only; `contents_rendered` is its sanitized HTML, `contents_json` its tree.
 */
import * as z from 'zod/mini';
import type { WikiRecord } from '../db/entities/wiki.ts';
import type { UserRecord } from '../db/entities/user.ts';
import { renderWiki } from '../domain/wiki-syntax/index.ts';
import type { DocNode } from '../domain/wiki-syntax/types.ts';
import { authorSummary } from './user-views.ts';
import { HIERARCHICAL_NAMESPACES, WIKI_NAMESPACES, wikiUrl } from '../domain/wiki-namespaces.ts';
import { userSummarySchema } from './common-schemas.ts';
import { guideSummarySchema } from './guide-views.ts';

const namespaceSchema = z.enum(WIKI_NAMESPACES);
/** A page's image as stored with it (the Image object when one is set). */
const wikiImageSchema = z.nullable(z.record(z.string(), z.unknown()));

/** A page named by another (parent, ancestors, identification children): enough to link to it. */
export const wikiRefSchema = z.object({
  wikiid: z.int(),
  namespace: namespaceSchema,
  title: z.string(),
  display_title: z.string(),
  url: z.string(),
});

/** The full page of GET/POST/PATCH /wikis… (§2.11); hierarchical namespaces add ancestors and children. */
export const wikiSchema = z.object({
  wikiid: z.int(),
  langid: z.string(),
  namespace: namespaceSchema,
  title: z.string(),
  display_title: z.string(),
  /** null on GET /wikis/CATEGORY/{title}, as the real service answers it. */
  revisionid: z.nullable(z.int()),
  source_revisionid: z.null(),
  contents_raw: z.string(),
  contents_rendered: z.string(),
  /** The syntax tree of the contents (its root is the `doc` node). */
  contents_json: z.object({ type: z.string() }),
  description: z.string(),
  can_edit: z.boolean(),
  flags: z.array(z.string()),
  image: wikiImageSchema,
  documents: z.array(z.unknown()),
  table_of_contents: z.boolean(),
  url: z.string(),
  fullUrl: z.string(),
  author: z.nullable(userSummarySchema),
  created_date: z.int(),
  modified_date: z.int(),
  parent: z.nullable(wikiRefSchema),
  ancestors: z.optional(z.array(z.string())),
  children: z.optional(z.array(z.string())),
});

/** An item of GET /wikis/{namespace} and GET /wikis/CATEGORY/{title}/children. */
export const wikiListItemSchema = z.object({
  dataType: z.literal('wiki'),
  wikiid: z.int(),
  namespace: namespaceSchema,
  title: z.string(),
  display_title: z.string(),
  summary: z.string(),
  url: z.string(),
  text: z.string(),
  image: wikiImageSchema,
  modified_date: z.int(),
});

/**
 * A node of the hierarchy with display titles (withDisplayTitles). Its children are nodes to any
 * depth; the schema checks the top level only, because the OpenAPI document inlines every
 * schema and cannot carry a recursive one.
 */
const wikiTreeNodeSchema = z.object({ title: z.string(), display_title: z.string(), children: z.array(z.unknown()) });
/** A node of display=hierarchyOrder (the Android app's tree): a leaf has no `children` key. */
const wikiOrderedNodeSchema = z.object({
  title: z.string(),
  display_title: z.string(),
  children: z.optional(z.array(z.unknown())),
});

/**
 * GET /wikis/{namespace}: list items, titles (display=titles), or the hierarchy (display=hierarchy):
 * an object keyed by title whose leaves are [], or with withDisplayTitles an array of nodes;
 * display=hierarchyOrder: an array of nodes whose leaves have no `children`.
 */
export const wikiListSchema = z.union([
  z.array(wikiListItemSchema),
  z.array(z.string()),
  z.array(wikiTreeNodeSchema),
  z.array(wikiOrderedNodeSchema),
  z.record(z.string(), z.unknown()),
]);

/**
 * The category page (GET /categories/{name}, GET /wikis/CATEGORY/{title}): the page plus the
 * guides filed under it that the caller may read, the featured ones among them, related wiki
 * pages and the answers link (empty: no answers forum), as the mobile apps parse it.
 */
export const categoryPageSchema = z.extend(wikiSchema, {
  guides: z.array(guideSummarySchema),
  featured_guides: z.array(guideSummarySchema),
  related_wikis: z.array(wikiListItemSchema),
  solutions_url: z.string(),
});

/** GET /wikis/{namespace}/{title}: a page; a CATEGORY page is the category page. */
export const wikiPageReadSchema = z.union([categoryPageSchema, wikiSchema]);

/**
 * GET /categories: an object of titles whose leaves are null, or with withDisplayTitles
 * `{hierarchy, display_titles}` (the iOS start screen). Recursive, so checked at the top level.
 */
export const categoryTreeSchema = z.union([
  z.object({ hierarchy: z.record(z.string(), z.unknown()), display_titles: z.record(z.string(), z.string()) }),
  z.record(z.string(), z.unknown()),
]);

/** GET /wikis/CATEGORY/{title}/identification. */
export const wikiIdentificationSchema = z.object({
  wikiid: z.int(),
  title: z.string(),
  display_title: z.string(),
  url: z.string(),
  identification_raw: z.string(),
  identification_rendered: z.string(),
  image: wikiImageSchema,
  children: z.array(z.extend(wikiRefSchema, { image: wikiImageSchema, description: z.string() })),
});

/** A revision of GET /wikis/{namespace}/{title}/revisions. */
export const wikiRevisionSchema = z.object({
  wikiid: z.int(),
  revisionid: z.int(),
  title: z.string(),
  display_title: z.string(),
  date: z.int(),
  userid: z.int(),
  username: z.nullable(z.string()),
  reverted_from: z.nullable(z.int()),
  current: z.boolean(),
});

export type WikiView = z.output<typeof wikiSchema>;
export type WikiListItem = z.output<typeof wikiListItemSchema>;
export type WikiIdentification = z.output<typeof wikiIdentificationSchema>;
export type WikiRevisionView = z.output<typeof wikiRevisionSchema>;

/** A page named by another (parent, ancestors): enough to link to it. */
export function wikiRef(
  wiki: Pick<WikiRecord, 'wikiid' | 'namespace' | 'title' | 'display_title'>,
  siteUrl: string,
): z.output<typeof wikiRefSchema> {
  return {
    wikiid: wiki.wikiid,
    namespace: wiki.namespace,
    title: wiki.title,
    display_title: wiki.display_title,
    url: wikiUrl(siteUrl, wiki),
  };
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
  /** Guids of the library images the page names (shared/read-models/wiki-images.ts). */
  imageGuids?: ReadonlyMap<number, string>;
}

export function wikiView(wiki: WikiRecord, context: WikiViewContext): WikiView {
  const { json, html } = renderWiki(wiki.contents_raw, { siteUrl: context.siteUrl, imageGuids: context.imageGuids });
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
    // A gone account shows no author here (the wire's null); a token shows as itself (decision 244).
    author:
      context.author || wiki.service_author
        ? authorSummary(context.author, wiki.author_userid, context.siteUrl, wiki.service_author)
        : null,
    created_date: wiki.created_date,
    modified_date: wiki.modified_date,
    parent: context.parent ? wikiRef(context.parent, context.siteUrl) : null,
    ...(hierarchical ? { ancestors: context.ancestors.map((page) => page.title), children: context.children } : {}),
  };
}

/** GET /wikis/{namespace} item (ZAP sample shape). */
export function wikiListItem(wiki: WikiRecord, siteUrl: string): WikiListItem {
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
