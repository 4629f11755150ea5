/**
 * A GET of a user-supplied URL from inside the service (SSRF-safe):
 * - http and https only;
 * - the host is resolved here (every address), and any private, loopback, link-local,
 *   unique-local, metadata or otherwise non-public address refuses the URL, unless the host is
 *   allow-listed (STEPWISE_FETCH_ALLOW_HOSTS, for tests);
 * - the connection goes to the vetted address itself (no second DNS lookup a rebinding
 *   attacker could answer differently); TLS still verifies the certificate for the host name;
 * - redirects are followed by hand, each hop vetted the same way;
 * - size (Content-Length and bytes actually read) and total time are capped.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { Transform, type Readable } from 'node:stream';
import { forbiddenAddressReason, isAllowListed } from '../domain/address-policy.ts';

export type FetchRefusalCode = 'url_not_allowed' | 'fetch_failed' | 'fetch_timeout' | 'download_too_large';

export class FetchRefusedError extends Error {
  constructor(
    readonly code: FetchRefusalCode,
    message: string,
  ) {
    super(message);
    this.name = 'FetchRefusedError';
  }
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

/** Where a URL may be fetched from: its address, vetted; throws url_not_allowed otherwise. */
export async function vetUrl(url: URL, options: Pick<SafeFetchOptions, 'allowHosts' | 'resolve'>): Promise<{ address: string; family: number }> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new FetchRefusedError('url_not_allowed', `Only http and https URLs can be fetched, not ${url.protocol}`);
  }
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  const allowListed = isAllowListed(hostname, port, options.allowHosts);
  let addresses: Array<{ address: string; family: number }>;
  if (isIP(hostname)) {
    addresses = [{ address: hostname, family: isIP(hostname) }];
  } else {
    try {
      addresses = await (options.resolve ?? defaultResolve)(hostname);
    } catch (error) {
      throw new FetchRefusedError('fetch_failed', `${hostname} could not be resolved: ${(error as Error).message}`);
    }
    if (addresses.length === 0) throw new FetchRefusedError('fetch_failed', `${hostname} has no addresses`);
  }
  if (!allowListed) {
    // Every address must be public: a name with one private address could be steered to it.
    for (const { address } of addresses) {
      const reason = forbiddenAddressReason(address);
      if (reason) throw new FetchRefusedError('url_not_allowed', `${url.host} may not be fetched: ${reason}`);
    }
  }
  return addresses[0]!;
}

/** A lookup that answers the vetted address only, whatever the host name. */
function pinnedLookup(address: string, family: number): LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  }) as unknown as LookupFunction;
}

/** GETs the URL; the body stream fails with download_too_large past maxBytes. */
export async function safeFetch(rawUrl: string, options: SafeFetchOptions): Promise<FetchedBody> {
  const signal = AbortSignal.timeout(options.timeoutMs);
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new FetchRefusedError('url_not_allowed', `Not a URL: ${rawUrl}`);
  }
  const maxRedirects = options.maxRedirects ?? 5;
  for (let hop = 0; ; hop++) {
    const target = await vetUrl(url, options);
    const response = await get(url, target, signal);
    const status = response.statusCode ?? 0;
    if (REDIRECTS.has(status) && response.headers.location) {
      response.resume();
      if (hop >= maxRedirects) throw new FetchRefusedError('fetch_failed', `More than ${maxRedirects} redirects`);
      url = new URL(response.headers.location, url);
      continue;
    }
    if (status < 200 || status > 299) {
      response.resume();
      throw new FetchRefusedError('fetch_failed', `${url.host} answered HTTP ${status}`);
    }
    const declared = response.headers['content-length'] ? Number(response.headers['content-length']) : undefined;
    if (declared !== undefined && declared > options.maxBytes) {
      response.destroy();
      throw new FetchRefusedError('download_too_large', `The file is ${declared} bytes; at most ${options.maxBytes} are accepted`);
    }
    return { body: capped(response, options.maxBytes, signal), contentLength: declared, contentType: response.headers['content-type'], finalUrl: url.toString() };
  }
}

function get(url: URL, target: { address: string; family: number }, signal: AbortSignal): Promise<http.IncomingMessage> {
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
  if (signal.aborted) return new FetchRefusedError('fetch_timeout', `${url.host} did not deliver the file in time`);
  return new FetchRefusedError('fetch_failed', `Could not fetch from ${url.host}: ${error.message}`);
}

/** The response body, failing once more than maxBytes arrived (a lying or absent Content-Length). */
function capped(response: http.IncomingMessage, maxBytes: number, signal: AbortSignal): Readable {
  let received = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      received += chunk.length;
      if (received > maxBytes) {
        callback(new FetchRefusedError('download_too_large', `The file is more than ${maxBytes} bytes`));
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
    if (!overCap()) counter.destroy(signal.aborted ? new FetchRefusedError('fetch_timeout', 'The download took too long') : error);
  });
  response.once('aborted', () => {
    if (!overCap()) counter.destroy(new FetchRefusedError('fetch_failed', 'The connection closed before the file was complete'));
  });
  return response.pipe(counter);
}
