/**
 * One HTTP exchange with a server an Admin named (an OpenID provider's discovery document,
 * JWKS and token endpoint), under the SSRF rules of safe-fetch: the host is vetted (vetUrl) and
 * the connection goes to the vetted address itself. Redirects are not followed (the caller sees
 * the 3xx), the answer is read up to `maxBytes` and the exchange is bounded by `timeoutMs`.
 * Answers a Fetch API Response, so libraries that take a custom fetch can use it.
 */
import http from 'node:http';
import https from 'node:https';
import { FetchRefusedError, parseFetchUrl, pinnedLookup, vetUrl, type SafeFetchOptions } from './safe-fetch.ts';

export interface SafeRequestOptions extends Pick<SafeFetchOptions, 'allowHosts' | 'resolve'> {
  method: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  timeoutMs: number;
  maxBytes: number;
  signal?: AbortSignal;
  userAgent: string;
}

export async function safeRequest(rawUrl: string, options: SafeRequestOptions): Promise<Response> {
  const url = parseFetchUrl(rawUrl);
  const target = await vetUrl(url, options);
  const signal = options.signal
    ? AbortSignal.any([options.signal, AbortSignal.timeout(options.timeoutMs)])
    : AbortSignal.timeout(options.timeoutMs);
  const client = url.protocol === 'https:' ? https : http;
  const body = options.body === undefined ? undefined : Buffer.from(options.body);
  return new Promise((resolve, reject) => {
    const failed = (detail: string) =>
      reject(
        signal.aborted
          ? new FetchRefusedError('fetch_timeout', `${url.host} did not answer in time`)
          : new FetchRefusedError('fetch_failed', detail),
      );
    const request = client.request(url, {
      method: options.method,
      agent: false,
      lookup: pinnedLookup(target.address, target.family),
      signal,
      headers: {
        ...options.headers,
        'user-agent': options.userAgent,
        ...(body ? { 'content-length': String(body.length) } : {}),
      },
    });
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      let received = 0;
      response.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > options.maxBytes) {
          response.destroy();
          reject(
            new FetchRefusedError('download_too_large', `${url.host} answered more than ${options.maxBytes} bytes`),
          );
          return;
        }
        chunks.push(chunk);
      });
      response.on('end', () => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(response.headers)) {
          if (value === undefined) continue;
          for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
        }
        const status = response.statusCode ?? 502;
        const nullBody = status === 204 || status === 304;
        resolve(new Response(nullBody ? null : Buffer.concat(chunks), { status, headers }));
      });
      response.on('error', (error) => failed(`The answer of ${url.host} broke off: ${error.message}`));
    });
    request.on('error', (error) => failed(`Could not reach ${url.host}: ${error.message}`));
    request.end(body);
  });
}
