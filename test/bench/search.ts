/**
 * The segmented search index (decision 289) at 1,000 and 10,000 guides of two languages
 * (100,000 with `--search-100k` or STEPWISE_BENCH_SEARCH_100K=1): the build (every shard made and
 * serialized), one write's indexer time (the delta at its merge size read, one guide changed, the
 * delta written), one merge (a shard read, the delta's entries folded, the shard written), a
 * cold load of one language (every shard and the delta parsed: what a new search container pays
 * after fetching them), query p50/p99 across the language's segments (every match ranked; and a
 * page as GET /search makes it: the access rule, the best 20 ordered), and the memory the loaded
 * language holds. Times are the process's CPU time (the machine is shared: wall time under load
 * is the CPU time stretched by the other processes); the build's is wall time. The same objects
 * as the store writes, without S3 (its PUT/GET come on top).
 * Synthetic guides: 8 steps of 3 lines, words drawn Zipf-like from a 6,000-word vocabulary.
 * In process, no stack: `npx tsx test/bench/search.ts [--search-100k]` alone.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { gunzipSync, gzipSync } from 'node:zlib';
import { miniSearchEngine } from '../../shared/search/minisearch-engine.ts';
import { LAYOUT_FORMAT, MERGE_AT, shardBitsFor } from '../../shared/search/index-store.ts';
import { Delta, inShard } from '../../shared/search/segments.ts';
import { readablePage } from '../../shared/search/backends.ts';
import type { SearchAccess, SearchDocument, SearchIndexPort, SearchKind } from '../../shared/search/search-port.ts';
import { runsAlone } from './alone.ts';

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
    langid: guideid % 2 === 0 ? 'en' : 'de',
    type: 'how-to',
    title: words(5),
    summary: words(15),
    body: [words(40), ...steps].join('\n'),
    access: { public: guideid % 5 !== 0, userid: 1 + (guideid % 50), grant_userids: [], grant_teamids: [guideid % 7] },
  };
}

/** Wall time and this thread's CPU time of `work`: on a loaded shared machine the CPU time is what compares. */
function timed<T>(work: () => T): { value: T; wall: number; cpu: number } {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const value = work();
  const wall = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { value, wall, cpu: (used.user + used.system) / 1000 };
}

// The heap a loaded language holds is measured between two full collections: without them it
// counts what the build left to collect (node runs without --expose-gc; this turns it on).
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))]!;
const ms = (value: number) => `${value.toFixed(value < 10 ? 1 : 0)} ms`;
const KINDS = new Set<SearchKind>(['guide', 'category', 'wiki']);
const encode = (delta: Delta) => gzipSync(JSON.stringify(delta.toJSON(LAYOUT_FORMAT)));
const decode = (bytes: Buffer) =>
  Delta.parse(miniSearchEngine, LAYOUT_FORMAT, JSON.parse(gunzipSync(bytes).toString()));
const megabytes = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

export interface SearchBenchRow {
  guides: number;
  shards: number;
  buildS: number;
  storedBytes: number;
  writeMs: number;
  mergeMs: number;
  coldLoadMs: number;
  p50: number;
  p99: number;
  /** A page as GET /search makes it: every match, the access rule, the best 20 in order (decision 343). */
  pageP50: number;
  pageP99: number;
  heapBytes: number;
}

