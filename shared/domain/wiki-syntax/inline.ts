/**
 * Inline wiki syntax → inline nodes (text with marks, hard_break, image).
 *
 * Two passes: a tokenizer turns the text into text runs, finished nodes (links, breaks,
 * images, code spans) and delimiters (`''`, `'''`, `++`, `~~`, `,,`, `^^`); then delimiters of
 * each kind pair up left to right. An unpaired delimiter and every construct that does not
 * parse stay literal text: the parser never fails and never drops a character of plain text.
 * Cost is linear in the input (bracket look-ups use precomputed tables, constructs are capped).
 */
import {
  DEFAULT_IMAGE_SIZE,
  IMAGE_ALIGNS,
  MARK_ORDER,
  type DocNode,
  type ImageSize,
  type Mark,
  type MarkType,
} from './types.ts';
import { externalUrl, guidePath, isImageSize, parseId, parseWikiTarget, wikiPath } from './urls.ts';

export interface InlineOptions {
  /** Links (`[link|…]`, `[guide|…]`, `[[…]]`, bare URLs); off inside link text. */
  links: boolean;
  /** `[image|…]`; off inside link text. */
  images: boolean;
}

const ALL: InlineOptions = { links: true, images: true };
const LINK_TEXT: InlineOptions = { links: false, images: false };

/** Longest `[…]` construct, and longest `[[…]]` target, we try to read. */
const MAX_BRACKET = 2048;
const MAX_WIKILINK = 512;

type DelimKind = 'bold' | 'italic' | 'underline' | 'strike' | 'subscript' | 'superscript';

type Token =
  | { t: 'text'; text: string; marks?: Mark[] }
  | { t: 'nodes'; nodes: DocNode[] }
  | { t: 'delim'; kind: DelimKind; raw: string; canOpen: boolean; canClose: boolean };

