/**
 * Where the search index lives (decisions 208, 289): objects in the modules bucket under
 * search-index/, named by the head item in the table (shared/db/entities/search-index-head.ts).
 * Per language, shards of at most about SHARD_DOCUMENTS documents; one delta holding every
 * document changed since the last merge, with tombstones hiding the older copies in the shards.
 * `npm start` and AWS run this same code (the S3 emulator locally).
 * - A change rewrites the delta only (a bounded object: merges keep it near MERGE_AT entries),
 *   then moves the head on condition of the version read. A writer that loses the race starts
 *   again from the new head, so no update is lost however many run at once.
 * - A merge folds the delta's entries of one shard into that shard (one shard object and the
 *   delta rewritten), after the change that grew the delta is already searchable.
 * - Readers (the search function) read the head again at most every HEAD_RECHECK_MS (one
 *   GetItem) and load only the objects that changed: usually the delta. A query reads one
 *   language's shards and the delta, ranked together (the engine's global statistics).
 */
import { randomUUID } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import { config } from '../config.ts';
import { retryOnLostRace } from '../db/retry.ts';
import {
  getSearchIndexHead,
  getSearchIndexHeadVersion,
  moveSearchIndexHead,
  type SearchIndexHead,
  type StoredSearchObject,
} from '../db/entities/search-index-head.ts';
import { deleteByPrefixes, getObjectIfExists, putObject } from '../storage/objects.ts';
import { miniSearchEngine } from './minisearch-engine.ts';
import type {
  IndexEditor,
  SearchDocument,
  SearchEngine,
  SearchHit,
  SearchIndexPort,
  SearchQuery,
  SearchSegment,
} from './search-port.ts';
import { SEARCH_INDEX_PREFIX } from './keys.ts';
import { Delta, inShard, shardBits, type ShardPlace } from './segments.ts';

/**
 * How long a container answers from the index it holds before it looks at the head's version
 * again (a GetItem of one attribute; the whole head and the new delta only when it moved).
 */
export const HEAD_RECHECK_MS = 200;
/** A shard's size when the index is built: a merge rewrites one such object (~0.3 s). */
export const SHARD_DOCUMENTS = 500;
/**
 * ...but a language has at most 2^5 = 32 shards: past 16,000 documents they grow instead. Each
 * shard holds its own copy of the language's vocabulary (a term's node and postings maps), so
 * at 50,000 documents 32 shards hold ~760 MB where 128 held ~1 GB, and a query has fewer
 * segments to walk; a merge rewrites a larger shard (decision 330).
 */
export const MAX_SHARD_BITS = 5;

/** The shards a language of `documents` documents is built with (2^bits). */
export function shardBitsFor(documents: number): number {
  return Math.min(MAX_SHARD_BITS, shardBits(documents, SHARD_DOCUMENTS));
}
/** The delta's entries (documents and tombstones) past which a change is followed by merges. */
export const MERGE_AT = 48;
/**
 * How long the merges after one change may take when they run before the next batch (Lambda:
 * the stream shard's next batch waits for the invocation); what is left waits for the next
 * change... The local indexer thread merges in the background instead, without a budget.
 */
export const MERGE_BUDGET_MS = 1000;
/** ...unless the delta holds more than this (a bulk load): then merges go on until it is below. */
export const MERGE_CAP = 4 * MERGE_AT;
/** An object no head names is deleted once this old (a reader or a merge may still be using it). */
const OBJECT_GRACE_MS = 5 * 60_000;
/** One object a Lambda may load (a shard is a few hundred KB; a delta after a bulk change more). */
const MAX_OBJECT_BYTES = 256 * 1024 * 1024;

const engine: SearchEngine = miniSearchEngine;
/** The head's format: this layout of objects, written by this engine. */
export const LAYOUT_FORMAT = `segments-1+${engine.format}`;
/** What a reader loads: this layout, or the one before it until a writer rebuilds it (writers need LAYOUT_FORMAT). */
const READABLE_LAYOUT_FORMATS = [
  LAYOUT_FORMAT,
  ...(engine.previousFormat ? [`segments-1+${engine.previousFormat}`] : []),
];
/** The engine's format inside a layout format (`segments-1+<engine format>`). */
const engineFormatOf = (layoutFormat: string) => layoutFormat.slice(layoutFormat.indexOf('+') + 1);

