/**
 * Where the search index lives: one gzipped object in the modules bucket under search-index/,
 * named by the head item in the table (shared/db/entities/search-index-head.ts). `npm start`
 * and AWS run this same code (the S3 emulator locally).
 * - Readers (the search function) keep the loaded index per container and read the head again
 *   at most every HEAD_RECHECK_MS (one GetItem); a new object is loaded only when the head moved.
 * - The one way to write is `writeIndex`: read the head (strongly), load its object, change it,
 *   put a new object, then move the head on condition of the version read. A writer that loses
 *   the race starts again from the new head, so no update is lost however many run at once.
 */
import { randomUUID } from 'node:crypto';
import { config } from '../config.ts';
import { retryOnLostRace } from '../db/retry.ts';
import { getSearchIndexHead, moveSearchIndexHead, type SearchIndexHead } from '../db/entities/search-index-head.ts';
import { deleteByPrefixes, getObjectIfExists, putObject } from '../storage/objects.ts';
import { INDEX_FORMAT, miniSearchEngine } from './minisearch-engine.ts';
import type { SearchEngine, SearchIndexPort } from './search-port.ts';
import { SEARCH_INDEX_PREFIX } from './keys.ts';

/** How long a container answers from the index it holds before it looks at the head again. */
export const HEAD_RECHECK_MS = 1000;
/** The object a Lambda may load: a 10,000-guide index is about 6 MB gzipped (decision 207). */
const MAX_INDEX_BYTES = 512 * 1024 * 1024;

const engine: SearchEngine = miniSearchEngine;

const bucket = () => config().MODULES_BUCKET;

function objectKey(version: number): string {
  return `${SEARCH_INDEX_PREFIX}v${String(version).padStart(12, '0')}-${randomUUID()}.json.gz`;
}

function versionOfKey(key: string): number {
  return Number(key.slice(SEARCH_INDEX_PREFIX.length + 1, SEARCH_INDEX_PREFIX.length + 13));
}

/** The head's index, or undefined when its object is gone (a newer writer removed it) or of another format. */
async function loadObject(head: SearchIndexHead): Promise<SearchIndexPort | undefined> {
  if (head.format !== INDEX_FORMAT) return undefined;
  const object = await getObjectIfExists(bucket(), head.object_key, MAX_INDEX_BYTES);
  return object && engine.load(object.bytes);
}

// ---- readers ----

let held: { head: SearchIndexHead; index: SearchIndexPort; checkedAt: number } | undefined;
let reading: Promise<SearchIndexPort> | undefined;

/** The index to answer a query from: the one this container holds, or the head's (an empty one before the first). */
export async function readIndex(): Promise<SearchIndexPort> {
  if (held && Date.now() - held.checkedAt < HEAD_RECHECK_MS) return held.index;
  // Requests side by side (the local gateway) share one read.
  reading ??= refresh().finally(() => {
    reading = undefined;
  });
  return reading;
}

async function refresh(): Promise<SearchIndexPort> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const checkedAt = Date.now();
    const head = await getSearchIndexHead();
    if (!head) return engine.empty();
    if (held?.head.object_key === head.object_key) {
      held.checkedAt = checkedAt;
      return held.index;
    }
    const index = await loadObject(head);
    if (index) {
      held = { head, index, checkedAt };
      return index;
    }
    // The object went between the two reads (two writes passed): read the head again.
  }
  if (held) return held.index;
  throw new Error('The search index head names an object that cannot be loaded');
}

// ---- the writer ----

export interface IndexWrite {
  head: SearchIndexHead;
  /** How many attempts it took (more than 1: another writer came first). */
  attempts: number;
}

/**
 * Changes the stored index: `change` gets the current index (undefined when there is none yet,
 * or it is of another format: then it must build the whole index) and returns the index to store.
 * Runs again from a fresh head when another writer moved it meanwhile.
 */
export async function writeIndex(
  change: (current: SearchIndexPort | undefined) => Promise<SearchIndexPort>,
): Promise<IndexWrite> {
  return retryOnLostRace(
    async (attempt) => {
      const head = await getSearchIndexHead(true);
      const current = head ? await loadObject(head) : undefined;
      const index = await change(current);
      const bytes = index.serialize();
      const version = (head?.version ?? 0) + 1;
      const next: SearchIndexHead = {
        version,
        object_key: objectKey(version),
        format: INDEX_FORMAT,
        documents: index.documentCount,
        bytes: bytes.length,
        updated_ms: Date.now(),
      };
      await putObject(bucket(), next.object_key, bytes, 'application/gzip');
      await moveSearchIndexHead(next, head?.version);
      // Readers may still be loading the previous object: it stays, older ones (and losers' objects) go.
      await deleteByPrefixes(bucket(), [SEARCH_INDEX_PREFIX], (key) => versionOfKey(key) < version - 1);
      return { head: next, attempts: attempt + 1 };
    },
    { attempts: 20, message: 'The search index kept changing while this change was applied' },
  );
}

/** Forgets the index this container holds (tests and the bench measure a cold load). */
export function forgetHeldIndex(): void {
  held = undefined;
}
