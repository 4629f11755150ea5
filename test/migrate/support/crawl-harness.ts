/**
 * The one crawl harness of the resource crawler tests (issue 24 §7: it replaces two). The source
 * is a Stepwise stack over HTTP (the test stack, or the stack at `baseUrl`), read with GET only
 * through the API tests' own helper, so every answer is also checked against its route's response
 * schema; the sink records items, objects, ids and the report in memory. The tests then read the
 * same keys straight from the stack's table and bucket and compare attribute by attribute.
 *
 * Two ways in, over the same source and recorder: `runCrawler(crawler, httpSource(token))` runs
 * one crawler and answers what it recorded (the training crawlers' tests), and
 * `memoryCrawl(token)` keeps a recorder to run crawlers into one after another (the content
 * crawlers' tests, whose crawlers follow each other as the runner orders them).
 */
import { inject } from 'vitest';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import {
  SourceError,
  type CrawlContext,
  type QueryValue,
  type ResourceCrawler,
  type SourceApi,
} from '../../../infra/ops/migrate/crawl.ts';
import type { BucketRole } from '../../../shared/site-archive/records.ts';
import { apiAt, apiUrl } from '../../support/api.ts';
import { storedItem as storedItemOfKey } from './stored-site.ts';

const PAGE_SIZE = 50;

export interface CrawledObject {
  bucket: BucketRole;
  key: string;
  contentType: string | null;
  bytes: Buffer;
}

/** What a crawl recorded. Item keys are `pk|sk` (itemKey). */
export interface CrawlRun {
  items: Map<string, Record<string, unknown>>;
  /** By `bucket/key`. */
  objects: Map<string, CrawledObject>;
  /** Highest id seen per counter type. */
  ids: Map<string, number>;
  /** Every `unexposed` call, in order. */
  unexposed: Array<{ what: string; detail?: string }>;
  skipped: Array<{ what: string; reason: string }>;
  /** Units completed, in order. */
  completed: string[];
}

export function itemKey(pk: string, sk: string): string;
export function itemKey(item: { pk: unknown; sk: unknown }): string;
export function itemKey(first: string | { pk: unknown; sk: unknown }, sk?: string): string {
  return typeof first === 'string' ? `${first}|${sk}` : `${String(first.pk)}|${String(first.sk)}`;
}

/**
 * The stack (the test stack, or the one at `baseUrl`) as an API 2.0 source read with `token`.
 * `deny` path prefixes answer 403 as a locked-down source would; `requests` records each GET.
 */
export function httpSource(
  token: string,
  options: { deny?: string[]; requests?: string[]; baseUrl?: string } = {},
): SourceApi {
  const base = options.baseUrl ?? apiUrl();
  const get = async <T>(path: string, query: Record<string, QueryValue> = {}): Promise<T> => {
    const url = new URL(base + path);
    for (const [name, value] of Object.entries(query)) url.searchParams.set(name, String(value));
    options.requests?.push(url.pathname + url.search);
    if (options.deny?.some((prefix) => path.startsWith(prefix))) throw new SourceError(403, path, `GET ${path}: 403`);
    const response = await apiAt<T>(base, 'GET', path, { token, query });
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
      pageOptions: { query?: Record<string, QueryValue>; pageSize?: number; itemsOf?: (body: unknown) => T[] } = {},
    ) {
      const limit = pageOptions.pageSize ?? PAGE_SIZE;
      for (let offset = 0; ; offset += limit) {
        const body = await get<unknown>(path, { ...pageOptions.query, offset, limit });
        const page = pageOptions.itemsOf ? pageOptions.itemsOf(body) : (body as T[]);
        // As the real client: an empty page is not handed on.
        if (page.length > 0) yield page;
        if (page.length < limit) return;
      }
    },
    // No token, as the real client sends none off the source's origin; a site path (a document's
    // `url`, `/Document/...`) is resolved against the source, as the real client does.
    async download(url: string) {
      const response = await fetch(new URL(url, base));
      if (!response.ok) throw new SourceError(response.status, url, `download: ${response.status}`);
      return { bytes: Buffer.from(await response.arrayBuffer()), contentType: response.headers.get('content-type') };
    },
  };
}

export interface RecorderOptions {
  /** Units done before the crawl (a resumed run). */
  done?: Iterable<string>;
  /** Units outside this filter count as done: a test crawls its own records on the shared stack. */
  onlyUnits?: (unit: string) => boolean;
  /** Ids earlier crawlers would have found. */
  known?: Record<string, number[]>;
  /** An item key written twice: an error (a crawler must write each key once) or the later one kept. */
  onDuplicate?: 'throw' | 'replace';
}

