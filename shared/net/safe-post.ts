/**
 * A POST to a user-supplied URL (webhook deliveries), with the same SSRF rules as safe-fetch:
 * the host is vetted (vetUrl: http/https only, every resolved address public unless
 * allow-listed) and the connection goes to the vetted address itself. Redirects are not
 * followed (a 3xx is an answer like any other non-2xx), the answer's body is read up to a
 * small cap and dropped, and the whole exchange is bounded by `timeoutMs`.
 */
import http from 'node:http';
import https from 'node:https';
import { FetchRefusedError, parseFetchUrl, pinnedLookup, vetUrl, type SafeFetchOptions } from './safe-fetch.ts';

const MAX_ANSWER_BYTES = 64 * 1024;

export interface PostOptions extends Pick<SafeFetchOptions, 'allowHosts' | 'resolve'> {
  timeoutMs: number;
  headers: Record<string, string>;
}

/** POSTs `body`; resolves with the answer's status, or throws FetchRefusedError (refused URL, no answer, timeout). */
export async function safePost(rawUrl: string, body: string, options: PostOptions): Promise<number> {
  const url = parseFetchUrl(rawUrl);
  const target = await vetUrl(url, options);
  const signal = AbortSignal.timeout(options.timeoutMs);
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.request(url, {
      method: 'POST',
      agent: false,
      lookup: pinnedLookup(target.address, target.family),
      signal,
      headers: {
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
        ...options.headers,
      },
    });
    request.on('response', (response) => {
      let received = 0;
      response.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > MAX_ANSWER_BYTES) response.destroy();
      });
      response.on('close', () => resolve(response.statusCode ?? 0));
      response.on('error', () => resolve(response.statusCode ?? 0));
    });
    request.on('error', (error) =>
      reject(
        signal.aborted
          ? new FetchRefusedError('fetch_timeout', `${url.host} did not answer in time`)
          : new FetchRefusedError('fetch_failed', `Could not reach ${url.host}: ${error.message}`),
      ),
    );
    request.end(body);
  });
}
