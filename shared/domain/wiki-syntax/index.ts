/**
 * The wiki-syntax engine: iFixit/Dozuki wiki markup → a ProseMirror-shaped tree
 * (`contents_json`) → sanitized HTML (`*_rendered`). Pure: no I/O. docs/wiki-syntax.md
 * describes the syntax, the tree and the security rules.
 */
import { parseWiki } from './block.ts';
import { parseInlineWith } from './inline.ts';
import { renderHtml } from './render.ts';
import type { DocNode, RenderOptions } from './types.ts';

export type { DocNode, Mark, RenderOptions, LinkKind, WikiNamespace, ImageSize, ImageAlign } from './types.ts';
export { WIKI_NAMESPACES, IMAGE_SIZES } from './types.ts';
export type { WikiLinkTarget } from './links.ts';
export { wikiLinks } from './links.ts';
export { parseWiki } from './block.ts';
export { renderHtml, renderInlineHtml, plainText, wikiImageIds } from './render.ts';
export { sanitizeHtml } from './sanitize.ts';
export { guidePath, wikiPath, imagePath, parseWikiTarget } from './urls.ts';

/** Inline nodes of one line of text (a step line): no headings, lists or paragraphs. */
export function parseInline(raw: string): DocNode[] {
  return parseInlineWith(
    String(raw ?? '')
      .replace(/\r\n?/g, '\n')
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, ''),
  );
}

/** Parse and render in one go: `{ json: contents_json, html: *_rendered }`. */
export function renderWiki(raw: string, options: RenderOptions): { json: DocNode; html: string } {
  const json = parseWiki(raw);
  return { json, html: renderHtml(json, options) };
}
