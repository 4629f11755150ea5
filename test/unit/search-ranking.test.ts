/** The order of a page of search hits (decision 343): the best few of many, without sorting all. */
import { describe, expect, it } from 'vitest';
import { bestFirst, byRank } from '../../shared/search/ranking.ts';
import type { SearchHit } from '../../shared/search/search-port.ts';

let seed = 5;
const next = () => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
};
// Scores from few values, so ties (ordered by key) are common.
const hits: SearchHit[] = Array.from({ length: 500 }, (_, n) => ({
  key: `guide:${Math.floor(next() * 1e6)}-${n}`,
  kind: 'guide',
  recordid: n,
  langid: 'en',
  type: 'how-to',
  access: null,
  score: Math.floor(next() * 40) / 4,
}));

describe('bestFirst', () => {
  it('gives the first `count` of the whole sort, for any count, whatever order the hits come in', () => {
    const sorted = [...hits].sort(byRank);
    for (const count of [0, 1, 2, 19, 20, 21, 124, 125, 126, 499, 500, 800])
      expect(bestFirst(hits, count), String(count)).toEqual(sorted.slice(0, count));
    expect(bestFirst([...hits].reverse(), 20)).toEqual(sorted.slice(0, 20));
    expect(bestFirst(sorted, 20)).toEqual(sorted.slice(0, 20));
  });
});
