/**
 * The search port's adapter: MiniSearch (pure JS, BM25+ ranking), chosen over Orama by
 * measurement (decision 207). The stored form names the engine and its options' version, so a
 * later change of fields, engine or layout is recognised and the index rebuilt rather than misread.
 *
 * Shards are stored in a form of MiniSearch's index that loads with little work
 * (minisearch-shard-format.ts, decision 343); the delta keeps MiniSearch's JSON inside its object.
 *
 * A language's index is several segments (decision 289): its shards and the delta. They are
 * queried with the statistics of all of them together (document count, average field lengths,
 * each term's document frequency per field), so a document scores the same whichever segment
 * holds it: MiniSearch's scoring reads those three from the instance it runs on, and for the
 * time of one (synchronous) query each segment is given the sums over the segments instead.
 */
import { promisify } from 'node:util';
import { gunzip, gunzipSync, gzip, gzipSync } from 'node:zlib';
import { setImmediate as nextTurn } from 'node:timers/promises';
import MiniSearch, { type Options, type SearchOptions } from 'minisearch';
import type {
  SearchDocument,
  SearchEngine,
  SearchHit,
  SearchIndexPort,
  SearchQuery,
  SearchSegment,
} from './search-port.ts';
import { byRank } from './ranking.ts';
import { decodeShard, decodeShardNow, encodeShard, IndexFormatError } from './minisearch-shard-format.ts';

/**
 * Bump when fields, stored fields, term processing or the stored layout change: stored indexes of
 * another format are rebuilt. 1: MiniSearch's JSON; 2: postings as 32-bit numbers (decision 343).
 */
export const INDEX_FORMAT = 'minisearch-2';
/** The form before decision 343 (MiniSearch's JSON in `{format, index}`): still read, never written. */
const PREVIOUS_INDEX_FORMAT = 'minisearch-1';

const STORED = ['kind', 'recordid', 'langid', 'type', 'access'] as const;

const OPTIONS: Options<SearchDocument> = {
  idField: 'key',
  fields: ['title', 'summary', 'body'],
  storeFields: [...STORED],
};

/** A title match weighs most, then the summary, then the body (introduction, step lines, page text). */
const BOOST = { title: 4, summary: 2, body: 1 };

const SEARCH_OPTIONS: SearchOptions = {
  boost: BOOST,
  combineWith: 'AND',
  // "batter" finds "battery": the last word is often typed half.
  prefix: (term) => term.length >= 3,
};

export { IndexFormatError } from './minisearch-shard-format.ts';

/** The statistics BM25 reads, summed over every segment of one query. */
interface GlobalStats {
  documentCount: number;
  avgFieldLength: number[];
  documentFrequency(term: string, fieldId: number): number;
}

type FieldTermData = Map<number, Map<number, number>>;

/**
 * The parts of a MiniSearch instance its scoring reads (protected or private in its types; the
 * version is pinned and test/unit/search-engine.test.ts fails if they move).
 */
interface Internals {
  _documentCount: number;
  _avgFieldLength: number[];
  _index: { get(term: string): FieldTermData | undefined };
  _documentIds: Map<number, string>;
  _fieldIds: Record<string, number>;
  _fieldLength: Map<number, number[]>;
  _storedFields: Map<number, Pick<SearchDocument, (typeof STORED)[number]>>;
  /** The scored matches by internal id, before `search` makes result objects of them. */
  executeQuery(query: string, options: SearchOptions): Map<number, { score: number; terms: string[] }>;
  termResults: (...args: never[]) => unknown;
}

interface BM25Params {
  k: number;
  b: number;
  d: number;
}

/** A match as MiniSearch's combinators read it (`match`, per-term details, unused here: one shared empty object). */
interface RawMatch {
  score: number;
  terms: string[];
  match: Record<string, string[]>;
}

const NO_DETAILS: Record<string, string[]> = Object.freeze({}) as Record<string, string[]>;

/**
 * MiniSearch's `termResults` (7.2.0) for the queries of this adapter: one term's (exact, prefix)
 * matches in each field, scored with BM25+ exactly as MiniSearch does, added to `results`; with the
 * document frequency and document count of `stats` when given (global statistics, decision 289).
 * It leaves out what this adapter never reads and a frequent word made per posting: the match
 * details (`{term: [field]}`, two objects per document and term) and the document boost (none is
 * set). Decision 343; test/unit/search-engine.test.ts compares its scores with MiniSearch's `search`.
 */
