/**
 * A GET of a user-supplied URL from inside the service (SSRF-safe):
 * - http and https only;
 * - the host is resolved here (every address), and any private, loopback, link-local,
 *   unique-local, metadata or otherwise non-public address refuses the URL, unless the host is
 *   allow-listed (STEPWISE_FETCH_ALLOW_HOSTS, for tests);
 * - the connection goes to the vetted address itself (no second DNS lookup a rebinding
 *   attacker could answer differently); TLS still verifies the certificate for the host name;
 * - redirects are followed by hand, each hop vetted the same way;
 * - size (Content-Length and bytes actually read) and total time are capped;
 * - a refusal says only "not allowed" or "could not be fetched" (FetchRefusedError); the detail
 *   is logged.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { Transform, type Readable } from 'node:stream';
import { forbiddenAddressReason, isAllowListed } from '../domain/address-policy.ts';
import { log } from '../observability/logger.ts';

export type FetchRefusalCode = 'url_not_allowed' | 'fetch_failed' | 'fetch_timeout' | 'download_too_large';

/**
 * What a refusal tells the caller, and through it the importer: nothing about the network.
 * `url_not_allowed` is decided from the URL's own text (scheme, a literal forbidden address);
 * everything that depends on name resolution or on the server, including a name that resolves
 * to a forbidden address, "could not be fetched", so answers cannot tell an internal name from
 * one that does not exist. The detail goes to the log only.
 */
export const NOT_ALLOWED_MESSAGE = 'The URL is not allowed';
export const NOT_FETCHED_MESSAGE = 'The URL could not be fetched';

export class FetchRefusedError extends Error {
  constructor(
    readonly code: FetchRefusalCode,
    /** For the operator's log, never for the answer: may name hosts, addresses and resolver errors. */
    readonly detail: string,
  ) {
    super(code === 'url_not_allowed' ? NOT_ALLOWED_MESSAGE : NOT_FETCHED_MESSAGE);
    this.name = 'FetchRefusedError';
  }
}

/** A refusal, logged with its detail. */
function refused(code: FetchRefusalCode, detail: string): FetchRefusedError {
  log().warn('URL fetch refused', { code, detail });
  return new FetchRefusedError(code, detail);
}

export interface SafeFetchOptions {
  allowHosts: string[];
  maxBytes: number;
  timeoutMs: number;
  maxRedirects?: number;
  /** Name resolution (every address of the host); tests may stand in for DNS. */
  resolve?: (hostname: string) => Promise<Array<{ address: string; family: number }>>;
}

export interface FetchedBody {
  body: Readable;
  contentLength: number | undefined;
  contentType: string | undefined;
  finalUrl: string;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

const defaultResolve = (hostname: string) => dnsLookup(hostname, { all: true, verbatim: true });

/** Where a URL may be fetched from: its address, vetted; throws a FetchRefusedError otherwise. */
export async function vetUrl(
  url: URL,
  options: Pick<SafeFetchOptions, 'allowHosts' | 'resolve'>,
): Promise<{ address: string; family: number }> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw refused('url_not_allowed', `Only http and https URLs can be fetched, not ${url.protocol}`);
  }
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  const allowListed = isAllowListed(hostname, port, options.allowHosts);
  if (isIP(hostname)) {
    const reason = allowListed ? undefined : forbiddenAddressReason(hostname);
    if (reason) throw refused('url_not_allowed', `${url.host} may not be fetched: ${reason}`);
    return { address: hostname, family: isIP(hostname) };
  }
  let addresses: Array<{ address: string; family: number }>;
  try {
    addresses = await (options.resolve ?? defaultResolve)(hostname);
  } catch (error) {
    throw refused('fetch_failed', `${hostname} could not be resolved: ${(error as Error).message}`);
  }
  if (addresses.length === 0) throw refused('fetch_failed', `${hostname} has no addresses`);
  if (!allowListed) {
    // Every address must be public: a name with one private address could be steered to it.
    // Answered like an unresolvable name (fetch_failed), so importers cannot map internal names.
    for (const { address } of addresses) {
      const reason = forbiddenAddressReason(address);
      if (reason)
        throw refused('fetch_failed', `${url.host} resolves to ${address}, which may not be fetched: ${reason}`);
    }
  }
  return addresses[0]!;
}

