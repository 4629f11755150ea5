/**
 * The search index at 1,000 and 10,000 guides with steps (100,000 with STEPWISE_BENCH_SEARCH_100K=1):
 * the stored object's size (gzipped, what S3 holds), a cold load (gunzip + parse, what a new
 * search container pays after fetching it), query p50/p99, and the indexer's part of the lag
 * from a write to a searchable result (load, change one guide, serialize; the stream poll and
 * the S3 PUT come on top). Synthetic guides: 8 steps of 3 lines, words drawn Zipf-like from a
 * 6,000-word vocabulary. In process, no stack: `npx tsx test/bench/search.ts` alone.
 */
import { miniSearchEngine } from '../../shared/search/minisearch-engine.ts';
import type { SearchDocument, SearchKind } from '../../shared/search/search-port.ts';

const VOCABULARY = Array.from({ length: 6000 }, (_, i) => `w${i.toString(36)}${['ing', 'er', 'al', 'ion', ''][i % 5]}`);
let seed = 7;
function random(): number {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
}
const word = () => VOCABULARY[Math.floor(VOCABULARY.length * random() ** 2.5)]!;
export const words = (count: number) => Array.from({ length: count }, word).join(' ');

function guide(guideid: number): SearchDocument {
  const steps = Array.from({ length: 8 }, () => `${words(4)}\n${words(12)}\n${words(12)}\n${words(12)}`);
  return {
    key: `guide:${guideid}`,
    kind: 'guide',
    recordid: guideid,
    langid: 'en',
    type: 'how-to',
    title: words(5),
    summary: words(15),
    body: [words(40), ...steps].join('\n'),
    access: { public: guideid % 5 !== 0, userid: 1 + (guideid % 50), grant_userids: [], grant_teamids: [guideid % 7] },
  };
}

const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))]!;
const ms = (value: number) => `${value.toFixed(value < 10 ? 2 : 0)} ms`;
const KINDS = new Set<SearchKind>(['guide', 'category', 'wiki']);

export async function searchBench(): Promise<void> {
  const sizes = [1000, 10_000, ...(process.env.STEPWISE_BENCH_SEARCH_100K ? [100_000] : [])];
  console.log('\n== Search index (MiniSearch adapter, decision 207) ==');
  console.log('guides    object (gzip)   cold load   query p50   query p99   indexer write');
  for (const size of sizes) {
    const index = miniSearchEngine.empty();
    for (let id = 1; id <= size; id++) index.upsert(guide(id));
    const bytes = index.serialize();
    let started = performance.now();
    const loaded = miniSearchEngine.load(bytes);
    const coldLoad = performance.now() - started;
    const times: number[] = [];
    for (let i = 0; i < 300; i++) {
      const text = `${word()} ${word()}`;
      started = performance.now();
      loaded.query({ text, langid: 'en', kinds: KINDS });
      times.push(performance.now() - started);
    }
    started = performance.now();
    const writer = miniSearchEngine.load(bytes);
    writer.upsert(guide(size + 1));
    const written = writer.serialize();
    const write = performance.now() - started;
    console.log(
      `${String(size).padStart(6)}    ${(bytes.length / 1e6).toFixed(1).padStart(6)} MB` +
        `     ${ms(coldLoad).padStart(8)}` +
        `    ${ms(percentile(times, 0.5)).padStart(8)}    ${ms(percentile(times, 0.99)).padStart(8)}` +
        `    ${ms(write).padStart(10)} (${(written.length / 1e6).toFixed(1)} MB written)`,
    );
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await searchBench();