/** A crawl context writing into a fresh CrawlRun. */
export function recordingContext(
  api: SourceApi,
  options: RecorderOptions = {},
): { context: CrawlContext; run: CrawlRun } {
  const run: CrawlRun = {
    items: new Map(),
    objects: new Map(),
    ids: new Map(),
    unexposed: [],
    skipped: [],
    completed: [],
  };
  const done = new Set(options.done ?? []);
  const known = new Map<string, Set<number>>();
  for (const [kind, ids] of Object.entries(options.known ?? {})) known.set(kind, new Set(ids));
  const context: CrawlContext = {
    api,
    sink: {
      async items(items) {
        for (const item of items) {
          const key = itemKey(item as { pk: unknown; sk: unknown });
          if (options.onDuplicate === 'throw' && run.items.has(key)) throw new Error(`Item ${key} written twice`);
          run.items.set(key, structuredClone(item));
        }
      },
      async object(bucket, key, contentType, bytes) {
        run.objects.set(`${bucket}/${key}`, { bucket, key, contentType, bytes });
      },
      idSeen(counterType, id) {
        run.ids.set(counterType, Math.max(run.ids.get(counterType) ?? 0, id));
      },
    },
    report: {
      unexposed: (what, detail) => run.unexposed.push({ what, detail }),
      skipped: (what, reason) => run.skipped.push({ what, reason }),
    },
    known: {
      add(kind, id) {
        if (!known.has(kind)) known.set(kind, new Set());
        known.get(kind)!.add(id);
      },
      all: (kind) => [...(known.get(kind) ?? [])].sort((a, b) => a - b),
    },
    isDone: (unit) => done.has(unit) || (options.onlyUnits ? !options.onlyUnits(unit) : false),
    async completed(unit) {
      done.add(unit);
      run.completed.push(unit);
    },
  };
  return { context, run };
}

/** Runs one crawler against `api` into a fresh record; an item key written twice fails it. */
export async function runCrawler(
  crawler: ResourceCrawler,
  api: SourceApi,
  options: Omit<RecorderOptions, 'onDuplicate'> = {},
): Promise<CrawlRun> {
  const { context, run } = recordingContext(api, { ...options, onDuplicate: 'throw' });
  await crawler.crawl(context);
  return run;
}

/** A recorder to run crawlers into one after another, as the runner does (later items replace earlier). */
export interface MemoryCrawl extends CrawlRun {
  context: CrawlContext;
  /** Runs crawlers in order, as the runner would. */
  run(...crawlers: ResourceCrawler[]): Promise<void>;
  /** Runs crawlers with a context of the test's making (e.g. `refusing(...)`). */
  runWith(context: CrawlContext, ...crawlers: ResourceCrawler[]): Promise<void>;
  item(pk: string, sk: string): Record<string, unknown> | undefined;
  /** The first detail reported for each unexposed `what`. */
  unexposedDetail(what: string): string | undefined;
  isUnexposed(what: string): boolean;
}

export function memoryCrawl(token: string, options: Pick<RecorderOptions, 'done' | 'onlyUnits'> = {}): MemoryCrawl {
  const { context, run } = recordingContext(httpSource(token), { ...options, onDuplicate: 'replace' });
  return {
    ...run,
    context,
    async run(...crawlers) {
      for (const crawler of crawlers) await crawler.crawl(context);
    },
    async runWith(custom, ...crawlers) {
      for (const crawler of crawlers) await crawler.crawl(custom);
    },
    item: (pk, sk) => run.items.get(itemKey(pk, sk)),
    unexposedDetail: (what) => run.unexposed.find((entry) => entry.what === what)?.detail,
    isUnexposed: (what) => run.unexposed.some((entry) => entry.what === what),
  };
}

/** A context whose source answers 403 to every GET under the given path prefixes. */
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
      pages: (path, pageOptions) => {
        if (!refused(path)) return source.pages(path, pageOptions);
        return (async function* () {
          yield* [];
          throw forbidden(path);
        })();
      },
      download: (url) => source.download(url),
    },
  };
}

/**
 * The crawled items whose keys match `select`, each paired with the stored item of the same key;
 * `ignored` attributes (per entity: names, or a crawler's `*_UNEXPOSED` map) are left out of both.
 */
export async function crawledAndStored(
  run: CrawlRun,
  select: (item: Record<string, unknown>) => boolean,
  ignored: Record<string, readonly string[] | Record<string, string>> = {},
  ddbEndpoint?: string,
): Promise<{ crawled: Record<string, unknown>[]; stored: Array<Record<string, unknown> | undefined> }> {
  const chosen = [...run.items.values()]
    .filter(select)
    .sort((a, b) => itemKey(a as never).localeCompare(itemKey(b as never)));
  const stored = await Promise.all(
    chosen.map((item) => storedItemOfKey({ pk: String(item.pk), sk: String(item.sk) }, ddbEndpoint)),
  );
  const strip = (item: Record<string, unknown> | undefined) => {
    if (!item) return item;
    const listed = ignored[String(item.entity)] ?? [];
    const skip: readonly string[] = Array.isArray(listed) ? listed : Object.keys(listed);
    return Object.fromEntries(Object.entries(item).filter(([name]) => !skip.includes(name)));
  };
  return { crawled: chosen.map(strip) as Record<string, unknown>[], stored: stored.map(strip) };
}

/** The stored item of a key in the test stack's table. */
export async function storedItem(pk: string, sk: string): Promise<Record<string, unknown> | undefined> {
  return storedItemOfKey({ pk, sk });
}

export { storedPartition } from './stored-site.ts';

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
