/**
 * The search port: what the rest of Stepwise asks of a full-text index, whatever engine answers
 * it (decision 207). Documents are guides, wiki pages and category pages, one per language they
 * are written in; each carries the fields the API filters on (kind, language, guide type) and the
 * guide's access fields, so results are filtered before they are counted. The index is derived
 * data: shared/search/indexer.ts keeps it from the table, a rebuild makes it again from scratch.
 */

/** What a result is: a guide, or a wiki page of a namespace (CATEGORY pages are `category`). */
export type SearchKind = 'guide' | 'category' | 'wiki';

/** The access fields of a guide, as shared/content/guide-access.ts reads them. */
export interface SearchAccess {
  public: boolean;
  userid: number;
  grant_userids: number[];
  grant_teamids: number[];
}

export interface SearchDocument {
  /** `guide:<guideid>` or `wiki:<wikiid>`: one document per record. */
  key: string;
  kind: SearchKind;
  /** guideid or wikiid. */
  recordid: number;
  langid: string;
  /** The guide's type (`how-to`, `teardown`...); '' for pages. */
  type: string;
  title: string;
  summary: string;
  /** Everything else that is searched: introduction and step lines, or the page's contents. */
  body: string;
  /** Guides only: who may read it. Pages are readable by whoever may call the API. */
  access: SearchAccess | null;
}

/** One match, best first; the stored fields a caller needs to filter and load it. */
export type SearchHit = Pick<SearchDocument, 'key' | 'kind' | 'recordid' | 'langid' | 'type' | 'access'> & {
  score: number;
};

export interface SearchQuery {
  text: string;
  langid: string;
  kinds: ReadonlySet<SearchKind>;
  /** Guide types wanted; undefined: every type. */
  guideTypes?: ReadonlySet<string>;
}

/** A loaded index: in memory, changed in place, saved whole. */
export interface SearchIndexPort {
  /** Adds the document, or replaces the one with its key. */
  upsert(document: SearchDocument): void;
  /** Removes the document with this key, if there is one. */
  remove(key: string): void;
  has(key: string): boolean;
  /** Every match, ranked (BM25-class relevance), best first. */
  query(query: SearchQuery): SearchHit[];
  readonly documentCount: number;
  /** The whole index as bytes to store (and load with the adapter's `load`). */
  serialize(): Buffer;
  /** The index as a plain value, to store inside another object (the delta; `fromJSON` reads it). */
  toJSON(): unknown;
}

/** One segment of a query: an index, and the keys a newer segment replaced or deleted (decision 289). */
export interface SearchSegment {
  index: SearchIndexPort;
  hidden: ReadonlySet<string>;
}

/** An engine: makes an empty index or loads a stored one. */
export interface SearchEngine {
  readonly name: string;
  /** The stored form's version: an index of another format is rebuilt. */
  readonly format: string;
  empty(): SearchIndexPort;
  load(bytes: Buffer): SearchIndexPort;
  fromJSON(value: unknown): SearchIndexPort;
  /**
   * Every match of the query over several segments, ranked as if they were one index: scored
   * with the statistics of all of them together, best first.
   */
  querySegments(segments: readonly SearchSegment[], query: SearchQuery): SearchHit[];
}
