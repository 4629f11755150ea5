/**
 * The contract between the migration crawler's runner (source client, checkpoint, output file,
 * progress) and its resource crawlers (one per area of API 2.0, in ./resources). A resource
 * crawler reads the source site through `api`, turns what it reads into the table items Stepwise
 * itself would have written (through the entity files' own write builders, so the keys, index
 * attributes, search tokens and links are the ones the API reads), and hands them to `sink`.
 */
import type { LabelledWrite } from '../../../shared/db/transactions.ts';
import type { BucketRole } from '../../../shared/site-archive/records.ts';

export type QueryValue = string | number | boolean;

/** A failed request to the source, after the runner's retries. */
export class SourceError extends Error {
  constructor(
    readonly status: number,
    readonly path: string,
    message: string,
  ) {
    super(message);
    this.name = 'SourceError';
  }
}

export interface SourceApi {
  /** GET `<base>/<path>`; throws SourceError for any non-2xx answer left after retries. */
  get<T = unknown>(path: string, query?: Record<string, QueryValue>): Promise<T>;
  /** As `get`, but 403 and 404 (not exposed to this account, or gone) answer undefined. */
  find<T = unknown>(path: string, query?: Record<string, QueryValue>): Promise<T | undefined>;
  /**
   * Every element of an offset/limit list: pages of `pageSize` until a short page. `itemsOf`
   * picks the array out of a wrapped answer (`{modules: [...]}`); a bare array needs none.
   */
  pages<T = unknown>(
    path: string,
    options?: { query?: Record<string, QueryValue>; pageSize?: number; itemsOf?: (body: unknown) => T[] },
  ): AsyncIterable<T[]>;
  /** The bytes at an absolute URL the source handed out (media, documents, packages). */
  download(url: string): Promise<{ bytes: Buffer; contentType: string | null }>;
}

export interface SiteSink {
  /** Table items as Stepwise stores them (plain lib-dynamodb values, `pk`/`sk` included). */
  items(items: Record<string, unknown>[]): Promise<void>;
  /** An S3 object, stored under the same key in the bucket of that role. */
  object(bucket: BucketRole, key: string, contentType: string | null, bytes: Buffer): Promise<void>;
  /** An explicit id of a counter type (`guide`, `user`...): the file's counter ends past the highest. */
  idSeen(counterType: string, id: number): void;
}

export interface CrawlReport {
  /** Data the source holds but API 2.0 does not hand out (said once per `what`, with a count). */
  unexposed(what: string, detail?: string): void;
  /** A record skipped because what the source answered could not be carried over. */
  skipped(what: string, reason: string): void;
}

/** Ids earlier crawlers found, for crawlers that walk per parent (a guide's releases, a user's marks). */
export interface KnownIds {
  add(kind: string, id: number): void;
  all(kind: string): number[];
}

export interface CrawlContext {
  api: SourceApi;
  sink: SiteSink;
  report: CrawlReport;
  known: KnownIds;
  /**
   * Units of work already written by an interrupted run (a crawler names its units: `guide:429`).
   * A crawler skips a done unit, and calls `completed` once all of a unit's records are in the sink.
   */
  isDone(unit: string): boolean;
  completed(unit: string): Promise<void>;
}

export interface ResourceCrawler {
  /** Unique, stable (checkpoints name it): `users`, `guides`, `courses`... */
  name: string;
  /** Crawlers whose `known` ids this one reads; the runner runs those first. */
  after?: string[];
  crawl(context: CrawlContext): Promise<void>;
}

/**
 * The items a list of entity write builders would put. Conditions are dropped (the importer
 * checks collisions itself); an Update, Delete or ConditionCheck has no item to carry, so it is
 * skipped: aggregates an update would bump (counts, sets) are computed by the crawler instead.
 */
export function itemsOfWrites(writes: LabelledWrite[]): Record<string, unknown>[] {
  const items: Record<string, unknown>[] = [];
  for (const write of writes) {
    const put = write.item.Put;
    if (put?.Item) items.push(put.Item as Record<string, unknown>);
  }
  return items;
}
