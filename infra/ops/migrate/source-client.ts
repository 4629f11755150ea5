/**
 * The migration's HTTP client for the source site (SourceApi): every request waits for a
 * concurrency slot (a p-queue) and its turn at the rate (a p-queue in strict sliding-window
 * mode), and is retried by p-retry with exponential backoff and jitter on 429 (honouring
 * Retry-After, which holds every request back), 5xx and network errors, a bounded number of times.
 * The source is trusted with nothing it did not prove (decision 124): API requests (which carry
 * the token, or the login's email and password) follow redirects within the source's origin only;
 * downloads of the media URLs it names go without the token off its origin, and only to its
 * origin, `allowHosts` and public addresses (./download-hosts.ts).
 */
import { setTimeout as wait } from 'node:timers/promises';
import PQueue from 'p-queue';
import pRetry, { AbortError } from 'p-retry';
import { SourceError, type QueryValue, type SourceApi } from './crawl.ts';
import { DownloadRefusedError, pinnedGet, vetDownloadHost, type Resolve } from './download-hosts.ts';

export interface SourceClientOptions {
  /** The source's API root, ending in `/api/2.0`. */
  baseUrl: string;
  /** Sent as `Authorization: api <token>` to the source's origin only. */
  token?: string;
  /**
   * Hosts (`host` or `host:port`) downloads may reach besides the source's origin and public
   * addresses, even when private or loopback: the source's CDN or S3 (`--allow-host`).
   */
  allowHosts?: string[];
  /** Name resolution for download hosts (tests may stand in for DNS). */
  resolve?: Resolve;
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
}

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

/** An API request (credentials on board) or a download of a URL the source named. */
type Purpose = 'api' | 'download';

export class HttpSourceClient implements SourceApi {
  readonly stats: SourceStats = { requests: 0, retries: 0, bytes: 0 };
  private readonly base: URL;
  /** Requests in flight (one attempt holds a slot; its backoff wait does not). */
  private readonly slots: PQueue;
  /** One start per 1/rate s in any sliding window: each hop takes a turn. */
  private readonly turns: PQueue;
  /** Retry-After waits under way; the turns stay paused while any runs. */
  private pauses = 0;
  private readonly maxAttempts: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly timeoutMs: number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;

  constructor(private readonly options: SourceClientOptions) {
    this.base = new URL(options.baseUrl.replace(/\/+$/, ''));
    this.slots = new PQueue({ concurrency: Math.max(1, options.concurrency ?? 4) });
    const rate = Math.max(0.01, options.ratePerSecond ?? 10);
    this.turns = new PQueue({ intervalCap: 1, interval: Math.max(1, Math.round(1000 / rate)), strict: true });
    this.maxAttempts = Math.max(1, options.maxAttempts ?? 6);
    this.baseDelayMs = options.baseDelayMs ?? 500;
    this.maxDelayMs = options.maxDelayMs ?? 30_000;
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.sleep = options.sleep ?? ((ms) => wait(ms));
    this.random = options.random ?? Math.random;
  }

  async get<T = unknown>(path: string, query?: Record<string, QueryValue>): Promise<T> {
    const answer = await this.send(this.urlOf(path, query), path, { method: 'GET' }, 'api');
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
    const answer = await this.send(target, `${target.origin}${target.pathname}`, { method: 'GET' }, 'download');
    return { bytes: answer.body, contentType: answer.headers.get('content-type') };
  }

  /** A POST to the source (the login); not retried on 4xx like any other request. */
  async post<T = unknown>(path: string, body: unknown): Promise<T> {
    const init = { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } };
    const answer = await this.send(this.urlOf(path), path, init, 'api');
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
  private send(url: URL, label: string, init: RequestInit, purpose: Purpose): Promise<RawAnswer> {
    return pRetry((attempt) => this.tryOnce(url, label, init, purpose, attempt), {
      retries: this.maxAttempts - 1,
      // The waits are ours (Retry-After, or the jittered backoff below), taken in onFailedAttempt.
      minTimeout: 0,
      maxTimeout: 0,
      onFailedAttempt: async ({ error, attemptNumber }) => {
        const retryAfter = error instanceof RetryableFailure ? error.retryAfterMs : undefined;
        this.stats.retries += 1;
        if (retryAfter === undefined) return this.sleep(this.backoffMs(attemptNumber));
        // A 429's Retry-After holds back every request, not only this one.
        this.pauses += 1;
        this.turns.pause();
        try {
          await this.sleep(retryAfter);
        } finally {
          this.pauses -= 1;
          if (this.pauses === 0) this.turns.start();
        }
      },
    });
  }

