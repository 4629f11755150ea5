/**
 * The document tree the wiki-syntax engine produces (`contents_json`) and renders from.
 * ProseMirror-shaped: `{ type: 'doc', content: [...] }`; docs/wiki-syntax.md lists every node.
 */

export interface Mark {
  type: string;
  attrs?: Record<string, unknown>;
}

export interface DocNode {
  type: string;
  attrs?: Record<string, unknown>;
  content?: DocNode[];
  text?: string;
  marks?: Mark[];
}

export interface RenderOptions {
  /** Absolute base of the site, e.g. `http://127.0.0.1:3000`; site-relative links resolve against it. */
  siteUrl: string;
  /**
   * The guid of each media image the markup names by id (`[image|42]`), looked up by the caller
   * (the engine does no I/O; `wikiImageIds` lists the ids). An image whose guid is not here is
   * left out: its URL is `/igi/<guid>.<size>` (decision 197), never a guessable id.
   */
  imageGuids?: ReadonlyMap<number, string>;
}

/** Inline marks, outermost first: the renderer nests tags in this order. */
export const MARK_ORDER = [
  'link',
  'bold',
  'italic',
  'underline',
  'strike',
  'subscript',
  'superscript',
  'code',
] as const;
export type MarkType = (typeof MARK_ORDER)[number];

export const MARK_TAGS: Record<Exclude<MarkType, 'link'>, string> = {
  bold: 'strong',
  italic: 'em',
  underline: 'u',
  strike: 's',
  subscript: 'sub',
  superscript: 'sup',
  code: 'code',
};

export type LinkKind = 'external' | 'guide' | 'wiki';

/** Wiki namespaces a `[[NS:Title]]` link may name (upper case, as the API spells them). */
export const WIKI_NAMESPACES = ['WIKI', 'CATEGORY', 'COURSE', 'INFO', 'ITEM', 'USER', 'TEAM'] as const;
export type WikiNamespace = (typeof WIKI_NAMESPACES)[number];

/** Image sizes an `[image|<id>|size=…]` may ask for; they are the size keys of the Image object. */
export const IMAGE_SIZES = ['mini', 'thumbnail', 'standard', 'medium', 'large', 'huge', 'original'] as const;
export type ImageSize = (typeof IMAGE_SIZES)[number];
export const DEFAULT_IMAGE_SIZE: ImageSize = 'standard';

export const IMAGE_ALIGNS = ['left', 'right', 'center', 'none'] as const;
export type ImageAlign = (typeof IMAGE_ALIGNS)[number];