const bucket = () => config().MODULES_BUCKET;

type ObjectKind = 'shard' | 'delta';

/** Objects are named by when they were put: the cleanup removes the unnamed ones past the grace. */
function objectKey(kind: ObjectKind): string {
  return `${SEARCH_INDEX_PREFIX}${String(Date.now()).padStart(15, '0')}-${kind}-${randomUUID()}.json.gz`;
}

function putTimeOf(key: string): number {
  return Number(key.slice(SEARCH_INDEX_PREFIX.length, SEARCH_INDEX_PREFIX.length + 15));
}

function objectsOf(head: SearchIndexHead): string[] {
  return [head.delta.key, ...Object.values(head.languages).flatMap((language) => language.shards.map((s) => s.key))];
}

async function fetchObject(key: string): Promise<Buffer | undefined> {
  return (await getObjectIfExists(bucket(), key, MAX_OBJECT_BYTES))?.bytes;
}

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

/** (De)compression runs in libuv's pool, so a request or a batch beside it is not held for it. */
async function encodeDelta(delta: Delta): Promise<Buffer> {
  return gzipAsync(JSON.stringify(delta.toJSON(LAYOUT_FORMAT)));
}

async function decodeDelta(bytes: Buffer, layoutFormat = LAYOUT_FORMAT): Promise<Delta> {
  const text = (await gunzipAsync(bytes)).toString('utf8');
  return Delta.parse(engine, layoutFormat, JSON.parse(text));
}

async function putStored(kind: ObjectKind, bytes: Buffer, documents: number): Promise<StoredSearchObject> {
  const key = objectKey(kind);
  await putObject(bucket(), key, bytes, 'application/gzip');
  return { key, documents, bytes: bytes.length };
}

function nextHead(
  previous: number | undefined,
  languages: SearchIndexHead['languages'],
  delta: SearchIndexHead['delta'],
): SearchIndexHead {
  const shards = Object.values(languages).flatMap((language) => language.shards);
  return {
    version: (previous ?? 0) + 1,
    format: LAYOUT_FORMAT,
    languages,
    delta,
    documents: shards.reduce((sum, shard) => sum + shard.documents, delta.documents),
    bytes: shards.reduce((sum, shard) => sum + shard.bytes, delta.bytes),
    updated_ms: Date.now(),
  };
}

/** Where the shard at `index` of a language's list sits: 2^bits shards in slot order (none yet: one of 0 bits). */
function placeOf(language: SearchIndexHead['languages'][string] | undefined, index: number): ShardPlace {
  const count = language?.shards.length ?? 0;
  return { slot: index, bits: count > 1 ? Math.log2(count) : 0 };
}

// ---- readers ----

let held: { head: SearchIndexHead; checkedAt: number; delta: Delta } | undefined;
let reading: Promise<SearchIndexHead | undefined> | undefined;
/** Loaded shards by object key (a shard's object never changes: a merge writes a new one). */
const shards = new Map<string, Promise<SearchIndexPort>>();

async function currentHead(): Promise<SearchIndexHead | undefined> {
  if (held && Date.now() - held.checkedAt < HEAD_RECHECK_MS) return held.head;
  // Requests side by side (the local gateway) share one read.
  reading ??= refresh().finally(() => {
    reading = undefined;
  });
  return reading;
}