async function measure(size: number): Promise<SearchBenchRow> {
  // The build: each language's shards, serialized (what a rebuild stores).
  const started = performance.now();
  const shards = new Map<string, Buffer[]>();
  for (const langid of ['en', 'de']) {
    const count = size / 2;
    const bits = shardBitsFor(count);
    const bySlot = Array.from({ length: 2 ** bits }, () => [] as SearchDocument[]);
    for (let id = langid === 'en' ? 2 : 1; id <= size; id += 2) {
      const document = guide(id);
      bySlot[bySlot.findIndex((_, slot) => inShard(document.key, { slot, bits }))]!.push(document);
    }
    const stored: Buffer[] = [];
    for (const documents of bySlot) {
      const index = miniSearchEngine.empty();
      for (const document of documents) index.upsert(document);
      stored.push(index.serialize());
    }
    shards.set(langid, stored);
  }
  const buildS = (performance.now() - started) / 1000;
  const storedBytes = [...shards.values()].flat().reduce((sum, bytes) => sum + bytes.length, 0);

  // A delta at its merge size (recent changes of both languages, tombstoned in both).
  const delta = Delta.empty(miniSearchEngine);
  for (let n = 0; n < MERGE_AT / 2; n++) delta.upsert(guide(size - n), n + 1, ['en', 'de']);
  const deltaBytes = encode(delta);

  // One write: read the delta, change one guide, write the delta.
  const writes: number[] = [];
  for (let n = 0; n < 9; n++) {
    const changed = guide(size - n - 100);
    const write = timed(() => {
      const current = decode(deltaBytes);
      current.upsert(changed, 100, ['en', 'de']);
      return encode(current);
    });
    writes.push(write.cpu);
  }

  // One merge: the fullest English shard read, its entries folded, written again.
  const english = shards.get('en')!;
  const bits = Math.log2(english.length);
  const merge = timed(() => {
    const shard = miniSearchEngine.load(english[0]!);
    decode(deltaBytes).foldInto(shard, 'en', { slot: 0, bits });
    return shard.serialize();
  });

  // A cold load of English: every shard and the delta parsed (fetched in parallel on AWS).
  collect();
  const heapBefore = process.memoryUsage().heapUsed;
  const cold = timed(() => ({
    loaded: english.map((bytes): SearchIndexPort => miniSearchEngine.load(bytes)),
    loadedDelta: decode(deltaBytes),
  }));
  const { loaded, loadedDelta } = cold.value;
  const { segment, hidden } = loadedDelta.segmentOf('en');
  const segments = [...loaded.map((index) => ({ index, hidden })), ...(segment ? [segment] : [])];
  collect();
  const heapBytes = process.memoryUsage().heapUsed - heapBefore;

  const times: number[] = [];
  const pages: number[] = [];
  // A member of no team, not an Admin: public guides, their own, none granted.
  const readable = (access: SearchAccess) => access.public || access.userid === 7;
  for (let i = 0; i < 300; i++) {
    const query = { text: `${word()} ${word()}`, langid: 'en', kinds: KINDS };
    times.push(timed(() => miniSearchEngine.querySegments(segments, query)).cpu);
    pages.push(timed(() => readablePage(miniSearchEngine.matchSegments(segments, query), readable, 0, 20)).cpu);
  }
  return {
    guides: size,
    shards: english.length,
    buildS,
    storedBytes,
    writeMs: percentile(writes, 0.5),
    mergeMs: merge.cpu,
    coldLoadMs: cold.cpu,
    p50: percentile(times, 0.5),
    p99: percentile(times, 0.99),
    pageP50: percentile(pages, 0.5),
    pageP99: percentile(pages, 0.99),
    heapBytes,
  };
}

export async function searchBench(options: { hundredThousand?: boolean } = {}): Promise<SearchBenchRow[]> {
  const big =
    options.hundredThousand || process.env.STEPWISE_BENCH_SEARCH_100K || process.argv.includes('--search-100k');
  const sizes = [1000, 10_000, ...(big ? [100_000] : [])];
  console.log('\n== Search index: segments per language (MiniSearch, decisions 207, 289), two languages ==');
  console.log(
    'guides   shards/lang  build    stored    write (delta)  merge (shard)  cold load (1 lang)' +
      '  p50 / p99 (CPU)    a page p50 / p99   heap (1 lang)',
  );
  const rows: SearchBenchRow[] = [];
  for (const size of sizes) {
    const row = await measure(size);
    rows.push(row);
    console.log(
      `${String(size).padStart(7)}  ${String(row.shards).padStart(6)}      ${row.buildS.toFixed(1).padStart(5)} s` +
        `  ${megabytes(row.storedBytes).padStart(8)}  ${ms(row.writeMs).padStart(10)}` +
        `     ${ms(row.mergeMs).padStart(9)}` +
        `      ${ms(row.coldLoadMs).padStart(9)}           ${ms(row.p50)} / ${ms(row.p99).padEnd(9)}` +
        `  ${ms(row.pageP50)} / ${ms(row.pageP99).padEnd(9)}  ${megabytes(row.heapBytes)}`,
    );
  }
  return rows;
}

if (runsAlone(import.meta)) await searchBench();
