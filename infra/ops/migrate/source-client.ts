/**
 * The migration's HTTP client for the source site (SourceApi): every request waits for a
 * concurrency slot and a token of the rate limiter, and is retried with exponential backoff and
 * jitter on 429 (honouring Retry-After), 5xx and network errors, a bounded number of times.
 * The API token goes only to the source's own origin: media URLs the source hands out (presigned
 * S3 URLs, a CDN) are fetched without it, and so is any redirect that leaves the origin.
 */
import { setTimeout as wait } from 'node:timers/promises';
import { SourceError, type QueryValue, type SourceApi } from './crawl.ts';

export interface SourceClientOptions {
  /** The source's API root, ending in `/api/2.0`. */
  baseUrl: string;
  /** Sent as `Authorization: api <token>` to the source's origin only. */
  token?: string;
  /** Requests in flight at once. */
  concurrency?: number;
  /** Requests started per second (token bucket, burst of one). */
  ratePerSecond?: number;
  /** Attempts per request, the first included, before a retryable failure becomes a SourceError. */
  maxAttempts?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Per attempt; a timeout counts as a network error. */
  timeoutMs?: number;
  /** Backoff and Retry-After waits (tests pass one that records the delays). */
  sleep?: (ms: number) => Promise<void>;
  /** In [0, 1): the jitter's source. */
  random?: () => number;
  /** The rate limiter's time (tests pass one that advances when waited on). */
  clock?: Clock;
}

export interface Clock {
  now(): number;
  wait(ms: number): Promise<void>;
}

const realClock: Clock = { now: () => Date.now(), wait: (ms) => wait(ms) };

/** What the progress display and the closing report show. */
export interface SourceStats {
  requests: number;
  retries: number;
  bytes: number;
}

interface RawAnswer {
  status: number;
  headers: Headers;
  body: Buffer;
}

const RETRY_AFTER_CAP_MS = 5 * 60_000;
const MAX_REDIRECTS = 5;

export class HttpSourceClient implements SourceApi {
  readonly stats: SourceStats = { requests: 0, retries: 0, bytes: 0 };
  private readonly base: URL;
  private readonly slots: Semaphore;
  private readonly bucket: TokenBucket;
  private readonly maxAttempts: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly timeoutMs: number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;

  constructor(private readonly options: SourceClientOptions) {
    this.base = new URL(options.baseUrl.replace(/\/+$/, ''));
    this.slots = new Semaphore(Math.max(1, options.concurrency ?? 4));
    this.bucket = new TokenBucket(Math.max(0.01, options.ratePerSecond ?? 10), options.clock ?? realClock);
    this.maxAttempts = Math.max(1, options.maxAttempts ?? 6);
    this.baseDelayMs = options.baseDelayMs ?? 500;
    this.maxDelayMs = options.maxDelayMs ?? 30_000;
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.sleep = options.sleep ?? ((ms) => wait(ms));
    this.random = options.random ?? Math.random;
  }

  async get<T = unknown>(path: string, query?: Record<string, QueryValue>): Promise<T> {
    const answer = await this.send(this.urlOf(path, query), path, { method: 'GET' });
    return parseJson(answer, path) as T;
  }

  async find<T = unknown>(path: string, query?: Record<string, QueryValue>): Promise<T | undefined> {
    try {
      return await this.get<T>(path, query);
    } catch (error) {
      if (error instanceof SourceError && (error.status === 403 || error.status === 404)) return undefined;
      throw error;
    }
  }

  async *pages<T = unknown>(
    path: string,
    options: { query?: Record<string, QueryValue>; pageSize?: number; itemsOf?: (body: unknown) => T[] } = {},
  ): AsyncIterable<T[]> {
    const pageSize = options.pageSize ?? 100;
    const itemsOf = options.itemsOf ?? ((body: unknown) => body as T[]);
    let offset = 0;
    while (true) {
      const body = await this.get(path, { ...options.query, offset, limit: pageSize });
      const page = itemsOf(body);
      if (!Array.isArray(page)) throw new SourceError(200, path, `${path} did not answer a list`);
      if (page.length > 0) yield page;
      if (page.length < pageSize) return;
      offset += page.length;
    }
  }

  async download(url: string): Promise<{ bytes: Buffer; contentType: string | null }> {
    const target = new URL(url, this.base);
    if (target.protocol !== 'http:' && target.protocol !== 'https:') {
      throw new SourceError(0, url, `Refusing to download ${target.protocol} URL`);
    }
    // Named without its query: a presigned URL's signature stays out of errors and reports.
    const answer = await this.send(target, `${target.origin}${target.pathname}`, { method: 'GET' });
    return { bytes: answer.body, contentType: answer.headers.get('content-type') };
  }

  /** A POST to the source (the login); not retried on 4xx like any other request. */
  async post<T = unknown>(path: string, body: unknown): Promise<T> {
    const answer = await this.send(this.urlOf(path), path, {
      method: 'POST',
      body: JSON.stringify(body),
      headers: { 'content-type': 'application/json' },
    });
    return parseJson(answer, path) as T;
  }

