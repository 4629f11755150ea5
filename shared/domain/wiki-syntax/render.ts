/**
 * Tree → HTML. Only the tree is read (never raw markup); every text and attribute value is
 * escaped, every URL is checked, and the result still goes through the allow-list sanitizer.
 * The tree may come from a client (`contents_json`), so nothing in it is trusted: unknown node
 * and mark types are skipped (their text kept), attributes are validated, depth is capped.
 */
import { escapeHtml } from './escape.ts';
import { sanitizeHtml } from './sanitize.ts';
import { IMAGE_ALIGNS, MARK_ORDER, MARK_TAGS, type DocNode, type Mark, type RenderOptions } from './types.ts';
import { imagePath, isImageSize, safeAttributeUrl, siteBase } from './urls.ts';

const MAX_DEPTH = 64;
const INLINE_TYPES = new Set(['text', 'hard_break', 'image']);

interface Context {
  site: string;
  imageGuids?: ReadonlyMap<number, string>;
}

export function renderHtml(doc: DocNode, options: RenderOptions): string {
  const ctx: Context = { site: siteBase(options.siteUrl), imageGuids: options.imageGuids };
  return sanitizeHtml(isNode(doc) ? (doc.type === 'doc' ? blocks(doc.content, ctx, 0) : blocks([doc], ctx, 0)) : '');
}

export function renderInlineHtml(nodes: DocNode[], options: RenderOptions): string {
  const ctx: Context = { site: siteBase(options.siteUrl), imageGuids: options.imageGuids };
  return sanitizeHtml(inline(Array.isArray(nodes) ? nodes : [], ctx, 0));
}

function isNode(value: unknown): value is DocNode {
  return typeof value === 'object' && value !== null && typeof (value as DocNode).type === 'string';
}

function children(node: DocNode): DocNode[] {
  return Array.isArray(node.content) ? node.content.filter(isNode) : [];
}

/** Block nodes in order; runs of stray inline nodes at block level are wrapped in a paragraph. */
function blocks(nodes: unknown, ctx: Context, depth: number): string {
  if (!Array.isArray(nodes) || depth > MAX_DEPTH) return '';
  const out: string[] = [];
  let run: DocNode[] = [];
  const flush = () => {
    if (run.length > 0) out.push(`<p>${inline(run, ctx, depth)}</p>`);
    run = [];
  };
  for (const node of nodes.filter(isNode)) {
    if (node.type === 'text' || node.type === 'hard_break') {
      run.push(node);
      continue;
    }
    flush();
    out.push(block(node, ctx, depth));
  }
  flush();
  return out.filter((html) => html !== '').join('\n');
}

function block(node: DocNode, ctx: Context, depth: number): string {
  switch (node.type) {
    case 'paragraph':
      return `<p>${inline(children(node), ctx, depth + 1)}</p>`;
    case 'heading': {
      const level = Math.min(6, Math.max(2, Math.trunc(Number(node.attrs?.level)) || 2));
      return `<h${level}>${inline(children(node), ctx, depth + 1)}</h${level}>`;
    }
    case 'bullet_list':
    case 'ordered_list': {
      const tag = node.type === 'bullet_list' ? 'ul' : 'ol';
      return `<${tag}>${children(node)
        .map((child) => listItem(child, ctx, depth + 1))
        .join('')}</${tag}>`;
    }
    case 'list_item':
      return blocks(node.content, ctx, depth + 1);
    case 'horizontal_rule':
      return '<hr>';
    case 'image':
      return image(node, ctx, 'block');
    case 'code_block':
      return `<pre><code>${escapeHtml(plainText(node, depth))}</code></pre>`;
    case 'blockquote': {
      const format =
        typeof node.attrs?.format === 'string' && /^[a-z_-]{1,32}$/.test(node.attrs.format)
          ? node.attrs.format
          : undefined;
      const attribution = typeof node.attrs?.attribution === 'string' ? node.attrs.attribution.trim() : '';
      const open = format ? `<blockquote class="quote-${format}">` : '<blockquote>';
      const footer = attribution ? `<footer>${escapeHtml(attribution)}</footer>` : '';
      return `${open}${blocks(node.content, ctx, depth + 1)}${footer}</blockquote>`;
    }
    default:
      // An unknown block keeps its content (a doc nested by mistake, a future node type).
      return blocks(node.content, ctx, depth + 1);
  }
}

/** A list item's first paragraph renders bare (`<li>text<ul>…</ul></li>`), as lists usually are. */
function listItem(node: DocNode, ctx: Context, depth: number): string {
  if (node.type !== 'list_item') return `<li>${blocks([node], ctx, depth)}</li>`;
  const items = children(node);
  const first = items[0];
  if (first?.type === 'paragraph') {
    const rest = blocks(items.slice(1), ctx, depth + 1);
    return `<li>${inline(children(first), ctx, depth + 1)}${rest}</li>`;
  }
  return `<li>${blocks(items, ctx, depth + 1)}</li>`;
}

