/** The SSRF-safe fetch against a real HTTP server on 127.0.0.1 (name resolution stubbed where a test needs a name). */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { text } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FetchRefusedError,
  NOT_ALLOWED_MESSAGE,
  NOT_FETCHED_MESSAGE,
  safeFetch,
  type SafeFetchOptions,
} from '../../shared/net/safe-fetch.ts';

let server: http.Server;
let port: number;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const url = new URL(req.url!, 'http://x');
    if (url.pathname === '/package.zip') return res.end('PK-package-bytes');
    if (url.pathname === '/redirect') {
      res.writeHead(302, { location: url.searchParams.get('to')! });
      return res.end();
    }
    if (url.pathname === '/big') {
      res.writeHead(200, { 'content-length': '1000' });
      return res.end(Buffer.alloc(1000));
    }
    if (url.pathname === '/chunked') {
      res.write(Buffer.alloc(600));
      return res.end(Buffer.alloc(600));
    }
    if (url.pathname === '/slow') return; // never answers
    res.writeHead(404);
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const options = (overrides: Partial<SafeFetchOptions> = {}): SafeFetchOptions => ({
  allowHosts: [],
  maxBytes: 10_000,
  timeoutMs: 2000,
  ...overrides,
});

async function refusal(promise: Promise<unknown>): Promise<FetchRefusedError> {
  try {
    const result = (await promise) as { body?: NodeJS.ReadableStream };
    if (result?.body) await text(result.body);
  } catch (error) {
    if (error instanceof FetchRefusedError) return error;
    throw error;
  }
  throw new Error('expected the fetch to be refused');
}

describe('safeFetch', () => {
  it('refuses a loopback URL without the allow-list, and fetches the same URL with it', async () => {
    const url = `http://127.0.0.1:${port}/package.zip`;
    const refused = await refusal(safeFetch(url, options()));
    expect(refused.code).toBe('url_not_allowed');
    expect(refused.message).toBe(NOT_ALLOWED_MESSAGE);
    expect(refused.detail).toContain('loopback');

    const fetched = await safeFetch(url, options({ allowHosts: ['127.0.0.1'] }));
    expect(await text(fetched.body)).toBe('PK-package-bytes');
  });

  it('refuses a name when any of its addresses is private, link-local or metadata, answering as for a name that does not resolve', async () => {
    const resolveTo =
      (...addresses: string[]) =>
      async () =>
        addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    const unresolvable = await refusal(
      safeFetch(
        'http://packages.example.com/p.zip',
        options({ resolve: async () => Promise.reject(new Error('getaddrinfo ENOTFOUND packages.example.com')) }),
      ),
    );
    expect({ code: unresolvable.code, message: unresolvable.message }).toEqual({
      code: 'fetch_failed',
      message: NOT_FETCHED_MESSAGE,
    });
    for (const addresses of [
      ['10.0.0.5'],
      ['93.184.216.34', '127.0.0.1'],
      ['169.254.169.254'],
      ['fd00:ec2::254'],
      ['::ffff:192.168.1.1'],
    ]) {
      const refused = await refusal(
        safeFetch('http://packages.example.com/p.zip', options({ resolve: resolveTo(...addresses) })),
      );
      expect({ code: refused.code, message: refused.message }, addresses.join()).toEqual({
        code: unresolvable.code,
        message: unresolvable.message,
      });
      expect(refused.detail).toContain(addresses.at(-1));
    }
  });

  it('connects to the vetted address itself: the name is never resolved again', async () => {
    let lookups = 0;
    const resolve = async () => {
      lookups++;
      return [{ address: '127.0.0.1', family: 4 }];
    };
    // "pkg.invalid" does not exist in DNS: only the pinned address can reach the server.
    const fetched = await safeFetch(
      `http://pkg.invalid:${port}/package.zip`,
      options({ allowHosts: ['pkg.invalid'], resolve }),
    );
    expect(await text(fetched.body)).toBe('PK-package-bytes');
    expect(lookups).toBe(1);
  });

  it('checks every redirect hop', async () => {
    const allowed = options({ allowHosts: [`127.0.0.1:${port}`] });
    const toMetadata = await refusal(
      safeFetch(
        `http://127.0.0.1:${port}/redirect?to=${encodeURIComponent('http://169.254.169.254/latest/meta-data/')}`,
        allowed,
      ),
    );
    expect(toMetadata.code).toBe('url_not_allowed');
    expect(toMetadata.message).toBe(NOT_ALLOWED_MESSAGE);
    expect(toMetadata.detail).toContain('169.254.169.254');
    const toOtherPort = await refusal(
      safeFetch(`http://127.0.0.1:${port}/redirect?to=${encodeURIComponent('http://127.0.0.1:1/')}`, allowed),
    );
    expect(toOtherPort.code).toBe('url_not_allowed');
    const followed = await safeFetch(`http://127.0.0.1:${port}/redirect?to=/package.zip`, allowed);
    expect(await text(followed.body)).toBe('PK-package-bytes');
    expect(followed.finalUrl).toBe(`http://127.0.0.1:${port}/package.zip`);
  });

  it('caps size (declared and actual) and time, and takes http(s) only', async () => {
    const small = options({ allowHosts: ['127.0.0.1'], maxBytes: 800 });
    expect((await refusal(safeFetch(`http://127.0.0.1:${port}/big`, small))).code).toBe('download_too_large');
    expect((await refusal(safeFetch(`http://127.0.0.1:${port}/chunked`, small))).code).toBe('download_too_large');
    expect((await refusal(safeFetch(`http://127.0.0.1:${port}/slow`, { ...small, timeoutMs: 150 }))).code).toBe(
      'fetch_timeout',
    );
    const missing = await refusal(safeFetch(`http://127.0.0.1:${port}/missing`, small));
    expect({ code: missing.code, message: missing.message }).toEqual({
      code: 'fetch_failed',
      message: NOT_FETCHED_MESSAGE,
    });
    expect(missing.detail).toContain('404');
    expect((await refusal(safeFetch('ftp://example.com/p.zip', small))).code).toBe('url_not_allowed');
    expect((await refusal(safeFetch('file:///etc/passwd', small))).code).toBe('url_not_allowed');
  });
});
