/**
 * The parts of the segmented search index (decision 289), pure (no I/O): which shard a document
 * key falls in, and the delta of recent changes with its tombstones.
 * - A language's documents are split into shards by a hash of the key (extendible hashing: a
 *   shard of `bits` holds the keys whose hash's low `bits` bits are its `slot`).
 * - The delta holds every document changed since the shards were last merged, per language, and a
 *   tombstone for each changed or deleted key naming the languages whose shards may still hold an
 *   older copy: a query of a language hides those keys in its shards.
 */
import type { SearchDocument, SearchEngine, SearchIndexPort, SearchSegment } from './search-port.ts';

/** FNV-1a of the key: stable across processes and versions (the stored layout depends on it). */
export function keyHash(key: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    hash ^= key.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

export interface ShardPlace {
  slot: number;
  bits: number;
}

export function inShard(key: string, shard: ShardPlace): boolean {
  return shard.bits === 0 || (keyHash(key) & ((1 << shard.bits) - 1)) === shard.slot;
}

/** The shards of `bits` bits for a language of `documents` documents, at most `perShard` each on average. */
export function shardBits(documents: number, perShard: number): number {
  return Math.max(0, Math.min(16, Math.ceil(Math.log2(Math.max(1, documents / perShard)))));
}

interface Tombstone {
  /** The head version that wrote it. */
  seq: number;
  /** Languages whose shards may still hold an older copy. */
  langs: Set<string>;
}

interface DeltaEntry {
  document: SearchDocument;
  seq: number;
}

/** The stored form (inside the gzipped delta object). */
interface StoredDelta {
  format: string;
  documents: DeltaEntry[];
  tombstones: Array<{ key: string; seq: number; langs: string[] }>;
  indexes: Record<string, unknown>;
}

export class Delta {
  private constructor(
    private readonly engine: SearchEngine,
    readonly documents: Map<string, DeltaEntry>,
    readonly tombstones: Map<string, Tombstone>,
    private readonly indexes: Map<string, SearchIndexPort>,
  ) {}

  static empty(engine: SearchEngine): Delta {
    return new Delta(engine, new Map(), new Map(), new Map());
  }

  /** Reads a stored delta; throws on another format (the caller rebuilds). */
  static parse(engine: SearchEngine, format: string, value: unknown): Delta {
    const stored = value as Partial<StoredDelta>;
    if (stored?.format !== format || !Array.isArray(stored.documents) || !Array.isArray(stored.tombstones))
      throw new Error(`The search delta is not of format ${format}`);
    const indexes = new Map(
      Object.entries(stored.indexes ?? {}).map(([langid, index]) => [langid, engine.fromJSON(index)]),
    );
    return new Delta(
      engine,
      new Map(stored.documents.map((entry) => [entry.document.key, entry])),
      new Map(stored.tombstones.map((stone) => [stone.key, { seq: stone.seq, langs: new Set(stone.langs) }])),
      indexes,
    );
  }

  toJSON(format: string): StoredDelta {
    return {
      format,
      documents: [...this.documents.values()],
      tombstones: [...this.tombstones].map(([key, stone]) => ({ key, seq: stone.seq, langs: [...stone.langs] })),
      indexes: Object.fromEntries([...this.indexes].map(([langid, index]) => [langid, index.toJSON()])),
    };
  }

  /** Documents and tombstones: what a merge would fold into the shards. */
  get size(): number {
    return this.documents.size + this.tombstones.size;
  }

  /** The document as it is now, written at `seq`; `sharded` are the languages that have shards. */
  upsert(document: SearchDocument, seq: number, sharded: Iterable<string>): void {
    this.drop(document.key);
    let index = this.indexes.get(document.langid);
    if (!index) {
      index = this.engine.empty();
      this.indexes.set(document.langid, index);
    }
    index.upsert(document);
    this.documents.set(document.key, { document, seq });
    this.bury(document.key, seq, sharded);
  }

  /** The document is gone (or no longer searched). */
  remove(key: string, seq: number, sharded: Iterable<string>): void {
    this.drop(key);
    this.bury(key, seq, sharded);
  }

  private drop(key: string): void {
    const entry = this.documents.get(key);
    if (!entry) return;
    this.documents.delete(key);
    const index = this.indexes.get(entry.document.langid);
    index?.remove(key);
    if (index && index.documentCount === 0) this.indexes.delete(entry.document.langid);
  }

  private bury(key: string, seq: number, sharded: Iterable<string>): void {
    const langs = new Set([...(this.tombstones.get(key)?.langs ?? []), ...sharded]);
    if (langs.size > 0) this.tombstones.set(key, { seq, langs });
    else this.tombstones.delete(key);
  }

  /** The delta's part of a query of one language: its documents of it; the keys it hides in that language's shards. */
  segmentOf(langid: string): { segment: SearchSegment | undefined; hidden: Set<string> } {
    const hidden = new Set<string>();
    for (const [key, stone] of this.tombstones) if (stone.langs.has(langid)) hidden.add(key);
    const index = this.indexes.get(langid);
    return { segment: index && { index, hidden: new Set() }, hidden };
  }

  /** How many entries a merge of this shard would fold, by language and slot (the fullest is merged first). */
  pending(langid: string, shard: ShardPlace): number {
    let count = 0;
    for (const { document } of this.documents.values())
      if (document.langid === langid && inShard(document.key, shard)) count++;
    for (const [key, stone] of this.tombstones) if (stone.langs.has(langid) && inShard(key, shard)) count++;
    return count;
  }

  /** Applies what this delta holds for the shard to `index` (its merge). */
  foldInto(index: SearchIndexPort, langid: string, shard: ShardPlace): void {
    for (const [key, stone] of this.tombstones) if (stone.langs.has(langid) && inShard(key, shard)) index.remove(key);
    for (const { document } of this.documents.values())
      if (document.langid === langid && inShard(document.key, shard)) index.upsert(document);
  }

  /**
   * Forgets what a merge folded into the shard from the delta as it was at version `mergedSeq`:
   * entries written later stay (they are newer than the shard's copy).
   */
  forgetMerged(langid: string, shard: ShardPlace, mergedSeq: number): void {
    for (const [key, entry] of [...this.documents])
      if (entry.seq <= mergedSeq && entry.document.langid === langid && inShard(key, shard)) this.drop(key);
    for (const [key, stone] of [...this.tombstones]) {
      if (stone.seq > mergedSeq || !stone.langs.has(langid) || !inShard(key, shard)) continue;
      stone.langs.delete(langid);
      if (stone.langs.size === 0) this.tombstones.delete(key);
    }
  }

  /** The languages the delta holds documents of. */
  languages(): string[] {
    return [...this.indexes.keys()];
  }
}
