/**
 * The search port's adapter: MiniSearch (pure JS, BM25+ ranking), chosen over Orama by
 * measurement (decision 207). The stored form is MiniSearch's own JSON, gzipped, in an envelope
 * that names the engine and its options' version, so a later change of fields or engine is
 * recognised and the index rebuilt rather than misread.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import MiniSearch, { type Options, type SearchResult } from 'minisearch';
import type { SearchDocument, SearchEngine, SearchHit, SearchIndexPort, SearchQuery } from './search-port.ts';

/** Bump when fields, stored fields or term processing change: stored indexes of another format are rebuilt. */
export const INDEX_FORMAT = 'minisearch-1';

const STORED = ['kind', 'recordid', 'langid', 'type', 'access'] as const;

const OPTIONS: Options<SearchDocument> = {
  idField: 'key',
  fields: ['title', 'summary', 'body'],
  storeFields: [...STORED],
};

/** A title match weighs most, then the summary, then the body (introduction, step lines, page text). */
const BOOST = { title: 4, summary: 2, body: 1 };

export class IndexFormatError extends Error {
  constructor(found: unknown) {
    super(`The stored search index is of format ${String(found)}, not ${INDEX_FORMAT}`);
    this.name = 'IndexFormatError';
  }
}

class MiniSearchIndex implements SearchIndexPort {
  constructor(private readonly engine: MiniSearch<SearchDocument>) {}

  get documentCount(): number {
    return this.engine.documentCount;
  }

  upsert(document: SearchDocument): void {
    if (this.engine.has(document.key)) this.engine.replace(document);
    else this.engine.add(document);
  }

  remove(key: string): void {
    if (this.engine.has(key)) this.engine.discard(key);
  }

  query(query: SearchQuery): SearchHit[] {
    const matches = (result: SearchResult) =>
      result.langid === query.langid &&
      query.kinds.has(result.kind) &&
      (result.kind !== 'guide' || !query.guideTypes || query.guideTypes.has(result.type));
    return this.engine
      .search(query.text, {
        boost: BOOST,
        combineWith: 'AND',
        // "batter" finds "battery": the last word is often typed half.
        prefix: (term) => term.length >= 3,
        filter: matches,
      })
      .map((result) => ({
        key: String(result.id),
        kind: result.kind,
        recordid: result.recordid,
        langid: result.langid,
        type: result.type,
        access: result.access,
        score: result.score,
      }));
  }

  serialize(): Buffer {
    return gzipSync(JSON.stringify({ format: INDEX_FORMAT, index: this.engine.toJSON() }));
  }
}

export const miniSearchEngine: SearchEngine = {
  name: 'minisearch',
  empty: () => new MiniSearchIndex(new MiniSearch<SearchDocument>(OPTIONS)),
  load(bytes) {
    const stored = JSON.parse(gunzipSync(bytes).toString('utf8')) as { format?: unknown; index?: unknown };
    if (stored.format !== INDEX_FORMAT) throw new IndexFormatError(stored.format);
    return new MiniSearchIndex(MiniSearch.loadJS<SearchDocument>(stored.index as never, OPTIONS));
  },
};