const PAIRED: Record<string, DelimKind> = { '+': 'underline', '~': 'strike', ',': 'subscript', '^': 'superscript' };
const SPECIAL = /[[`'+~,^hH]/g;

export function parseInlineWith(raw: string, options: InlineOptions = ALL): DocNode[] {
  return resolve(tokenize(raw, options));
}

function tokenize(s: string, options: InlineOptions): Token[] {
  const tokens: Token[] = [];
  const nextClose = nextIndexTable(s, ']');
  const nextNewline = nextIndexTable(s, '\n');
  let text = '';
  const flush = () => {
    if (text !== '') tokens.push({ t: 'text', text });
    text = '';
  };
  let i = 0;
  while (i < s.length) {
    SPECIAL.lastIndex = i;
    const found = SPECIAL.exec(s);
    const at = found ? found.index : s.length;
    text += s.slice(i, at);
    i = at;
    if (i >= s.length) break;
    const c = s[i]!;

    if (c === '[') {
      const construct = bracket(s, i, options, nextClose, nextNewline);
      if (construct) {
        flush();
        tokens.push({ t: 'nodes', nodes: construct.nodes });
        i = construct.end;
        continue;
      }
    } else if (c === '`' && s[i + 1] === '`') {
      const end = s.indexOf('``', i + 2);
      if (end > i + 2) {
        flush();
        tokens.push({ t: 'text', text: s.slice(i + 2, end), marks: [{ type: 'code' }] });
        i = end + 2;
        continue;
      }
      text += '``';
      i += 2;
      continue;
    } else if (c === "'") {
      const n = runLength(s, i, c);
      if (n >= 2) {
        flush();
        quoteRun(tokens, s, i, n);
        i += n;
        continue;
      }
    } else if (PAIRED[c] !== undefined) {
      const n = runLength(s, i, c);
      if (n === 2) {
        flush();
        const before = s[i - 1];
        const after = s[i + 2];
        tokens.push({
          t: 'delim',
          kind: PAIRED[c]!,
          raw: c + c,
          canOpen: after !== undefined && !/\s/.test(after),
          canClose: before !== undefined && !/\s/.test(before),
        });
        i += 2;
        continue;
      }
      text += s.slice(i, i + n);
      i += n;
      continue;
    } else if (options.links) {
      const url = autolink(s, i);
      if (url) {
        flush();
        tokens.push({ t: 'nodes', nodes: withLink([{ type: 'text', text: url }], externalLink(url, false)) });
        i += url.length;
        continue;
      }
    }
    text += c;
    i += 1;
  }
  flush();
  return tokens;
}

function runLength(s: string, i: number, c: string): number {
  let n = 0;
  while (s[i + n] === c) n += 1;
  return n;
}

/** `''` italic, `'''` bold, `'''''` both; 4 is `'` + bold, more than 5 leaves the extra as text. */
function quoteRun(tokens: Token[], s: string, i: number, n: number): void {
  const extra = n === 4 ? 1 : n > 5 ? n - 5 : 0;
  if (extra > 0) tokens.push({ t: 'text', text: "'".repeat(extra) });
  const canOpen = i + n < s.length;
  const canClose = i > 0;
  const rest = n - extra;
  if (rest === 3 || rest === 5) tokens.push({ t: 'delim', kind: 'bold', raw: "'''", canOpen, canClose });
  if (rest === 2 || rest === 5) tokens.push({ t: 'delim', kind: 'italic', raw: "''", canOpen, canClose });
}

/** A bare `http(s)://…` URL starting at i (not inside a word), trailing punctuation left out. */
function autolink(s: string, i: number): string | undefined {
  if (i > 0 && /[\p{L}\p{N}_]/u.test(s[i - 1]!)) return undefined;
  const head = s.slice(i, i + 8).toLowerCase();
  if (!head.startsWith('http://') && !head.startsWith('https://')) return undefined;
  let end = i;
  while (end < s.length && end - i < 2048) {
    const ch = s[end]!;
    if (/[\s<>"[\]|{}`]/.test(ch) || (ch === "'" && s[end + 1] === "'")) break;
    end += 1;
  }
  let url = s.slice(i, end);
  for (;;) {
    const last = url.at(-1);
    if (last !== undefined && ".,;:!?'".includes(last)) url = url.slice(0, -1);
    else if (last === ')' && count(url, '(') < count(url, ')')) url = url.slice(0, -1);
    else break;
  }
  return externalUrl(url);
}

function count(s: string, ch: string): number {
  let n = 0;
  for (const c of s) if (c === ch) n += 1;
  return n;
}

/** For every index, the index of the next `ch` at or after it (-1 if none). */
function nextIndexTable(s: string, ch: string): Int32Array {
  const table = new Int32Array(s.length + 1);
  let next = -1;
  table[s.length] = -1;
  for (let k = s.length - 1; k >= 0; k -= 1) {
    if (s[k] === ch) next = k;
    table[k] = next;
  }
  return table;
}

/** `[[…]]` and `[…]` constructs starting at i; undefined means "not one of ours: literal `[`". */
function bracket(
  s: string,
  i: number,
  options: InlineOptions,
  nextClose: Int32Array,
  nextNewline: Int32Array,
): { nodes: DocNode[]; end: number } | undefined {
  const close = nextClose[i + 1]!;
  if (close < 0) return undefined;
  const newline = nextNewline[i]!;
  if (newline >= 0 && newline < close) return undefined;

  if (s[i + 1] === '[') {
    if (!options.links || s[close + 1] !== ']' || close - i > MAX_WIKILINK) return undefined;
    const nodes = wikiLink(s.slice(i + 2, close));
    return nodes && { nodes, end: close + 2 };
  }
  if (close - i > MAX_BRACKET) return undefined;
  const parts = s.slice(i + 1, close).split('|');
  const keyword = parts[0]!.trim().toLowerCase();
  let end = close + 1;

  if (keyword === 'br' && parts.length === 1) {
    if (s[end] === '\n') end += 1; // `[br]` ends its source line: that newline is the break
    return { nodes: [{ type: 'hard_break' }], end };
  }
  if (keyword === 'image') {
    const image = options.images ? imageNode(parts.slice(1)) : undefined;
    return image && { nodes: [image], end };
  }
  if (!options.links) return undefined;
  if (keyword === 'link' && parts.length >= 2) {
    const url = externalUrl(parts[1]!);
    if (!url) return undefined;
    const { text, newWindow } = linkOptions(parts.slice(2));
    return { nodes: linkNodes(text, url, externalLink(url, newWindow)), end };
  }
  if (keyword === 'guide' && parts.length >= 2) {
    const guideid = parseId(parts[1]!);
    if (guideid === undefined) return undefined;
    const { text, newWindow } = linkOptions(parts.slice(2));
    const mark: Mark = {
      type: 'link',
      attrs: { href: guidePath(guideid), kind: 'guide', target: guideid, ...(newWindow ? { newWindow } : {}) },
    };
    return { nodes: linkNodes(text, `Guide ${guideid}`, mark), end };
  }
  const url = externalUrl(parts[0]!);
  if (url) {
    const { text, newWindow } = linkOptions(parts.slice(1));
    return { nodes: linkNodes(text, url, externalLink(url, newWindow)), end };
  }
  return undefined;
}

function externalLink(url: string, newWindow: boolean): Mark {
  return { type: 'link', attrs: { href: url, kind: 'external', target: url, ...(newWindow ? { newWindow } : {}) } };
}

/** The trailing `new_window=true` option and the link text (the other parts, `|` kept). */
function linkOptions(parts: string[]): { text: string; newWindow: boolean } {
  let newWindow = false;
  const text: string[] = [];
  for (const part of parts) {
    const option = /^\s*new_window\s*=\s*(true|false)\s*$/i.exec(part);
    if (option) newWindow = option[1]!.toLowerCase() === 'true';
    else text.push(part);
  }
  return { text: text.join('|').trim(), newWindow };
}

function wikiLink(inner: string): DocNode[] | undefined {
  const bar = inner.indexOf('|');
  const target = parseWikiTarget(bar >= 0 ? inner.slice(0, bar) : inner);
  if (!target) return undefined;
  const mark: Mark = {
    type: 'link',
    attrs: {
      href: wikiPath(target.namespace, target.title, target.fragment),
      kind: 'wiki',
      target: `${target.namespace}:${target.title}`,
    },
  };
  return linkNodes(bar >= 0 ? inner.slice(bar + 1).trim() : '', target.title, mark);
}

/** Link text may carry marks and breaks (parsed without links or images); empty → the fallback. */
function linkNodes(text: string, fallback: string, mark: Mark): DocNode[] {
  const nodes = text === '' ? [] : parseInlineWith(text, LINK_TEXT);
  return withLink(nodes.length > 0 ? nodes : [{ type: 'text', text: fallback }], mark);
}

function withLink(nodes: DocNode[], link: Mark): DocNode[] {
  return nodes.map((node) =>
    node.type === 'image' ? node : { ...node, marks: sortMarks([...(node.marks ?? []), link]) },
  );
}

/** `[image|<id or URL>|size=…|align=…|alt=…|caption text]`; unknown `key=value` options are ignored. */
function imageNode(parts: string[]): DocNode | undefined {
  if (parts.length === 0) return undefined;
  const source = parts[0]!.trim();
  const imageid = parseId(source);
  const url = imageid === undefined ? externalUrl(source, 'image') : undefined;
  if (imageid === undefined && url === undefined) return undefined;
  let size: ImageSize = DEFAULT_IMAGE_SIZE;
  let align = 'none';
  let alt: string | undefined;
  const caption: string[] = [];
  for (const part of parts.slice(1)) {
    const option = /^\s*([a-z_]+)\s*=(.*)$/i.exec(part);
    if (!option) {
      if (part.trim() !== '') caption.push(part.trim());
      continue;
    }
    const key = option[1]!.toLowerCase();
    const value = option[2]!.trim();
    const lower = value.toLowerCase();
    if (key === 'size' && isImageSize(lower)) size = lower;
    else if (key === 'align' && (IMAGE_ALIGNS as readonly string[]).includes(lower)) align = lower;
    else if (key === 'alt') alt = value;
    else if (key === 'caption') caption.push(value);
  }
  const captionText = caption.join('|');
  return {
    type: 'image',
    attrs: {
      // A library image's URL needs its guid, which the renderer is given (RenderOptions.imageGuids).
      src: imageid !== undefined ? null : url,
      imageid: imageid ?? null,
      size,
      align,
      alt: alt ?? captionText,
      caption: captionText === '' ? null : captionText,
    },
  };
}

const DELIM_BITS: Record<DelimKind, number> = {
  bold: 1,
  italic: 2,
  underline: 4,
  strike: 8,
  subscript: 16,
  superscript: 32,
};

/** Pairs delimiters per kind, then emits nodes with the marks each position falls under. */
function resolve(tokens: Token[]): DocNode[] {
  // toggled[k]: the kinds (bits) whose range starts or ends at token k; 0 = an unpaired delimiter.
  const toggled = new Uint8Array(tokens.length);
  const open = new Map<DelimKind, number>();
  tokens.forEach((token, index) => {
    if (token.t !== 'delim') return;
    const opener = open.get(token.kind);
    if (opener !== undefined && token.canClose) {
      open.delete(token.kind);
      toggled[opener] = toggled[opener]! | DELIM_BITS[token.kind];
      toggled[index] = toggled[index]! | DELIM_BITS[token.kind];
    } else if (token.canOpen) {
      open.set(token.kind, index);
    }
  });

  let active = 0;
  let current: Mark[] = [];
  const out: DocNode[] = [];
  let lastKey: string | undefined;
  const push = (node: DocNode) => {
    const key = node.type === 'text' ? marksKey(node.marks) : undefined;
    const previous = out.at(-1);
    if (key !== undefined && key === lastKey && previous !== undefined)
      previous.text = (previous.text ?? '') + (node.text ?? '');
    else out.push(node);
    lastKey = key;
  };

  tokens.forEach((token, index) => {
    if (token.t === 'delim') {
      if (toggled[index]) {
        active ^= toggled[index]!;
        current = MARK_ORDER.filter((type) => type !== 'link' && type !== 'code' && active & DELIM_BITS[type]).map(
          (type) => ({ type }),
        );
      } else {
        push(textNode(token.raw, current));
      }
    } else if (token.t === 'text') {
      if (token.text !== '') push(textNode(token.text, token.marks ? [...current, ...token.marks] : current));
    } else {
      for (const node of token.nodes) push(node.type === 'image' ? node : withMarks(node, current));
    }
  });
  return out;
}

function textNode(text: string, marks: Mark[]): DocNode {
  return marks.length > 0 ? { type: 'text', text, marks: marks.slice() } : { type: 'text', text };
}

function withMarks(node: DocNode, marks: Mark[]): DocNode {
  if (marks.length === 0) return node;
  return { ...node, marks: sortMarks([...(node.marks ?? []), ...marks]) };
}

/** Canonical order (MARK_ORDER), one mark per type. */
export function sortMarks(marks: Mark[]): Mark[] {
  const seen = new Set<string>();
  return marks
    .filter(
      (mark) => (MARK_ORDER as readonly string[]).includes(mark.type) && !seen.has(mark.type) && seen.add(mark.type),
    )
    .sort((a, b) => MARK_ORDER.indexOf(a.type as MarkType) - MARK_ORDER.indexOf(b.type as MarkType));
}

function marksKey(marks: Mark[] | undefined): string {
  if (!marks) return '';
  let key = '';
  for (const mark of marks) key += mark.attrs ? `${mark.type}${JSON.stringify(mark.attrs)},` : `${mark.type},`;
  return key;
}