function image(node: DocNode, ctx: Context, context: 'block' | 'inline'): string {
  const attrs = node.attrs ?? {};
  const size = typeof attrs.size === 'string' && isImageSize(attrs.size) ? attrs.size : 'standard';
  const align =
    typeof attrs.align === 'string' && (IMAGE_ALIGNS as readonly string[]).includes(attrs.align) ? attrs.align : 'none';
  const imageid =
    typeof attrs.imageid === 'number' && Number.isSafeInteger(attrs.imageid) && attrs.imageid > 0
      ? attrs.imageid
      : undefined;
  const guid = imageid !== undefined ? ctx.imageGuids?.get(imageid) : undefined;
  const src =
    imageid !== undefined
      ? guid && /^[A-Za-z0-9_-]{1,64}$/.test(guid)
        ? ctx.site + imagePath(guid, size)
        : undefined
      : typeof attrs.src === 'string'
        ? safeAttributeUrl(attrs.src, 'image', ctx.site)
        : undefined;
  if (!src) return '';
  const caption = typeof attrs.caption === 'string' ? attrs.caption.trim() : '';
  const alt = typeof attrs.alt === 'string' ? attrs.alt : caption;
  const classes = `wiki-image size-${size} align-${align}`;
  const img = `<img src="${escapeHtml(src)}" alt="${escapeHtml(alt)}"`;
  if (context === 'inline') return `${img} class="${classes}">`;
  const figcaption = caption ? `<figcaption>${escapeHtml(caption)}</figcaption>` : '';
  return `<figure class="${classes}">${img}>${figcaption}</figure>`;
}

interface OpenMark {
  key: string;
  open: string;
  close: string;
}

/** Inline nodes; marks nest in MARK_ORDER and stay open across neighbours that share them. */
function inline(nodes: DocNode[], ctx: Context, depth: number): string {
  if (depth > MAX_DEPTH) return '';
  let out = '';
  let active: OpenMark[] = [];
  const closeFrom = (k: number) => {
    for (let m = active.length - 1; m >= k; m -= 1) out += active[m]!.close;
    active = active.slice(0, k);
  };
  for (const node of nodes.filter(isNode)) {
    if (!INLINE_TYPES.has(node.type)) {
      // A block inside inline content (a paragraph in a step line): its inline content, flattened.
      closeFrom(0);
      out += inline(children(node), ctx, depth + 1);
      continue;
    }
    const marks = openMarks(node.marks, ctx);
    let common = 0;
    while (common < active.length && common < marks.length && active[common]!.key === marks[common]!.key) common += 1;
    closeFrom(common);
    for (const mark of marks.slice(common)) {
      out += mark.open;
      active.push(mark);
    }
    if (node.type === 'text') out += typeof node.text === 'string' ? escapeHtml(node.text) : '';
    else if (node.type === 'hard_break') out += '<br>';
    else out += image(node, ctx, 'inline');
  }
  closeFrom(0);
  return out;
}

function openMarks(marks: unknown, ctx: Context): OpenMark[] {
  if (!Array.isArray(marks)) return [];
  const seen = new Set<string>();
  const out: Array<OpenMark & { order: number }> = [];
  for (const mark of marks as Mark[]) {
    if (!isMark(mark) || seen.has(mark.type)) continue;
    const order = (MARK_ORDER as readonly string[]).indexOf(mark.type);
    if (order < 0) continue;
    seen.add(mark.type);
    if (mark.type === 'link') {
      const open = linkTag(mark, ctx);
      if (open) out.push({ key: open, open, close: '</a>', order });
    } else {
      const tag = MARK_TAGS[mark.type as keyof typeof MARK_TAGS];
      out.push({ key: tag, open: `<${tag}>`, close: `</${tag}>`, order });
    }
  }
  return out.sort((a, b) => a.order - b.order);
}

function isMark(value: unknown): value is Mark {
  return typeof value === 'object' && value !== null && typeof (value as Mark).type === 'string';
}

/** `<a href>` for a link mark; external links (or any off-site href) get rel="nofollow noopener". */
function linkTag(mark: Mark, ctx: Context): string | undefined {
  const attrs = mark.attrs ?? {};
  const href = typeof attrs.href === 'string' ? safeAttributeUrl(attrs.href, 'link', ctx.site) : undefined;
  if (!href) return undefined;
  const internal = (attrs.kind === 'guide' || attrs.kind === 'wiki') && href.startsWith(`${ctx.site}/`);
  const rel = internal ? '' : ' rel="nofollow noopener"';
  const target = attrs.newWindow === true ? (internal ? ' rel="noopener" target="_blank"' : ' target="_blank"') : '';
  return `<a href="${escapeHtml(href)}"${rel}${target}>`;
}

/** The text of a node and its descendants (code blocks; also exported for summaries). */
export function plainText(node: DocNode, depth = 0): string {
  if (!isNode(node) || depth > MAX_DEPTH) return '';
  if (node.type === 'text') return typeof node.text === 'string' ? node.text : '';
  if (node.type === 'hard_break') return '\n';
  return children(node)
    .map((child) => plainText(child, depth + 1))
    .join('');
}

/** The media image ids a tree names (`[image|42]`): what the caller looks guids up for. */
export function wikiImageIds(doc: DocNode): number[] {
  const ids = new Set<number>();
  const visit = (node: unknown, depth: number): void => {
    if (!isNode(node) || depth > 256) return;
    const imageid = node.type === 'image' ? node.attrs?.imageid : undefined;
    if (typeof imageid === 'number' && Number.isSafeInteger(imageid) && imageid > 0) ids.add(imageid);
    for (const child of node.content ?? []) visit(child, depth + 1);
  };
  visit(doc, 0);
  return [...ids];
}
