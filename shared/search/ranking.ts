/**
 * The order of search hits: best score first, ties by key (stable across segments and runs). A
 * page needs only its best `offset + limit` hits in order, not all of them: at 50,000 documents
 * a query of two frequent words matches most of them, and sorting every match cost about as much
 * as finding them (decision 343).
 */
import type { SearchHit } from './search-port.ts';

/** Negative when `a` ranks before `b`. */
export const byRank = (a: SearchHit, b: SearchHit): number => b.score - a.score || (a.key < b.key ? -1 : 1);

/**
 * The `count` best of `hits`, best first (the same as sorting all and taking the first `count`):
 * a bounded heap of the best so far, whose root is the worst of them, when `count` is small beside
 * the hits; a sort of all otherwise.
 */
export function bestFirst(hits: readonly SearchHit[], count: number): SearchHit[] {
  if (count <= 0) return [];
  if (count * 4 >= hits.length) return [...hits].sort(byRank).slice(0, count);
  const heap: SearchHit[] = [];
  for (const hit of hits) {
    if (heap.length < count) {
      heap.push(hit);
      siftUp(heap, heap.length - 1);
    } else if (byRank(hit, heap[0]!) < 0) {
      heap[0] = hit;
      siftDown(heap, 0);
    }
  }
  return heap.sort(byRank);
}

/** The heap's root is the hit that ranks last: a parent ranks after its children. */
function siftUp(heap: SearchHit[], at: number): void {
  while (at > 0) {
    const parent = (at - 1) >> 1;
    if (byRank(heap[parent]!, heap[at]!) > 0) return;
    [heap[parent], heap[at]] = [heap[at]!, heap[parent]!];
    at = parent;
  }
}

function siftDown(heap: SearchHit[], at: number): void {
  for (;;) {
    const left = 2 * at + 1;
    const right = left + 1;
    let last = at;
    if (left < heap.length && byRank(heap[left]!, heap[last]!) > 0) last = left;
    if (right < heap.length && byRank(heap[right]!, heap[last]!) > 0) last = right;
    if (last === at) return;
    [heap[last], heap[at]] = [heap[at]!, heap[last]!];
    at = last;
  }
}