function termResults(
  this: Internals,
  stats: GlobalStats | undefined,
  sourceTerm: string,
  derivedTerm: string,
  termWeight: number,
  termBoost: number,
  data: FieldTermData | undefined,
  fieldBoosts: Record<string, number>,
  _boostDocument: unknown,
  bm25: BM25Params,
  results: Map<number, RawMatch> = new Map(),
): Map<number, RawMatch> {
  if (data == null) return results;
  const { k, b, d } = bm25;
  const documentCount = stats ? stats.documentCount : this._documentCount;
  const averages = stats ? stats.avgFieldLength : this._avgFieldLength;
  for (const field in fieldBoosts) {
    const fieldId = this._fieldIds[field]!;
    const postings = data.get(fieldId);
    if (postings == null) continue;
    const matching = stats ? stats.documentFrequency(derivedTerm, fieldId) : postings.size;
    const inverse = Math.log(1 + (documentCount - matching + 0.5) / (matching + 0.5));
    const weight = termWeight * termBoost * fieldBoosts[field]!;
    const average = averages[fieldId]!;
    for (const [docId, frequency] of postings) {
      // A posting of a discarded document (MiniSearch leaves them until a vacuum; a stored shard has none).
      const lengths = this._fieldLength.get(docId);
      if (lengths === undefined || !this._documentIds.has(docId)) continue;
      // MiniSearch's calcBM25Score, term for term (the same floating-point result).
      const raw = inverse * (d + (frequency * (k + 1)) / (frequency + k * (1 - b + (b * lengths[fieldId]!) / average)));
      const score = weight * raw;
      const result = results.get(docId);
      if (result) {
        result.score += score;
        if (!result.terms.includes(sourceTerm)) result.terms.push(sourceTerm);
      } else results.set(docId, { score, terms: [sourceTerm], match: NO_DETAILS });
    }
  }
  return results;
}

class MiniSearchIndex implements SearchIndexPort {
  constructor(readonly engine: MiniSearch<SearchDocument>) {}

  get documentCount(): number {
    return this.engine.documentCount;
  }

  private get internals(): Internals {
    return this.engine as unknown as Internals;
  }

  upsert(document: SearchDocument): void {
    if (this.engine.has(document.key)) this.engine.replace(document);
    else this.engine.add(document);
  }

  remove(key: string): void {
    if (this.engine.has(key)) this.engine.discard(key);
  }

  has(key: string): boolean {
    return this.engine.has(key);
  }

  /** This segment's part of the statistics. */
  fieldLengthTotals(): number[] {
    const { _documentCount: count, _avgFieldLength: averages } = this.internals;
    return averages.map((average) => (average || 0) * count);
  }

  frequency(term: string, fieldId: number): number {
    return this.internals._index.get(term)?.get(fieldId)?.size ?? 0;
  }

  query(query: SearchQuery): SearchHit[] {
    return queryAll([{ index: this, hidden: new Set() }], query);
  }

  /** This segment's matches, scored with `stats`, leaving out `hidden` keys (masked by a newer segment). */
  queryWith(query: SearchQuery, stats: GlobalStats | undefined, hidden: ReadonlySet<string>): SearchHit[] {
    const matches = (stored: Pick<SearchDocument, 'langid' | 'kind' | 'type'>) =>
      stored.langid === query.langid &&
      query.kinds.has(stored.kind) &&
      (stored.kind !== 'guide' || !query.guideTypes || query.guideTypes.has(stored.type));
    const internals = this.internals;
    internals.termResults = function (
      this: Internals,
      ...args: Parameters<typeof termResults> extends [unknown, ...infer Rest] ? Rest : never
    ) {
      return termResults.call(this, stats, ...args);
    } as never;
    try {
      // MiniSearch's `search` less its result objects (match details, stored fields copied into
      // each) and its sort: the hits of every segment are sorted once, together (queryAll), or a
      // page orders only its best (readablePage). The score is its own: the BM25+ sum times the
      // number of query words matched.
      const raw = internals.executeQuery(query.text, SEARCH_OPTIONS);
      const hits: SearchHit[] = [];
      for (const [docId, { score, terms }] of raw) {
        const key = internals._documentIds.get(docId);
        const stored = internals._storedFields.get(docId);
        if (key === undefined || !stored || hidden.has(key) || !matches(stored)) continue;
        hits.push({
          key,
          kind: stored.kind,
          recordid: stored.recordid,
          langid: stored.langid,
          type: stored.type,
          access: stored.access,
          score: score * (terms.length || 1),
        });
      }
      return hits;
    } finally {
      delete (internals as Partial<Internals>).termResults;
    }
  }

