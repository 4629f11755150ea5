/**
 * The SSRF-safe request behind the OpenID provider's fetches (shared/net/safe-request.ts),
 * against a real HTTP server on 127.0.0.1: the vetting, the body both ways, redirects handed
 * back unfollowed, the size cap and the time limit.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FetchRefusedError } from '../../shared/net/safe-fetch.ts';
import { safeRequest, type SafeRequestOptions } from '../../shared/net/safe-request.ts';

let server: http.Server;
let base: string;

beforeAll(async () => {
  server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url!, 'http://x');
    if (url.pathname === '/echo') {
      res.writeHead(200, { 'content-type': 'application/json', 'x-seen-agent': req.headers['user-agent'] ?? '' });
      return res.end(JSON.stringify({ method: req.method, body: Buffer.concat(chunks).toString('utf8') }));
    }
    if (url.pathname === '/redirect') {
      res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' });
      return res.end();
    }
    if (url.pathname === '/big') return res.end(Buffer.alloc(5000));
    if (url.pathname === '/slow') return;
    res.writeHead(404);
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const options = (overrides: Partial<SafeRequestOptions> = {}): SafeRequestOptions => ({
  method: 'GET',
  headers: {},
  allowHosts: ['127.0.0.1'],
  maxBytes: 1000,
  timeoutMs: 2000,
  userAgent: 'Stepwise test',
  ...overrides,
});

async function refusal(promise: Promise<Response>): Promise<FetchRefusedError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof FetchRefusedError) return error;
    throw error;
  }
  throw new Error('expected the request to be refused');
}

describe('safeRequest', () => {
  it('refuses loopback unless allow-listed, and a name that resolves to a private address', async () => {
    expect((await refusal(safeRequest(`${base}/echo`, options({ allowHosts: [] })))).code).toBe('url_not_allowed');
    const named = options({ allowHosts: [], resolve: async () => [{ address: '10.0.0.7', family: 4 }] });
    expect((await refusal(safeRequest('https://issuer.example.com/.well-known/x', named))).code).toBe('fetch_failed');
  });

  it('sends the method, body and its own user agent, and answers a Fetch API Response', async () => {
    const answer = await safeRequest(
      `${base}/echo`,
      options({ method: 'POST', body: 'grant_type=authorization_code', headers: { 'user-agent': 'library/1' } }),
    );
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-seen-agent')).toBe('Stepwise test');
    expect(await answer.json()).toEqual({ method: 'POST', body: 'grant_type=authorization_code' });
  });

  it('hands a redirect back unfollowed (to the metadata address here)', async () => {
    const answer = await safeRequest(`${base}/redirect`, options());
    expect(answer.status).toBe(302);
    expect(answer.headers.get('location')).toBe('http://169.254.169.254/latest/meta-data/');
  });

  it('refuses an answer past maxBytes and one that takes too long', async () => {
    expect((await refusal(safeRequest(`${base}/big`, options()))).code).toBe('download_too_large');
    expect((await refusal(safeRequest(`${base}/slow`, options({ timeoutMs: 150 })))).code).toBe('fetch_timeout');
  });
});