async function refresh(): Promise<SearchIndexHead | undefined> {
  const checkedAt = Date.now();
  // The cheap look first: the version alone (most checks find the head where it was).
  if (held && (await getSearchIndexHeadVersion()) === held.head.version) {
    held.checkedAt = checkedAt;
    return held.head;
  }
  const read = await getSearchIndexHead(READABLE_LAYOUT_FORMATS);
  // None yet, or of a layout no reader knows (the indexer rewrites it at its next change): the held one, or nothing.
  if (!read?.head) return held?.head;
  const head = read.head;
  if (held?.head.version === head.version) {
    held.checkedAt = checkedAt;
    return head;
  }
  const deltaBytes = held?.head.delta.key === head.delta.key ? undefined : await fetchObject(head.delta.key);
  if (held?.head.delta.key !== head.delta.key && !deltaBytes) return held?.head; // a newer head replaced it: next time
  const delta = deltaBytes ? await decodeDelta(deltaBytes, head.format) : held!.delta;
  held = { head, checkedAt, delta };
  const named = new Set(objectsOf(head));
  for (const key of shards.keys()) if (!named.has(key)) shards.delete(key);
  return head;
}

function loadShard(key: string, layoutFormat: string): Promise<SearchIndexPort> {
  let loading = shards.get(key);
  if (!loading) {
    loading = fetchObject(key).then((bytes) => {
      if (!bytes) throw new Error(`The search shard ${key} is gone`);
      return engine.loadAsync(bytes, engineFormatOf(layoutFormat));
    });
    loading.catch(() => shards.delete(key));
    shards.set(key, loading);
  }
  return loading;
}

/** The segments of one language as the head names them: its shards (loaded in parallel) and the delta. */
async function segmentsOf(head: SearchIndexHead, delta: Delta, langid: string): Promise<SearchSegment[]> {
  const { segment, hidden } = delta.segmentOf(langid);
  const loaded = await Promise.all(
    (head.languages[langid]?.shards ?? []).map((shard) => loadShard(shard.key, head.format)),
  );
  return [...loaded.map((index) => ({ index, hidden })), ...(segment ? [segment] : [])];
}

/** Every match of the query in its language, best first, ranked across the language's segments. */
export async function searchIndex(query: SearchQuery): Promise<SearchHit[]> {
  return searchMatches(query, true);
}

/** As `searchIndex`, in no order unless `ordered` (a page orders only its best: `bestFirst`). */
export async function searchMatches(query: SearchQuery, ordered = false): Promise<SearchHit[]> {
  for (let attempt = 0; ; attempt++) {
    const head = await currentHead();
    if (!head || !held) return [];
    try {
      const segments = await segmentsOf(head, held.delta, query.langid);
      return ordered ? engine.querySegments(segments, query) : engine.matchSegments(segments, query);
    } catch (error) {
      // A shard went between the head read and its load (merges and the cleanup passed): read the head again.
      if (attempt >= 2) throw error;
      if (held) held.checkedAt = 0;
    }
  }
}

/** Forgets what this container holds (tests and the bench measure a cold load). */
export function forgetHeldIndex(): void {
  held = undefined;
  shards.clear();
}

// ---- writers ----

export interface IndexWrite {
  head: SearchIndexHead;
  /** How many attempts it took (more than 1: another writer came first). */
  attempts: number;
}

/**
 * Changes the stored index: `change` edits the delta (read inside the attempt, after the head,
 * so a retry after a lost race sees what the winner saw, or newer). With no head, or one of
 * another layout, `whole` gives every document and the index is built from them instead.
 * Runs again from a fresh head when another writer moved it meanwhile.
 */
export async function writeIndex(
  change: (editor: IndexEditor) => Promise<void>,
  whole: () => Promise<SearchDocument[]>,
): Promise<IndexWrite> {
  writing++;
  try {
    return await writeChange(change, whole);
  } finally {
    writing--;
    if (writing === 0) for (const resume of waitingForWrites.splice(0)) resume();
  }
}

// ---- changes go before merges ----

/** Changes being written in this process (the local indexer thread writes while it merges). */
let writing = 0;
const waitingForWrites: Array<() => void> = [];

/**
 * Where a merge may pause: after one turn of the event loop, and for as long as a change is
 * being written in this process. A merge's steps are CPU the change would otherwise share at
 * every await of its own (decision 330): the change goes first, the merge waits.
 */
async function afterWrites(): Promise<void> {
  await nextTurn();
  while (writing > 0) await new Promise<void>((resume) => waitingForWrites.push(resume));
}