  /** One attempt: a 2xx answer, a RetryableFailure, or an AbortError holding the SourceError. */
  private async tryOnce(url: URL, label: string, init: RequestInit, purpose: Purpose, attempt: number) {
    let answer: RawAnswer | undefined;
    let failure: string;
    try {
      answer = await this.slots.add(() => this.attempt(url, label, init, purpose));
      if (answer.status >= 200 && answer.status < 300) return answer;
      failure = `${answer.status} ${errorMessageOf(answer)}`;
    } catch (error) {
      if (error instanceof SourceError) throw new AbortError(error);
      if (error instanceof DownloadRefusedError) throw new AbortError(new SourceError(0, label, error.message));
      failure = `network error: ${(error as Error).message}`;
    }
    const tries = attempt > 1 ? ` after ${attempt} attempts` : '';
    const sourceError = new SourceError(answer?.status ?? 0, label, `${init.method} ${label}: ${failure}${tries}`);
    const retryable = answer === undefined || answer.status === 429 || answer.status >= 500;
    if (!retryable || attempt >= this.maxAttempts) throw new AbortError(sourceError);
    const retryAfter = answer?.status === 429 ? retryAfterMs(answer.headers.get('retry-after')) : undefined;
    throw new RetryableFailure(sourceError.message, retryAfter);
  }

  /** Exponential backoff with jitter: half fixed, half random, so retrying clients spread out. */
  private backoffMs(attempt: number): number {
    const ceiling = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** (attempt - 1));
    return Math.round(ceiling / 2 + (ceiling / 2) * this.random());
  }

  /**
   * One attempt, redirects followed by hand (at most MAX_REDIRECTS). An API request never leaves
   * the source's origin: a redirect elsewhere would hand the token, or a login's email and
   * password, to a host the operator did not name, so it fails the request (not retried).
   */
  private async attempt(url: URL, label: string, init: RequestInit, purpose: Purpose): Promise<RawAnswer> {
    let target = url;
    for (let hop = 0; ; hop += 1) {
      await this.turns.add(() => undefined);
      this.stats.requests += 1;
      const answer = await this.hop(target, init, purpose);
      const location = answer.headers.get('location');
      if (answer.status < 300 || answer.status >= 400 || !location || hop >= MAX_REDIRECTS) {
        this.stats.bytes += answer.body.length;
        return answer;
      }
      const next = new URL(location, target);
      if (purpose === 'api' && next.origin !== this.base.origin) {
        throw new SourceError(
          answer.status,
          label,
          `${init.method} ${label}: the source redirected (${answer.status}) to ${next.origin}; a request ` +
            `carrying credentials is never followed off ${this.base.origin} (give --from the site's own address)`,
        );
      }
      target = next;
    }
  }

  /** One request, no redirect followed: the token only to the source's origin; other download hosts vetted. */
  private async hop(target: URL, init: RequestInit, purpose: Purpose): Promise<RawAnswer> {
    const headers = new Headers(init.headers);
    const signal = AbortSignal.timeout(this.timeoutMs);
    if (target.origin === this.base.origin) {
      if (this.options.token) headers.set('authorization', `api ${this.options.token}`);
    } else if (purpose === 'download') {
      if (target.protocol !== 'http:' && target.protocol !== 'https:') {
        throw new DownloadRefusedError(target, `${target.protocol} is not http or https`);
      }
      const pinned = await vetDownloadHost(target, this.options.allowHosts ?? [], this.options.resolve);
      if (pinned) return pinnedGet(target, pinned, headers, signal);
    }
    const response = await fetch(target, { ...init, headers, redirect: 'manual', signal });
    return { status: response.status, headers: response.headers, body: Buffer.from(await response.arrayBuffer()) };
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

/** A failed attempt worth another: p-retry calls onFailedAttempt with it. */
class RetryableFailure extends Error {
  constructor(
    message: string,
    readonly retryAfterMs: number | undefined,
  ) {
    super(message);
    this.name = 'RetryableFailure';
  }
}
