/**
 * A strict allow-list HTML sanitizer: the last step of every render, as defense in depth (the
 * renderer already escapes every text and checks every URL). It re-reads the HTML and rebuilds
 * it: allowed tags with allowed attributes only, values decoded and re-escaped, URLs checked
 * again; elements that carry code (script, style, iframe, object, svg, …) go with their
 * content; any other unknown tag is dropped and its text kept; comments and doctypes go.
 *
 * Why not sanitize-html: see docs/decisions/ (its minified bundle alone is ~296 KB).
 */
import { decodeEntities, escapeHtml, neutralize } from './escape.ts';
import { safeAttributeUrl } from './urls.ts';

const ALLOWED: Record<string, readonly string[]> = {
  p: [],
  h2: [],
  h3: [],
  h4: [],
  h5: [],
  h6: [],
  strong: [],
  em: [],
  u: [],
  s: [],
  sub: [],
  sup: [],
  code: [],
  pre: [],
  ul: [],
  ol: [],
  li: [],
  br: [],
  hr: [],
  blockquote: ['class'],
  footer: [],
  figure: ['class'],
  figcaption: [],
  a: ['href', 'rel', 'target'],
  img: ['src', 'alt', 'class'],
};
const VOID = new Set(['br', 'hr', 'img']);
const DROP_WITH_CONTENT = new Set([
  'script',
  'style',
  'iframe',
  'frame',
  'frameset',
  'object',
  'embed',
  'applet',
  'noscript',
  'noembed',
  'noframes',
  'template',
  'textarea',
  'title',
  'xmp',
  'plaintext',
  'svg',
  'math',
  'select',
  'head',
]);
const REL_TOKENS = new Set(['nofollow', 'noopener', 'noreferrer', 'ugc']);

interface Tag {
  name: string;
  closing: boolean;
  selfClosing: boolean;
  attrs: Array<[string, string]>;
  end: number;
}

export function sanitizeHtml(html: string): string {
  let out = '';
  const stack: string[] = [];
  let i = 0;
  while (i < html.length) {
    const lt = html.indexOf('<', i);
    const textEnd = lt < 0 ? html.length : lt;
    if (textEnd > i) out += cleanText(html.slice(i, textEnd));
    i = textEnd;
    if (i >= html.length) break;

    if (html.startsWith('<!--', i)) {
      const close = html.indexOf('-->', i + 4);
      i = close < 0 ? html.length : close + 3;
      continue;
    }
    if (html[i + 1] === '!' || html[i + 1] === '?') {
      const close = html.indexOf('>', i);
      i = close < 0 ? html.length : close + 1;
      continue;
    }
    const tag = readTag(html, i);
    if (!tag) {
      out += '&lt;';
      i += 1;
      continue;
    }
    i = tag.end;
    if (tag.closing) {
      const open = stack.lastIndexOf(tag.name);
      if (open >= 0) while (stack.length > open) out += `</${stack.pop()}>`;
      continue;
    }
    if (DROP_WITH_CONTENT.has(tag.name)) {
      if (!tag.selfClosing) i = skipElement(html, i, tag.name);
      continue;
    }
    const allowed = ALLOWED[tag.name];
    if (!allowed) continue;
    const attrs = cleanAttributes(tag, allowed);
    if (attrs === undefined) continue;
    out += `<${tag.name}${attrs}>`;
    if (!VOID.has(tag.name)) stack.push(tag.name);
  }
  while (stack.length > 0) out += `</${stack.pop()}>`;
  return out;
}

/** Text between tags: `&` that starts no entity and `>` get escaped; script giveaways neutralized. */
function cleanText(text: string): string {
  return neutralize(
    text
      .replace(/&(?!#\d{1,8};|#[xX][0-9a-fA-F]{1,7};|[A-Za-z][A-Za-z0-9]{1,31};)/g, '&amp;')
      .replace(/>/g, '&gt;')
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, ''),
  );
}

/** Reads `<name attr=value …>` or `</name>` at i; undefined if it is not a well-formed tag. */
function readTag(html: string, i: number): Tag | undefined {
  let k = i + 1;
  const closing = html[k] === '/';
  if (closing) k += 1;
  const name = /^[A-Za-z][A-Za-z0-9-]{0,31}/.exec(html.slice(k, k + 32))?.[0];
  if (!name) return undefined;
  k += name.length;
  const attrs: Array<[string, string]> = [];
  let selfClosing = false;
  for (;;) {
    while (k < html.length && /[\s/]/.test(html[k]!)) {
      selfClosing = html[k] === '/';
      k += 1;
    }
    if (k >= html.length) return undefined;
    if (html[k] === '>') return { name: name.toLowerCase(), closing, selfClosing, attrs, end: k + 1 };
    const attrName = /^[^\s"'>/=]+/.exec(html.slice(k, k + 256))?.[0];
    if (!attrName) return undefined;
    selfClosing = false;
    k += attrName.length;
    while (k < html.length && /\s/.test(html[k]!)) k += 1;
    let value = '';
    if (html[k] === '=') {
      k += 1;
      while (k < html.length && /\s/.test(html[k]!)) k += 1;
      const quote = html[k];
      if (quote === '"' || quote === "'") {
        const close = html.indexOf(quote, k + 1);
        if (close < 0) return undefined;
        value = html.slice(k + 1, close);
        k = close + 1;
      } else {
        const start = k;
        while (k < html.length && !/[\s>]/.test(html[k]!)) k += 1;
        value = html.slice(start, k);
      }
    }
    attrs.push([attrName.toLowerCase(), value]);
  }
}

/** Index just past the end tag of `name` (or the end of the input if it never closes). */
function skipElement(html: string, from: number, name: string): number {
  const end = new RegExp(`</${name}[\\s/>]`, 'gi');
  end.lastIndex = from;
  const match = end.exec(html);
  if (!match) return html.length;
  const close = html.indexOf('>', match.index);
  return close < 0 ? html.length : close + 1;
}

/** Allowed attributes, re-escaped; undefined when the element must go (an img without a safe src). */
function cleanAttributes(tag: Tag, allowed: readonly string[]): string | undefined {
  const kept = new Map<string, string>();
  for (const [name, raw] of tag.attrs) {
    if (!allowed.includes(name) || kept.has(name)) continue;
    const value = decodeEntities(raw);
    let clean: string | undefined;
    if (name === 'href') clean = safeAttributeUrl(raw, 'link');
    else if (name === 'src') clean = safeAttributeUrl(raw, 'image');
    else if (name === 'rel')
      clean =
        value
          .toLowerCase()
          .split(/\s+/)
          .filter((token) => REL_TOKENS.has(token))
          .join(' ') || undefined;
    else if (name === 'target') clean = value === '_blank' ? value : undefined;
    else if (name === 'class') clean = /^[A-Za-z0-9 _-]{1,200}$/.test(value) ? value.trim() : undefined;
    else clean = value;
    if (clean !== undefined) kept.set(name, clean);
  }
  if (tag.name === 'img' && !kept.has('src')) return undefined;
  if (kept.get('target') === '_blank') {
    const rel = new Set((kept.get('rel') ?? '').split(' ').filter(Boolean));
    rel.add('noopener');
    kept.set('rel', [...rel].join(' '));
  }
  let out = '';
  for (const [name, value] of kept) out += ` ${name}="${escapeHtml(value)}"`;
  return out;
}