async function writeChange(
  change: (editor: IndexEditor) => Promise<void>,
  whole: () => Promise<SearchDocument[]>,
): Promise<IndexWrite> {
  return retryOnLostRace(
    async (attempt) => {
      const read = await getSearchIndexHead(LAYOUT_FORMAT, true);
      if (!read?.head) return { head: await storeWhole(await whole(), read?.version), attempts: attempt + 1 };
      const head = read.head;
      const deltaBytes = await fetchObject(head.delta.key);
      if (!deltaBytes) throw new Error(`The search delta ${head.delta.key} is gone`);
      const delta = await decodeDelta(deltaBytes);
      const seq = head.version + 1;
      const sharded = Object.keys(head.languages);
      await change({
        upsert: (document) => delta.upsert(document, seq, sharded),
        remove: (key) => delta.remove(key, seq, sharded),
      });
      const next = nextHead(head.version, head.languages, await storeDelta(delta));
      await moveSearchIndexHead(next, head.version);
      return { head: next, attempts: attempt + 1 };
    },
    { attempts: 20, message: 'The search index kept changing while this change was applied' },
  );
}

async function storeDelta(delta: Delta): Promise<SearchIndexHead['delta']> {
  const stored = await putStored('delta', await encodeDelta(delta), delta.documents.size);
  return { ...stored, tombstones: delta.tombstones.size };
}

/** Builds the whole index from these documents: each language's shards, an empty delta; moves the head. */
async function storeWhole(documents: SearchDocument[], previous: number | undefined): Promise<SearchIndexHead> {
  const byLanguage = new Map<string, SearchDocument[]>();
  for (const document of documents) {
    const list = byLanguage.get(document.langid) ?? [];
    list.push(document);
    byLanguage.set(document.langid, list);
  }
  const languages: SearchIndexHead['languages'] = {};
  for (const [langid, list] of byLanguage) {
    const bits = shardBitsFor(list.length);
    const stored: StoredSearchObject[] = [];
    for (let slot = 0; slot < 2 ** bits; slot++) {
      const index = engine.empty();
      for (const document of list) if (inShard(document.key, { slot, bits })) index.upsert(document);
      stored.push(await putStored('shard', await index.serializeAsync(), index.documentCount));
    }
    languages[langid] = { shards: stored };
  }
  const head = nextHead(previous, languages, await storeDelta(Delta.empty(engine)));
  await moveSearchIndexHead(head, previous);
  await removeUnnamed(head);
  return head;
}

/** Makes the whole index again from these documents, whatever the head holds. */
export async function replaceIndex(whole: () => Promise<SearchDocument[]>): Promise<IndexWrite> {
  return retryOnLostRace(
    async (attempt) => {
      const read = await getSearchIndexHead(LAYOUT_FORMAT, true);
      return { head: await storeWhole(await whole(), read?.version), attempts: attempt + 1 };
    },
    { attempts: 20, message: 'The search index kept changing while it was rebuilt' },
  );
}

// ---- merges ----

/** The shard with the most delta entries to fold, or undefined when the delta holds none. */
function fullestShard(head: SearchIndexHead, delta: Delta): { langid: string; index: number } | undefined {
  let best: { langid: string; index: number; count: number } | undefined;
  const langids = new Set([...Object.keys(head.languages), ...delta.languages()]);
  for (const langid of langids) {
    const language = head.languages[langid];
    const count = Math.max(1, language?.shards.length ?? 0);
    for (let index = 0; index < count; index++) {
      const pending = delta.pending(langid, placeOf(language, index));
      if (pending > 0 && pending > (best?.count ?? 0)) best = { langid, index, count: pending };
    }
  }
  return best;
}

/**
 * Folds the delta's entries of one shard into it: a new shard object, then (on condition of the
 * head, retried over changes that came meanwhile) a delta without what was folded. Returns false
 * when there was nothing to merge or another merger changed that shard first.
 */