  toJSON(): unknown {
    return this.engine.toJSON();
  }

  serialize(): Buffer {
    return gzipSync(encodeShard(this.engine, INDEX_FORMAT));
  }

  /** As `serialize`, compressing off the event loop and letting it turn before that. */
  async serializeAsync(): Promise<Buffer> {
    const bytes = encodeShard(this.engine, INDEX_FORMAT);
    await nextTurn();
    return gzipAsync(bytes);
  }
}

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

function asMiniSearch(index: SearchIndexPort): MiniSearchIndex {
  if (!(index instanceof MiniSearchIndex)) throw new Error('A segment of another engine cannot be queried here');
  return index;
}

/** The statistics of these segments together (a masked document still counts until it is merged away). */
function globalStats(segments: MiniSearchIndex[]): GlobalStats {
  const documentCount = segments.reduce((sum, segment) => sum + segment.documentCount, 0);
  const totals: number[] = [];
  for (const segment of segments) {
    segment.fieldLengthTotals().forEach((total, fieldId) => {
      totals[fieldId] = (totals[fieldId] ?? 0) + total;
    });
  }
  const cache = new Map<string, number>();
  return {
    documentCount,
    avgFieldLength: totals.map((total) => (documentCount ? total / documentCount : 0)),
    documentFrequency(term, fieldId) {
      const key = `${fieldId}\u0000${term}`;
      let frequency = cache.get(key);
      if (frequency === undefined) {
        frequency = segments.reduce((sum, segment) => sum + segment.frequency(term, fieldId), 0);
        cache.set(key, frequency);
      }
      return frequency;
    },
  };
}

/** Every match of the segments, in no order. */
function matchAll(segments: readonly SearchSegment[], query: SearchQuery): SearchHit[] {
  const indexes = segments.map((segment) => asMiniSearch(segment.index));
  const stats = indexes.length > 1 ? globalStats(indexes) : undefined;
  return segments.flatMap((segment, n) => indexes[n]!.queryWith(query, stats, segment.hidden));
}

const queryAll = (segments: readonly SearchSegment[], query: SearchQuery) => matchAll(segments, query).sort(byRank);

const fromJS = (js: unknown) => new MiniSearchIndex(MiniSearch.loadJS<SearchDocument>(js as never, OPTIONS));

/** A shard of the previous form, read until the index is rebuilt (`loadJS` checks MiniSearch's own shape). */
function fromPreviousForm(text: string): SearchIndexPort {
  const stored = JSON.parse(text) as { format?: unknown; index?: unknown };
  if (stored.format !== PREVIOUS_INDEX_FORMAT) throw new IndexFormatError(stored.format, PREVIOUS_INDEX_FORMAT);
  return fromJS(stored.index);
}

export const miniSearchEngine: SearchEngine = {
  name: 'minisearch',
  format: INDEX_FORMAT,
  empty: () => new MiniSearchIndex(new MiniSearch<SearchDocument>(OPTIONS)),
  load: (bytes) => new MiniSearchIndex(decodeShardNow(gunzipSync(bytes), INDEX_FORMAT, OPTIONS)),
  previousFormat: PREVIOUS_INDEX_FORMAT,
  async loadAsync(bytes, format = INDEX_FORMAT) {
    if (format === PREVIOUS_INDEX_FORMAT) return fromPreviousForm((await gunzipAsync(bytes)).toString('utf8'));
    if (format !== INDEX_FORMAT) throw new IndexFormatError(format, INDEX_FORMAT);
    // Decompressed in libuv's pool; rebuilt on the thread, one step per turn of its loop.
    const steps = decodeShard(await gunzipAsync(bytes), INDEX_FORMAT, OPTIONS);
    for (;;) {
      await nextTurn();
      const step = steps.next();
      if (step.done) return new MiniSearchIndex(step.value);
    }
  },
  fromJSON: fromJS,
  querySegments: queryAll,
  matchSegments: matchAll,
};
