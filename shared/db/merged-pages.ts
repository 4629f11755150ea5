/**
 * One offset page over several Query collections merged by a common order (e.g. the sessions
 * of a team owner's members, each member's own partition, newest first). Each collection is
 * read lazily, a chunk at a time, so a page costs one Query per collection plus
 * O((offset + limit) / chunk) more, never the collections' full size.
 */
import { queryChunks, type PageQuery } from './paging.ts';
import type { Item } from './items.ts';

interface Cursor<T> {
  chunks: AsyncGenerator<T[]>;
  buffer: T[];
  done: boolean;
}

async function head<T>(cursor: Cursor<T>): Promise<T | undefined> {
  while (cursor.buffer.length === 0 && !cursor.done) {
    const next = await cursor.chunks.next();
    if (next.done) cursor.done = true;
    else cursor.buffer = [...next.value];
  }
  return cursor.buffer[0];
}

/**
 * Items of all `sources` in descending `orderOf` order (each source must be sorted by it),
 * keeping those `keep` accepts, skipping `offset` of them and returning at most `limit`.
 */
export async function mergedPageDescending(
  sources: PageQuery[],
  orderOf: (item: Item) => string,
  page: { limit: number; offset: number },
  keep: (item: Item) => boolean = () => true,
): Promise<Item[]> {
  const wanted = page.offset + page.limit;
  const chunk = Math.min(100, Math.max(10, wanted));
  const cursors: Array<Cursor<Item>> = sources.map((source) => ({
    chunks: queryChunks({ ...source, descending: true }, chunk),
    buffer: [],
    done: false,
  }));
  const kept: Item[] = [];
  while (kept.length < wanted) {
    const heads = await Promise.all(cursors.map(head));
    let best = -1;
    heads.forEach((item, index) => {
      if (item !== undefined && (best < 0 || orderOf(item) > orderOf(heads[best]!))) best = index;
    });
    if (best < 0) break;
    const item = cursors[best].buffer.shift()!;
    if (keep(item)) kept.push(item);
  }
  return kept.slice(page.offset, wanted);
}