export async function mergeOnce(): Promise<boolean> {
  await afterWrites();
  const read = await getSearchIndexHead(LAYOUT_FORMAT, true);
  if (!read?.head) return false;
  const base = read.head;
  const bytes = await fetchObject(base.delta.key);
  if (!bytes) return false;
  await afterWrites();
  // Decoded once for choosing and folding (neither changes it); the retry below decodes its own.
  let decoded: Delta | undefined = await decodeDelta(bytes);
  const target = fullestShard(base, decoded);
  if (!target) return false;
  const language = base.languages[target.langid];
  const place = placeOf(language, target.index);
  const old = language?.shards[target.index];
  const shardBytes = old && (await fetchObject(old.key));
  if (old && !shardBytes) return false;
  // The steps of a merge are taken one at a time, each after the changes being written: a batch
  // arriving meanwhile (the local indexer thread, decision 293) waits for one step, not the merge.
  await afterWrites();
  const shard = shardBytes ? await engine.loadAsync(shardBytes) : engine.empty();
  await afterWrites();
  decoded.foldInto(shard, target.langid, place);
  await afterWrites();
  const merged = await putStored('shard', await shard.serializeAsync(), shard.documentCount);
  const started = putTimeOf(merged.key);
  return retryOnLostRace(
    async () => {
      const now = await getSearchIndexHead(LAYOUT_FORMAT, true);
      const nowLanguage = now?.head?.languages[target.langid];
      // Another merge (or a rebuild) replaced the shard, or this took so long the cleanup may take the object.
      if (
        !now?.head ||
        nowLanguage?.shards[target.index]?.key !== old?.key ||
        Date.now() - started > OBJECT_GRACE_MS / 2
      )
        return false;
      const current = now.head.delta.key === base.delta.key ? bytes : await fetchObject(now.head.delta.key);
      if (!current) return false;
      // The first attempt on the delta read above reuses its decoding (forgetMerged changes it: once only).
      const delta = current === bytes && decoded ? decoded : await decodeDelta(current);
      decoded = undefined;
      delta.forgetMerged(target.langid, place, base.version);
      const shardsNow = [...(nowLanguage?.shards ?? [])];
      shardsNow[target.index] = merged;
      const languages = { ...now.head.languages, [target.langid]: { shards: shardsNow } };
      const next = nextHead(now.head.version, languages, await storeDelta(delta));
      await moveSearchIndexHead(next, now.head.version);
      return true;
    },
    { attempts: 10, message: 'The search index kept changing while a shard was merged' },
  );
}

/** Every this many versions a change also removes the objects no head names any more. */
const CLEANUP_EVERY = 16;

/**
 * Merges while the delta is past MERGE_AT entries, for at most `budgetMs` (longer while it is
 * past MERGE_CAP, so a bulk load never leaves every later change a large delta to rewrite);
 * then removes the objects no head names any more. Called after a change is stored (it is
 * searchable already); merges may run beside later changes (each moves the head on condition).
 */
export async function mergeIfDue(head: SearchIndexHead, budgetMs = MERGE_BUDGET_MS): Promise<number> {
  const due = head.delta.documents + head.delta.tombstones > MERGE_AT;
  if (!due && head.version % CLEANUP_EVERY !== 0) return 0;
  const started = Date.now();
  let merges = 0;
  let entries = head.delta.documents + head.delta.tombstones;
  while (due && (Date.now() - started < budgetMs || entries > MERGE_CAP)) {
    if (!(await mergeOnce())) break;
    merges++;
    const read = await getSearchIndexHead(LAYOUT_FORMAT, true);
    entries = read?.head ? read.head.delta.documents + read.head.delta.tombstones : 0;
    if (entries <= MERGE_AT / 2) break;
  }
  const read = await getSearchIndexHead(LAYOUT_FORMAT, true);
  if (read?.head) await removeUnnamed(read.head);
  return merges;
}

/** Deletes the objects the head does not name that were put longer ago than the grace. */
async function removeUnnamed(head: SearchIndexHead): Promise<void> {
  const named = new Set(objectsOf(head));
  const before = Date.now() - OBJECT_GRACE_MS;
  await deleteByPrefixes(bucket(), [SEARCH_INDEX_PREFIX], (key) => !named.has(key) && !(putTimeOf(key) >= before));
}
