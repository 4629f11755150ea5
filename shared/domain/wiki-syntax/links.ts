/** The documents a text links to: guides by id, wikis by `NAMESPACE:Title`. */
import type { DocNode } from './types.ts';

export interface WikiLinkTarget {
  kind: 'guide' | 'wiki';
  target: string | number;
}

const MAX_DEPTH = 64;

/** Each linked document once, in order of first appearance. */
export function wikiLinks(doc: DocNode): WikiLinkTarget[] {
  const found = new Map<string, WikiLinkTarget>();
  const visit = (node: DocNode, depth: number) => {
    if (typeof node !== 'object' || node === null || depth > MAX_DEPTH) return;
    for (const mark of Array.isArray(node.marks) ? node.marks : []) {
      if (mark?.type !== 'link') continue;
      const { kind, target } = mark.attrs ?? {};
      if (kind === 'guide' && typeof target === 'number' && Number.isSafeInteger(target) && target > 0) {
        if (!found.has(`guide:${target}`)) found.set(`guide:${target}`, { kind, target });
      } else if (kind === 'wiki' && typeof target === 'string' && target !== '') {
        if (!found.has(`wiki:${target}`)) found.set(`wiki:${target}`, { kind, target });
      }
    }
    for (const child of Array.isArray(node.content) ? node.content : []) visit(child, depth + 1);
  };
  visit(doc, 0);
  return [...found.values()];
}
