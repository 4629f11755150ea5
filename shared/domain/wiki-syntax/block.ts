/**
 * Block wiki syntax → `{ type: 'doc', content: [...] }`.
 *
 * Line-oriented: headings, rules, list lines, `[quote]`/`[code]` fences; everything else
 * gathers into paragraphs split by blank lines. Fences pair up in one pre-scan, so an unclosed
 * `[quote]` or `[code]` is plain text and parsing stays linear in the number of lines.
 */
import { parseInlineWith } from './inline.ts';
import type { DocNode } from './types.ts';

const MAX_LIST_DEPTH = 6;
const MAX_QUOTE_DEPTH = 8;

const QUOTE_OPEN = /^\s*\[quote(?:\|([^\]\n]*))?\]\s*$/i;
const QUOTE_CLOSE = /^\s*\[\/quote\]\s*$/i;
const CODE_OPEN = /^\s*\[code(?:\|[^\]\n]*)?\]\s*$/i;
const CODE_CLOSE = /^\s*\[\/code\]\s*$/i;
const LIST_ITEM = /^([*#]+)[ \t]+(.*)$/;
const RULE = /^\s*-{4,}\s*$/;

/** Line endings to `\n`; C0 controls other than tab and newline removed. */
export function normalizeSource(raw: string): string {
  return String(raw ?? '')
    .replace(/\r\n?/g, '\n')
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, '');
}

export function parseWiki(raw: string): DocNode {
  const lines = normalizeSource(raw).split('\n');
  const fences = prescan(lines);
  return { type: 'doc', content: parseBlocks(lines, 0, lines.length, fences, 0) };
}

interface Fences {
  /** Line index of the next `[/code]` at or after each line (-1 if none). */
  nextCodeClose: Int32Array;
  /** `[quote]` line → its matching `[/quote]` line. */
  quoteClose: Map<number, number>;
}

function prescan(lines: string[]): Fences {
  const nextCodeClose = new Int32Array(lines.length + 1);
  nextCodeClose[lines.length] = -1;
  for (let k = lines.length - 1; k >= 0; k -= 1)
    nextCodeClose[k] = CODE_CLOSE.test(lines[k]!) ? k : nextCodeClose[k + 1]!;
  const quoteClose = new Map<number, number>();
  const stack: number[] = [];
  for (let k = 0; k < lines.length; k += 1) {
    const line = lines[k]!;
    if (CODE_OPEN.test(line) && nextCodeClose[k + 1]! >= 0) k = nextCodeClose[k + 1]!;
    else if (QUOTE_OPEN.test(line)) stack.push(k);
    else if (QUOTE_CLOSE.test(line) && stack.length > 0) quoteClose.set(stack.pop()!, k);
  }
  return { nextCodeClose, quoteClose };
}

function parseBlocks(lines: string[], start: number, end: number, fences: Fences, depth: number): DocNode[] {
  const out: DocNode[] = [];
  const codeEnd = (k: number) => {
    if (!CODE_OPEN.test(lines[k]!)) return -1;
    const close = fences.nextCodeClose[k + 1]!;
    return close >= 0 && close < end ? close : -1;
  };
  const quoteEnd = (k: number) => {
    if (depth >= MAX_QUOTE_DEPTH || !QUOTE_OPEN.test(lines[k]!)) return -1;
    const close = fences.quoteClose.get(k);
    return close !== undefined && close < end ? close : -1;
  };
  const startsBlock = (k: number) =>
    heading(lines[k]!) !== undefined ||
    RULE.test(lines[k]!) ||
    LIST_ITEM.test(lines[k]!) ||
    codeEnd(k) >= 0 ||
    quoteEnd(k) >= 0;

  let i = start;
  while (i < end) {
    const line = lines[i]!;
    if (line.trim() === '') {
      i += 1;
      continue;
    }
    const codeClose = codeEnd(i);
    if (codeClose >= 0) {
      const code = lines.slice(i + 1, codeClose).join('\n');
      out.push(code === '' ? { type: 'code_block' } : { type: 'code_block', content: [{ type: 'text', text: code }] });
      i = codeClose + 1;
      continue;
    }
    const quoteClose = quoteEnd(i);
    if (quoteClose >= 0) {
      const inner = parseBlocks(lines, i + 1, quoteClose, fences, depth + 1);
      out.push({
        type: 'blockquote',
        attrs: quoteAttrs(QUOTE_OPEN.exec(line)![1]),
        content: inner.length > 0 ? inner : [{ type: 'paragraph' }],
      });
      i = quoteClose + 1;
      continue;
    }
    const title = heading(line);
    if (title) {
      out.push(
        ...inlineBlocks('paragraph', parseInlineWith(title.text), { type: 'heading', attrs: { level: title.level } }),
      );
      i += 1;
      continue;
    }
    if (RULE.test(line)) {
      out.push({ type: 'horizontal_rule' });
      i += 1;
      continue;
    }
    if (LIST_ITEM.test(line)) {
      const items: ListLine[] = [];
      while (i < end && LIST_ITEM.test(lines[i]!)) {
        const [, markers, first] = LIST_ITEM.exec(lines[i]!)!;
        let text = first!;
        i += 1;
        // `[br]` at the end of a line continues the item on the next line (iFixit's editor writes that).
        while (/\[br\]\s*$/i.test(text) && i < end && lines[i]!.trim() !== '' && !startsBlock(i)) {
          text += `\n${lines[i]}`;
          i += 1;
        }
        items.push({ depth: markers!.length, ordered: markers!.endsWith('#'), text });
      }
      out.push(...buildLists(items));
      continue;
    }
    const paragraph = [line];
    i += 1;
    while (i < end && lines[i]!.trim() !== '' && !startsBlock(i)) {
      paragraph.push(lines[i]!);
      i += 1;
    }
    out.push(...inlineBlocks('paragraph', parseInlineWith(paragraph.join('\n'))));
  }
  return out;
}

/** `== Title ==` (levels 2–6, same number of `=` on both sides). */
function heading(line: string): { level: number; text: string } | undefined {
  const trimmed = line.trim();
  const open = /^=+/.exec(trimmed)?.[0].length ?? 0;
  if (open < 2 || open > 6) return undefined;
  const close = /=+$/.exec(trimmed)?.[0].length ?? 0;
  if (close !== open || trimmed.length <= open * 2) return undefined;
  const text = trimmed.slice(open, trimmed.length - close).trim();
  return text === '' ? undefined : { level: open, text };
}

/** `[quote|Attribution|format=featured]` → `{ attribution, format }`. */
function quoteAttrs(param: string | undefined): Record<string, unknown> {
  let format: string | null = null;
  const attribution: string[] = [];
  for (const part of (param ?? '').split('|')) {
    const option = /^\s*format\s*=\s*([a-z_-]{1,32})\s*$/i.exec(part);
    if (option) format = option[1]!.toLowerCase();
    else if (part.trim() !== '') attribution.push(part.trim());
  }
  return { attribution: attribution.length > 0 ? attribution.join('|') : null, format };
}

/**
 * Wraps inline nodes in a block (a paragraph unless `block` says otherwise); an image splits the
 * block and stands between the halves, since a figure cannot sit inside a paragraph. Halves with
 * nothing but whitespace and breaks are dropped.
 */
function inlineBlocks(type: string, nodes: DocNode[], block?: DocNode): DocNode[] {
  const out: DocNode[] = [];
  let run: DocNode[] = [];
  const flush = () => {
    if (run.some((node) => node.type === 'text' && (node.text ?? '').trim() !== '')) {
      out.push({ ...(block ?? { type }), content: run });
    }
    run = [];
  };
  for (const node of nodes) {
    if (node.type === 'image') {
      flush();
      out.push(node);
    } else {
      run.push(node);
    }
  }
  flush();
  return out;
}

interface ListLine {
  depth: number;
  ordered: boolean;
  text: string;
}

/**
 * List lines → nested lists. Depth is the number of markers and the last marker decides the
 * kind (`#*` and iFixit's `**` under `#` both give a bullet list inside a numbered item). A
 * line deeper than one level below the previous one is read as one level below.
 */
function buildLists(items: ListLine[]): DocNode[] {
  const roots: DocNode[] = [];
  const levels: Array<{ list: DocNode; item: DocNode }> = [];
  for (const line of items) {
    const depth = Math.min(line.depth, levels.length + 1, MAX_LIST_DEPTH);
    levels.length = Math.min(levels.length, depth);
    const type = line.ordered ? 'ordered_list' : 'bullet_list';
    const item: DocNode = { type: 'list_item', content: listItemContent(line.text) };
    const level = levels[depth - 1];
    if (level && level.list.type === type) {
      level.list.content!.push(item);
      level.item = item;
      continue;
    }
    const list: DocNode = line.ordered ? { type, attrs: { order: 1 }, content: [item] } : { type, content: [item] };
    if (depth === 1) roots.push(list);
    else levels[depth - 2]!.item.content!.push(list);
    levels[depth - 1] = { list, item };
  }
  return roots;
}

function listItemContent(text: string): DocNode[] {
  const blocks = inlineBlocks('paragraph', parseInlineWith(text));
  return blocks.length > 0 && blocks[0]!.type === 'paragraph' ? blocks : [{ type: 'paragraph' }, ...blocks];
}
