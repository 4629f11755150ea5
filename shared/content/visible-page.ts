/**
 * Offset pages over a collection whose items are selected in code (the caller may not read
 * every guide a list links to). Reads the collection in chunks, selects, and stops as soon as
 * the page is full: O(offset + limit) items when most are selected, never the whole table.
 * `offset` counts selected items, so pages neither overlap nor skip.
 */
import { queryChunks, type PageQuery } from '../db/paging.ts';

export async function selectedPage<R>(
  query: PageQuery,
  page: { limit: number; offset: number },
  select: (items: Array<Record<string, unknown>>) => Promise<R[]>,
): Promise<R[]> {
  const selected: R[] = [];
  let skipped = 0;
  // Whole lists (up to 10,000) read 1,000 keys a Query: fewer round trips, each under 1 MB.
  const chunk = Math.min(1000, Math.max(25, page.offset + page.limit));
  for await (const items of queryChunks(query, chunk)) {
    for (const result of await select(items)) {
      if (skipped < page.offset) skipped++;
      else selected.push(result);
      if (selected.length === page.limit) return selected;
    }
  }
  return selected;
}