/** A lookup that answers the vetted address only, whatever the host name. */
export function pinnedLookup(address: string, family: number): LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  }) as unknown as LookupFunction;
}

/** The URL a caller named, or url_not_allowed when it is not one. */
export function parseFetchUrl(rawUrl: string): URL {
  try {
    return new URL(rawUrl);
  } catch {
    throw refused('url_not_allowed', `Not a URL: ${rawUrl}`);
  }
}

/** GETs the URL; the body stream fails with download_too_large past maxBytes. */
export async function safeFetch(rawUrl: string, options: SafeFetchOptions): Promise<FetchedBody> {
  const signal = AbortSignal.timeout(options.timeoutMs);
  let url = parseFetchUrl(rawUrl);
  const maxRedirects = options.maxRedirects ?? 5;
  for (let hop = 0; ; hop++) {
    const target = await vetUrl(url, options);
    const response = await get(url, target, signal);
    const status = response.statusCode ?? 0;
    if (REDIRECTS.has(status) && response.headers.location) {
      response.resume();
      if (hop >= maxRedirects) throw refused('fetch_failed', `More than ${maxRedirects} redirects`);
      try {
        url = new URL(response.headers.location, url);
      } catch {
        throw refused('fetch_failed', `${url.host} redirected to an invalid location`);
      }
      continue;
    }
    if (status < 200 || status > 299) {
      response.resume();
      throw refused('fetch_failed', `${url.host} answered HTTP ${status}`);
    }
    const declared = response.headers['content-length'] ? Number(response.headers['content-length']) : undefined;
    if (declared !== undefined && declared > options.maxBytes) {
      response.destroy();
      throw refused('download_too_large', `The file is ${declared} bytes; at most ${options.maxBytes} are accepted`);
    }
    return {
      body: capped(response, options.maxBytes, signal),
      contentLength: declared,
      contentType: response.headers['content-type'],
      finalUrl: url.toString(),
    };
  }
}

function get(
  url: URL,
  target: { address: string; family: number },
  signal: AbortSignal,
): Promise<http.IncomingMessage> {
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.get(url, {
      // A fresh connection to the vetted address: no pooled socket from another resolution.
      agent: false,
      lookup: pinnedLookup(target.address, target.family),
      signal,
      headers: { 'user-agent': 'Stepwise module import', accept: '*/*' },
    });
    request.once('response', resolve);
    // `on`, not `once`: an abort while the body streams errors the request again, and an
    // unheard 'error' would take the whole process down.
    request.on('error', (error) => reject(fetchError(error, signal, url)));
  });
}

function fetchError(error: Error, signal: AbortSignal, url: URL): FetchRefusedError {
  if (signal.aborted) return refused('fetch_timeout', `${url.host} did not deliver the file in time`);
  return refused('fetch_failed', `Could not fetch from ${url.host}: ${error.message}`);
}

/** The response body, failing once more than maxBytes arrived (a lying or absent Content-Length). */
function capped(response: http.IncomingMessage, maxBytes: number, signal: AbortSignal): Readable {
  let received = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      received += chunk.length;
      if (received > maxBytes) {
        callback(refused('download_too_large', `The file is more than ${maxBytes} bytes`));
        response.destroy();
        return;
      }
      callback(null, chunk);
    },
  });
  // Once over the cap, the counter has failed with download_too_large; the response's own
  // end (destroyed by us) must not replace that reason.
  const overCap = () => received > maxBytes;
  response.on('error', (error) => {
    if (!overCap())
      counter.destroy(
        signal.aborted
          ? refused('fetch_timeout', 'The download took too long')
          : refused('fetch_failed', `The download failed: ${error.message}`),
      );
  });
  response.once('aborted', () => {
    if (!overCap()) counter.destroy(refused('fetch_failed', 'The connection closed before the file was complete'));
  });
  return response.pipe(counter);
}
