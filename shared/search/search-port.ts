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
  /** As `serialize`, without holding the event loop for the compression (a reader or merge beside requests). */
  serializeAsync(): Promise<Buffer>;
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
  /**
   * The stored form before `format`, which readers still load (a site keeps answering searches after an
   * upgrade until its first change rebuilds the index in `format`); writers never keep it.
   */
  readonly previousFormat?: string;
  empty(): SearchIndexPort;
  load(bytes: Buffer): SearchIndexPort;
  /** As `load` (in `format` unless the head names `previousFormat`), decompressing off the event loop. */
  loadAsync(bytes: Buffer, format?: string): Promise<SearchIndexPort>;
  fromJSON(value: unknown): SearchIndexPort;
  /**
   * Every match of the query over several segments, ranked as if they were one index: scored
   * with the statistics of all of them together, best first.
   */
  querySegments(segments: readonly SearchSegment[], query: SearchQuery): SearchHit[];
  /** As `querySegments`, in no order (a page orders its best with `bestFirst`, shared/search/ranking.ts). */
  matchSegments(segments: readonly SearchSegment[], query: SearchQuery): SearchHit[];
}

/**
 * Who asks (decision 292): what the access rule reads of a caller. The embedded backend filters
 * its hits with the rule itself (`readable`); the OpenSearch backend turns the viewer into a
 * query filter, so the engine counts only what the caller may read. Both must agree
 * (test/unit/search-contract.test.ts).
 */
export interface SearchViewer {
  userid: number;
  teams: readonly number[];
  /** Admins read every guide. */
  admin: boolean;
}

export interface SearchRequest {
  query: SearchQuery;
  /** null: an anonymous caller (public content only). */
  viewer: SearchViewer | null;
  /** The access rule of shared/content/guide-access.ts, for a backend that filters its hits itself. */
  readable: (access: SearchAccess) => boolean;
  offset: number;
  limit: number;
}

/** One page of what the caller may read, best first, and how many there are in all. */
export interface SearchPage {
  total: number;
  hits: SearchHit[];
}

/** What a change does to the index: documents as they are now, keys that are gone. */
export interface IndexEditor {
  upsert(document: SearchDocument): void;
  remove(key: string): void;
}

/**
 * A search backend (decision 292): the embedded segmented index (S3 objects, decision 289) or
 * Amazon OpenSearch Service. The search function asks it for a page; the stream indexer has it
 * re-index the documents a batch names, read from the table as they are now.
 */
export interface SearchBackend {
  readonly name: SearchEngineName;
  search(request: SearchRequest): Promise<SearchPage>;
  /**
   * Re-indexes one batch: `read` puts each document as the table holds it now into the editor
   * (a backend may call it again after a lost race). `whole` gives every document of the table,
   * for a backend that has no index yet.
   */
  write(read: (editor: IndexEditor) => Promise<void>, whole: () => Promise<SearchDocument[]>): Promise<SearchWritten>;
  /** Makes the whole index again from the table's documents. */
  rebuild(whole: () => Promise<SearchDocument[]>): Promise<{ documents: number }>;
}

/** A batch is searchable; `upkeep` is what the backend would do after it (the embedded index's merges). */
export interface SearchWritten {
  /** `budgetMs`: how long it may take before it stops (what is left waits for the next batch). */
  upkeep?: (budgetMs: number) => Promise<void>;
}

/** The site setting `searchEngine` (STEPWISE_SEARCH_ENGINE): embedded by default. */
export type SearchEngineName = 'embedded' | 'opensearch';