  setToken(token: string): void {
    this.options.token = token;
  }

  private urlOf(path: string, query?: Record<string, QueryValue>): URL {
    const url = new URL(`${this.base.pathname}/${path.replace(/^\/+/, '')}`, this.base);
    for (const [name, value] of Object.entries(query ?? {})) url.searchParams.set(name, String(value));
    return url;
  }

  /** One request with its retries; resolves with a 2xx answer or throws SourceError. */
  private async send(url: URL, label: string, init: RequestInit, attempt = 1): Promise<RawAnswer> {
    let answer: RawAnswer | undefined;
    let failure: string;
    try {
      answer = await this.attempt(url, init);
      if (answer.status >= 200 && answer.status < 300) return answer;
      failure = `${answer.status} ${errorMessageOf(answer)}`;
    } catch (error) {
      if (error instanceof SourceError) throw error;
      failure = `network error: ${(error as Error).message}`;
    }
    const retryable = answer === undefined || answer.status === 429 || answer.status >= 500;
    if (!retryable || attempt >= this.maxAttempts) {
      const tries = attempt > 1 ? ` after ${attempt} attempts` : '';
      throw new SourceError(answer?.status ?? 0, label, `${init.method} ${label}: ${failure}${tries}`);
    }
    const retryAfter = answer?.status === 429 ? retryAfterMs(answer.headers.get('retry-after')) : undefined;
    if (retryAfter !== undefined) this.bucket.pauseFor(retryAfter);
    this.stats.retries += 1;
    await this.sleep(retryAfter ?? this.backoffMs(attempt));
    return this.send(url, label, init, attempt + 1);
  }

  /** Exponential backoff with jitter: half fixed, half random, so retrying clients spread out. */
  private backoffMs(attempt: number): number {
    const ceiling = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** (attempt - 1));
    return Math.round(ceiling / 2 + (ceiling / 2) * this.random());
  }

  /** One attempt, redirects followed by hand so the token never leaves the source's origin. */
  private async attempt(url: URL, init: RequestInit): Promise<RawAnswer> {
    await this.slots.acquire();
    try {
      let target = url;
      for (let hop = 0; ; hop += 1) {
        await this.bucket.take();
        this.stats.requests += 1;
        const headers = new Headers(init.headers);
        if (this.options.token && target.origin === this.base.origin) {
          headers.set('authorization', `api ${this.options.token}`);
        }
        const response = await fetch(target, {
          ...init,
          headers,
          redirect: 'manual',
          signal: AbortSignal.timeout(this.timeoutMs),
        });
        const location = response.headers.get('location');
        if (response.status >= 300 && response.status < 400 && location && hop < MAX_REDIRECTS) {
          await response.body?.cancel();
          target = new URL(location, target);
          continue;
        }
        const body = Buffer.from(await response.arrayBuffer());
        this.stats.bytes += body.length;
        return { status: response.status, headers: response.headers, body };
      }
    } finally {
      this.slots.release();
    }
  }
}

function parseJson(answer: RawAnswer, path: string): unknown {
  if (answer.body.length === 0) return undefined;
  try {
    return JSON.parse(answer.body.toString('utf8'));
  } catch {
    throw new SourceError(answer.status, path, `${path} did not answer JSON`);
  }
}

function errorMessageOf(answer: RawAnswer): string {
  const text = answer.body.toString('utf8', 0, Math.min(answer.body.length, 500));
  try {
    const message = (JSON.parse(text) as { message?: unknown }).message;
    if (typeof message === 'string') return message;
  } catch {
    // not JSON: the text itself
  }
  return text.trim() || '(empty body)';
}

/** Retry-After as seconds or an HTTP date, capped; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header.trim());
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(header) - now;
  if (!Number.isFinite(ms)) return undefined;
  return Math.min(RETRY_AFTER_CAP_MS, Math.max(0, Math.round(ms)));
}

/** At most `size` holders at once; waiters are served in arrival order. */
class Semaphore {
  private free: number;
  private readonly waiting: Array<() => void> = [];

  constructor(size: number) {
    this.free = size;
  }

  async acquire(): Promise<void> {
    if (this.free > 0) {
      this.free -= 1;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free += 1;
  }
}

/** `rate` tokens per second, a burst of one; a 429's Retry-After pauses every request. */
class TokenBucket {
  private nextFreeAt = 0;
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly rate: number,
    private readonly clock: Clock,
  ) {}

  take(): Promise<void> {
    const turn = this.queue.then(async () => {
      const delay = this.nextFreeAt - this.clock.now();
      if (delay > 0) await this.clock.wait(delay);
      this.nextFreeAt = Math.max(this.clock.now(), this.nextFreeAt) + 1000 / this.rate;
    });
    this.queue = turn;
    return turn;
  }

  pauseFor(ms: number): void {
    this.nextFreeAt = Math.max(this.nextFreeAt, this.clock.now() + ms);
  }
}
