/** The migration's source client against a local fake server: retries, limits, paging, tokens. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SourceError } from '../../infra/ops/migrate/crawl.ts';
import { signIn } from '../../infra/ops/migrate/sign-in.ts';
import { HttpSourceClient, retryAfterMs } from '../../infra/ops/migrate/source-client.ts';

type Handler = (request: http.IncomingMessage, response: http.ServerResponse) => void;

/** A server whose answers each test scripts; it counts requests and the most in flight at once. */
async function fakeServer() {
  let handler: Handler = (_request, response) => response.end();
  const seen: Array<{ url: string; authorization: string | undefined }> = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const server = http.createServer((request, response) => {
    seen.push({ url: request.url!, authorization: request.headers.authorization });
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    // Counted out when the answer starts, before the client can see it and send the next one.
    const end = response.end.bind(response);
    response.end = ((...args: Parameters<typeof end>) => {
      inFlight -= 1;
      return end(...args);
    }) as typeof response.end;
    handler(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    maxInFlight: () => maxInFlight,
    answer(next: Handler) {
      handler = next;
      seen.length = 0;
      maxInFlight = 0;
      inFlight = 0;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function json(response: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

let source: Awaited<ReturnType<typeof fakeServer>>;
let other: Awaited<ReturnType<typeof fakeServer>>;
beforeAll(async () => {
  source = await fakeServer();
  // Another origin: the host a presigned media URL would point at.
  other = await fakeServer();
});
afterAll(async () => {
  await source.close();
  await other.close();
});

function client(
  options: {
    maxAttempts?: number;
    concurrency?: number;
    sleeps?: number[];
    rate?: number;
    sleep?: (ms: number) => Promise<void>;
    allowHosts?: string[];
  } = {},
) {
  return new HttpSourceClient({
    baseUrl: `${source.url}/api/2.0`,
    token: 'source-token',
    allowHosts: options.allowHosts,
    ratePerSecond: options.rate ?? 1000,
    concurrency: options.concurrency ?? 4,
    maxAttempts: options.maxAttempts ?? 5,
    baseDelayMs: 100,
    random: () => 0.5,
    sleep:
      options.sleep ??
      (async (ms) => {
        options.sleeps?.push(ms);
      }),
  });
}

describe('source client retries', () => {
  it('waits out a 429 for its Retry-After, backs off after a 503, and succeeds', async () => {
    const script = [
      (response: http.ServerResponse) => json(response, 429, { message: 'Slow down' }, { 'retry-after': '2' }),
      (response: http.ServerResponse) => json(response, 503, { message: 'Unavailable' }),
      (response: http.ServerResponse) => json(response, 200, { guideid: 7 }),
    ];
    source.answer((_request, response) => script.shift()!(response));
    const sleeps: number[] = [];
    const api = client({ sleeps });
    await expect(api.get('guides/7')).resolves.toEqual({ guideid: 7 });
    expect(source.seen.map((request) => request.url)).toEqual(Array(3).fill('/api/2.0/guides/7'));
    // Retry-After: 2 → 2000 ms; then the second attempt's backoff: 200 ms ceiling, half fixed + half jitter.
    expect(sleeps).toEqual([2000, 150]);
    expect(api.stats.retries).toBe(2);
  });

  it('retries a network error (the connection dropped)', async () => {
    let calls = 0;
    source.answer((_request, response) => {
      calls += 1;
      if (calls === 1) response.socket?.destroy();
      else json(response, 200, []);
    });
    await expect(client().get('users')).resolves.toEqual([]);
    expect(calls).toBe(2);
  });

  it('gives up on a permanent 500 after maxAttempts with a SourceError', async () => {
    source.answer((_request, response) => json(response, 500, { message: 'Broken' }));
    const failure = await client({ maxAttempts: 3 })
      .get('guides/1')
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(SourceError);
    expect(failure).toMatchObject({ status: 500, path: 'guides/1' });
    expect((failure as Error).message).toContain('Broken');
    expect((failure as Error).message).toContain('after 3 attempts');
    expect(source.seen).toHaveLength(3);
  });

  it('does not retry a 401', async () => {
    source.answer((_request, response) => json(response, 401, { message: 'Invalid login' }));
    await expect(client().get('user')).rejects.toMatchObject({ status: 401 });
    expect(source.seen).toHaveLength(1);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs('3', now)).toBe(3000);
    expect(retryAfterMs('Thu, 01 Jan 2026 00:00:05 GMT', now)).toBe(5000);
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs(null, now)).toBeUndefined();
  });
});

describe('source client reads', () => {
  it('find answers undefined for 403 and 404 and throws for other failures', async () => {
    source.answer((request, response) => {
      if (request.url!.endsWith('/hidden')) json(response, 403, { message: 'Forbidden' });
      else if (request.url!.endsWith('/gone')) json(response, 404, { message: 'Not found' });
      else json(response, 422, { message: 'Bad' });
    });
    const api = client();
    await expect(api.find('guides/hidden')).resolves.toBeUndefined();
    await expect(api.find('guides/gone')).resolves.toBeUndefined();
    await expect(api.find('guides/bad')).rejects.toMatchObject({ status: 422 });
  });

  it('pages walks offset/limit until a short page, with the query kept', async () => {
    const all = Array.from({ length: 250 }, (_, index) => ({ id: index + 1 }));
    source.answer((request, response) => {
      const url = new URL(request.url!, source.url);
      const offset = Number(url.searchParams.get('offset'));
      const limit = Number(url.searchParams.get('limit'));
      json(response, 200, { items: all.slice(offset, offset + limit), order: url.searchParams.get('order') });
    });
    const pages: number[][] = [];
    for await (const page of client().pages<{ id: number }>('things', {
      query: { order: 'ASC' },
      pageSize: 100,
      itemsOf: (body) => (body as { items: { id: number }[] }).items,
    })) {
      pages.push(page.map((item) => item.id));
    }
    expect(pages.map((page) => page.length)).toEqual([100, 100, 50]);
    expect(pages.flat()).toEqual(all.map((item) => item.id));
    expect(source.seen.map((request) => request.url)).toEqual([
      '/api/2.0/things?order=ASC&offset=0&limit=100',
      '/api/2.0/things?order=ASC&offset=100&limit=100',
      '/api/2.0/things?order=ASC&offset=200&limit=100',
    ]);
  });

  it('sends the token to the source origin only, also across a redirect', async () => {
    other.answer((_request, response) => {
      response.writeHead(200, { 'content-type': 'image/png' });
      response.end(Buffer.from([1, 2, 3]));
    });
    source.answer((_request, response) => {
      response.writeHead(302, { location: `${other.url}/bucket/key.png?signature=abc` });
      response.end();
    });
    // The other server is on loopback: the operator allows it, as they would the source's S3 emulator.
    const api = client({ allowHosts: [new URL(other.url).host] });
    const direct = await api.download(`${other.url}/bucket/direct.png`);
    expect([...direct.bytes]).toEqual([1, 2, 3]);
    expect(direct.contentType).toBe('image/png');
    const redirected = await api.download(`${source.url}/api/2.0/media/5/original`);
    expect([...redirected.bytes]).toEqual([1, 2, 3]);
    expect(source.seen.map((request) => request.authorization)).toEqual(['api source-token']);
    expect(other.seen.map((request) => request.authorization)).toEqual([undefined, undefined]);
  });

  it('starts at most `rate` requests per second', async () => {
    source.answer((_request, response) => json(response, 200, {}));
    const api = client({ rate: 20, concurrency: 10 });
    const started = performance.now();
    await Promise.all(Array.from({ length: 9 }, (_, index) => api.get(`guides/${index}`)));
    expect(source.seen).toHaveLength(9);
    // The first goes at once; each of the other eight waits its 50 ms turn (timers may fire a tad early).
    expect(performance.now() - started).toBeGreaterThanOrEqual(8 * 50 - 20);
  });

  it('holds every request back while a 429 Retry-After is waited out', async () => {
    let answered429 = false;
    source.answer((request, response) => {
      if (request.url!.endsWith('/slow') && !answered429) {
        answered429 = true;
        json(response, 429, { message: 'Slow down' }, { 'retry-after': '30' });
      } else json(response, 200, { url: request.url });
    });
    let endWait: () => void = () => {};
    const waited: number[] = [];
    const api = client({
      sleep: (ms) => {
        waited.push(ms);
        return new Promise<void>((resolve) => {
          endWait = resolve;
        });
      },
    });
    const slow = api.get('guides/slow');
    while (waited.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(waited).toEqual([30_000]);
    // Another request made during the wait is not sent until it ends.
    const other = api.get('guides/other');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(source.seen.map((request) => request.url)).toEqual(['/api/2.0/guides/slow']);
    endWait();
    await expect(Promise.all([slow, other])).resolves.toHaveLength(2);
    expect(source.seen).toHaveLength(3);
  });

  it('keeps at most `concurrency` requests in flight', async () => {
    source.answer((_request, response) => {
      setTimeout(() => json(response, 200, { ok: true }), 15);
    });
    const api = client({ concurrency: 3 });
    await Promise.all(Array.from({ length: 12 }, (_, index) => api.get(`guides/${index}`)));
    expect(source.seen).toHaveLength(12);
    expect(source.maxInFlight()).toBeLessThanOrEqual(3);
    expect(source.maxInFlight()).toBeGreaterThan(1);
  });
});

/** Issue 23 item 6: the source names redirects and media URLs; the client must not trust them. */
describe('source client trust', () => {
  it('refuses a 307 on the login that points at another origin: the password never leaves', async () => {
    other.answer((request, response) => {
      request.resume();
      json(response, 201, { authToken: 'stolen' });
    });
    source.answer((_request, response) => {
      response.writeHead(307, { location: `${other.url}/api/2.0/user/token` });
      response.end();
    });
    const api = client();
    const failure = await signIn(api, { email: 'admin@example.com', password: 'secret' }).catch((error) => error);
    expect(failure).toBeInstanceOf(SourceError);
    expect((failure as Error).message).toContain(`redirected (307) to ${other.url}`);
    expect(other.seen).toHaveLength(0);
    expect(source.seen).toHaveLength(1);
  });

  it('follows a redirect within the source origin, body and token kept', async () => {
    const bodies: string[] = [];
    source.answer(async (request, response) => {
      let body = '';
      for await (const chunk of request) body += chunk;
      bodies.push(body);
      if (request.url === '/api/2.0/user/token') {
        response.writeHead(308, { location: '/api/2.0/user/token2' });
        response.end();
      } else json(response, 201, { authToken: 'fresh' });
    });
    await expect(client().post('user/token', { email: 'a@b.c', password: 'pw' })).resolves.toEqual({
      authToken: 'fresh',
    });
    expect(source.seen.map((request) => request.url)).toEqual(['/api/2.0/user/token', '/api/2.0/user/token2']);
    expect(bodies).toEqual([
      JSON.stringify({ email: 'a@b.c', password: 'pw' }),
      JSON.stringify({ email: 'a@b.c', password: 'pw' }),
    ]);
  });

  it('refuses an API read redirected off the origin (its answer would be trusted as the source)', async () => {
    other.answer((_request, response) => json(response, 200, [{ userid: 1 }]));
    source.answer((_request, response) => {
      response.writeHead(302, { location: `${other.url}/api/2.0/users` });
      response.end();
    });
    await expect(client().get('users')).rejects.toThrow(/never followed off/);
    expect(other.seen).toHaveLength(0);
  });

  it('refuses a media URL on a loopback address of another port unless --allow-host names it', async () => {
    other.answer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end('internal secrets');
    });
    const failure = await client()
      .download(`${other.url}/latest/meta-data/`)
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(SourceError);
    expect((failure as Error).message).toContain('loopback');
    expect((failure as Error).message).toContain(`--allow-host ${new URL(other.url).host}`);
    expect(other.seen).toHaveLength(0);

    const allowed = await client({ allowHosts: [new URL(other.url).host] }).download(`${other.url}/cdn/a.txt`);
    expect(allowed.bytes.toString()).toBe('internal secrets');
  });

  it('vets every hop: a source media URL redirected to loopback elsewhere is refused', async () => {
    other.answer((_request, response) => response.end('internal'));
    source.answer((_request, response) => {
      response.writeHead(302, { location: `${other.url}/admin` });
      response.end();
    });
    await expect(client().download(`${source.url}/media/1/original`)).rejects.toThrow(/Refusing to download/);
    expect(other.seen).toHaveLength(0);
  });

  it('refuses a name that resolves to any private address; an allow-listed name is fetched as is', async () => {
    other.answer((_request, response) => response.end('pinned'));
    const port = new URL(other.url).port;
    const lying = (addresses: string[]) =>
      new HttpSourceClient({
        baseUrl: `${source.url}/api/2.0`,
        resolve: async () => addresses.map((address) => ({ address, family: 4 })),
      });
    await expect(lying(['93.184.216.34', '10.0.0.7']).download(`http://cdn.example:${port}/x`)).rejects.toThrow(
      /resolves to 10\.0\.0\.7 is private/,
    );
    // An allow-listed name is fetched as is (the operator vouched for it).
    const allowed = new HttpSourceClient({ baseUrl: `${source.url}/api/2.0`, allowHosts: ['localhost'] });
    expect((await allowed.download(`http://localhost:${port}/x`)).bytes.toString()).toBe('pinned');
  });
});
