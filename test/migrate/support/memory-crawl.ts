/**
 * A tiny crawl context for resource crawler tests: the source is the test stack over HTTP (GET
 * only, through the same helper the API tests use, so every answer is also checked against its
 * route's response schema), and the sink keeps items, objects and ids in memory. The tests then
 * read the same keys straight from the stack's table and compare.
 */
import { inject } from 'vitest';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import {
  SourceError,
  type CrawlContext,
  type CrawlReport,
  type QueryValue,
  type ResourceCrawler,
  type SourceApi,
} from '../../../infra/ops/migrate/crawl.ts';
import type { BucketRole } from '../../../shared/site-archive/records.ts';
import { api } from '../../support/api.ts';
import { storedItem as storedItemOfKey } from './stored-site.ts';

const PAGE_SIZE = 50;

export interface CrawledObject {
  bucket: BucketRole;
  key: string;
  contentType: string | null;
  bytes: Buffer;
}

export interface MemoryCrawl {
  context: CrawlContext;
  /** Items by `pk\nsk` (a later item with the same key replaces an earlier one, as an import would). */
  items: Map<string, Record<string, unknown>>;
  objects: Map<string, CrawledObject>;
  /** Highest id seen per counter type. */
  highestIds: Map<string, number>;
  unexposed: Map<string, string | undefined>;
  skipped: Array<{ what: string; reason: string }>;
  completedUnits: string[];
  /** Runs crawlers in order, as the runner would. */
  run(...crawlers: ResourceCrawler[]): Promise<void>;
  /** Runs crawlers with a context of the test's making (e.g. a source that refuses some reads). */
  runWith(context: CrawlContext, ...crawlers: ResourceCrawler[]): Promise<void>;
  item(pk: string, sk: string): Record<string, unknown> | undefined;
}

export const itemKey = (pk: string, sk: string): string => `${pk}\n${sk}`;

function sourceApi(token: string): SourceApi {
  const get = async <T>(path: string, query?: Record<string, QueryValue>): Promise<T> => {
    const response = await api<T>('GET', path, { token, query });
    if (response.status < 200 || response.status > 299)
      throw new SourceError(response.status, path, `GET ${path}: ${response.status} ${response.text.slice(0, 200)}`);
    return response.body;
  };
  return {
    get,
    async find<T>(path: string, query?: Record<string, QueryValue>) {
      try {
        return await get<T>(path, query);
      } catch (error) {
        if (error instanceof SourceError && (error.status === 403 || error.status === 404)) return undefined;
        throw error;
      }
    },
    async *pages<T>(
      path: string,
      options: { query?: Record<string, QueryValue>; pageSize?: number; itemsOf?: (body: unknown) => T[] } = {},
    ) {
      const limit = options.pageSize ?? PAGE_SIZE;
      for (let offset = 0; ; offset += limit) {
        const body = await get<unknown>(path, { ...options.query, limit, offset });
        const page = options.itemsOf ? options.itemsOf(body) : (body as T[]);
        if (page.length > 0) yield page;
        if (page.length < limit) return;
      }
    },
    async download(url: string) {
      const response = await fetch(url);
      if (!response.ok) throw new SourceError(response.status, url, `download: ${response.status}`);
      return { bytes: Buffer.from(await response.arrayBuffer()), contentType: response.headers.get('content-type') };
    },
  };
}

export function memoryCrawl(token: string, options: { done?: Iterable<string> } = {}): MemoryCrawl {
  const items = new Map<string, Record<string, unknown>>();
  const objects = new Map<string, CrawledObject>();
  const highestIds = new Map<string, number>();
  const unexposed = new Map<string, string | undefined>();
  const skipped: Array<{ what: string; reason: string }> = [];
  const completedUnits: string[] = [];
  const done = new Set(options.done ?? []);
  const known = new Map<string, Set<number>>();
  const report: CrawlReport = {
    unexposed: (what, detail) => {
      if (!unexposed.has(what)) unexposed.set(what, detail);
    },
    skipped: (what, reason) => {
      skipped.push({ what, reason });
    },
  };
  const context: CrawlContext = {
    api: sourceApi(token),
    sink: {
      async items(batch) {
        for (const item of batch) items.set(itemKey(String(item.pk), String(item.sk)), item);
      },
      async object(bucket, key, contentType, bytes) {
        objects.set(`${bucket}/${key}`, { bucket, key, contentType, bytes });
      },
      idSeen(counterType, id) {
        highestIds.set(counterType, Math.max(id, highestIds.get(counterType) ?? 0));
      },
    },
    report,
    known: {
      add(kind, id) {
        if (!known.has(kind)) known.set(kind, new Set());
        known.get(kind)!.add(id);
      },
      all: (kind) => [...(known.get(kind) ?? [])].sort((a, b) => a - b),
    },
    isDone: (unit) => done.has(unit),
    async completed(unit) {
      done.add(unit);
      completedUnits.push(unit);
    },
  };
  return {
    context,
    items,
    objects,
    highestIds,
    unexposed,
    skipped,
    completedUnits,
    async run(...crawlers) {
      for (const crawler of crawlers) await crawler.crawl(context);
    },
    async runWith(custom, ...crawlers) {
      for (const crawler of crawlers) await crawler.crawl(custom);
    },
    item: (pk, sk) => items.get(itemKey(pk, sk)),
  };
}

/** The stored item of a key in the test stack's table. */
export async function storedItem(pk: string, sk: string): Promise<Record<string, unknown> | undefined> {
  return storedItemOfKey({ pk, sk });
}

export { stackTable, storedPartition } from './stored-site.ts';

/** An item without the attributes a test knows API 2.0 cannot expose. */
export function withoutAttributes(
  item: Record<string, unknown> | undefined,
  names: readonly string[],
): Record<string, unknown> | undefined {
  if (!item) return item;
  const copy = { ...item };
  for (const name of names) delete copy[name];
  return copy;
}

/** The bytes of an object in the test stack's media bucket, or undefined. */
export async function storedMediaObject(key: string): Promise<Buffer | undefined> {
  const s3 = new S3Client({
    endpoint: inject('s3Endpoint'),
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  try {
    const object = await s3.send(new GetObjectCommand({ Bucket: 'stepwise-media', Key: key }));
    return Buffer.from(await object.Body!.transformToByteArray());
  } catch (error) {
    if ((error as { name?: string }).name === 'NoSuchKey') return undefined;
    throw error;
  }
}

/** A source that answers 403 to every GET under the given path prefixes (an account refused them). */
export function refusing(context: CrawlContext, prefixes: string[]): CrawlContext {
  const refused = (path: string) => prefixes.some((prefix) => path.startsWith(prefix));
  const forbidden = (path: string) => new SourceError(403, path, `GET ${path}: 403`);
  const { api: source } = context;
  return {
    ...context,
    api: {
      ...source,
      get: (path, query) => (refused(path) ? Promise.reject(forbidden(path)) : source.get(path, query)),
      find: (path, query) => (refused(path) ? Promise.resolve(undefined) : source.find(path, query)),
      pages: (path, options) => {
        if (!refused(path)) return source.pages(path, options);
        return (async function* () {
          yield* [];
          throw forbidden(path);
        })();
      },
      download: (url) => source.download(url),
    },
  };
}
