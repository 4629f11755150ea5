/**
 * A small in-test crawl context for resource crawlers: the source is the test stack over HTTP
 * (an API 2.0 site like any other), the sink keeps items and objects in memory, and the stored
 * items are read back straight from the test stack's table to compare with what was crawled.
 * The crawler sees every record of the shared stack; `onlyUnits` marks every other unit as done,
 * so a test crawls the records it created and nothing another test file is changing meanwhile.
 */
import { apiUrl } from '../support/api.ts';
import { storedItem } from './support/stored-site.ts';
import {
  SourceError,
  type CrawlContext,
  type QueryValue,
  type ResourceCrawler,
  type SourceApi,
} from '../../infra/ops/migrate/crawl.ts';

export interface SinkObject {
  bucket: string;
  key: string;
  contentType: string | null;
  bytes: Buffer;
}

export interface CrawlRun {
  items: Map<string, Record<string, unknown>>;
  objects: SinkObject[];
  ids: Map<string, number>;
  unexposed: Array<{ what: string; detail?: string }>;
  skipped: Array<{ what: string; reason: string }>;
  completed: string[];
  requests: string[];
}

export const itemKey = (item: { pk: unknown; sk: unknown }) => `${String(item.pk)}|${String(item.sk)}`;

/**
 * GETs against the test stack (or the stack at `baseUrl`) with `token`; `deny` paths (prefixes)
 * answer 403 as a locked-down source would.
 */
export function httpSource(
  token: string,
  options: { deny?: string[]; requests?: string[]; baseUrl?: string } = {},
): SourceApi {
  const base = options.baseUrl ?? apiUrl();
  async function request(path: string, query: Record<string, QueryValue> = {}): Promise<Response> {
    const url = new URL(base + path);
    for (const [name, value] of Object.entries(query)) url.searchParams.set(name, String(value));
    options.requests?.push(url.pathname + url.search);
    if (options.deny?.some((prefix) => path.startsWith(prefix))) {
      return new Response(JSON.stringify({ message: 'Forbidden' }), { status: 403 });
    }
    return fetch(url, { headers: { authorization: `api ${token}` } });
  }
  async function get<T>(path: string, query?: Record<string, QueryValue>): Promise<T> {
    const response = await request(path, query);
    const text = await response.text();
    if (!response.ok) throw new SourceError(response.status, path, `${response.status} ${text.slice(0, 200)}`);
    return JSON.parse(text) as T;
  }
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
      const limit = pageOptions.pageSize ?? 50;
      for (let offset = 0; ; offset += limit) {
        const body = await get<unknown>(path, { ...pageOptions.query, offset, limit });
        const page = pageOptions.itemsOf ? pageOptions.itemsOf(body) : (body as T[]);
        yield page;
        if (page.length < limit) return;
      }
    },
    async download(url: string) {
      const response = await fetch(url, { headers: { authorization: `api ${token}` } });
      if (!response.ok) throw new SourceError(response.status, url, `download ${response.status}`);
      return {
        bytes: Buffer.from(await response.arrayBuffer()),
        contentType: response.headers.get('content-type'),
      };
    },
  };
}

/** Runs `crawler` against `api`; `known` seeds the ids earlier crawlers would have found. */
export async function runCrawler(
  crawler: ResourceCrawler,
  api: SourceApi,
  options: { known?: Record<string, number[]>; onlyUnits?: (unit: string) => boolean } = {},
): Promise<CrawlRun> {
  const run: CrawlRun = {
    items: new Map(),
    objects: [],
    ids: new Map(),
    unexposed: [],
    skipped: [],
    completed: [],
    requests: [],
  };
  const known = new Map<string, Set<number>>();
  for (const [kind, ids] of Object.entries(options.known ?? {})) known.set(kind, new Set(ids));
  const context: CrawlContext = {
    api,
    sink: {
      async items(items) {
        for (const item of items) {
          const key = itemKey(item as { pk: unknown; sk: unknown });
          if (run.items.has(key)) throw new Error(`Item ${key} written twice`);
          run.items.set(key, structuredClone(item));
        }
      },
      async object(bucket, key, contentType, bytes) {
        run.objects.push({ bucket, key, contentType, bytes });
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
    isDone: (unit) => run.completed.includes(unit) || (options.onlyUnits ? !options.onlyUnits(unit) : false),
    async completed(unit) {
      run.completed.push(unit);
    },
  };
  await crawler.crawl(context);
  return run;
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
    chosen.map((item) => storedItem({ pk: String(item.pk), sk: String(item.sk) }, ddbEndpoint)),
  );
  const strip = (item: Record<string, unknown> | undefined) => {
    if (!item) return item;
    const listed = ignored[String(item.entity)] ?? [];
    const skip: readonly string[] = Array.isArray(listed) ? listed : Object.keys(listed);
    return Object.fromEntries(Object.entries(item).filter(([name]) => !skip.includes(name)));
  };
  return { crawled: chosen.map(strip) as Record<string, unknown>[], stored: stored.map(strip) };
}

export { storedItem, storedPartition } from './support/stored-site.ts';
