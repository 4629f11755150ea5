/**
 * The router's session rules on hand-built events (decisions 216, 217): which routes read the
 * cookie, where anonymous visitors of pages are sent on private and public sites, CSRF on form
 * routes with the cookie as API Gateway passes it (`event.cookies`); and the helpers' edges.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { reloadConfig } from '../../shared/config.ts';
import { errorResponse } from '../../shared/http/respond.ts';
import { rawReply, route } from '../../shared/http/route.ts';
import { NotFoundError, TooManyRequestsError } from '../../shared/domain/errors.ts';
import { createRouter } from '../../shared/http/router.ts';
import { cookiesAreSecure, formCsrf, requestCookies, safeReturnTo } from '../../shared/http/session.ts';

const seen: Array<string | undefined> = [];
const dispatch = createRouter([
  route({
    method: 'GET',
    path: '/Guide/{title}',
    site: true,
    page: true,
    auth: 'public',
    summary: 'A public page (closed on a private site)',
    handler: async ({ auth }) => {
      seen.push(auth.sessionToken);
      return { page: true };
    },
  }),
  route({
    method: 'GET',
    path: '/Team/{name}',
    site: true,
    page: true,
    auth: 'user',
    summary: 'A page for signed-in users on any site',
    handler: async () => ({ page: true }),
  }),
  route({
    method: 'POST',
    path: '/form',
    site: true,
    page: true,
    form: true,
    auth: 'public',
    openOnPrivateSite: true,
    summary: 'A form POST',
    body: z.object({ csrf: z.string(), name: z.string() }),
    handler: async ({ body }) => ({ name: body.name }),
  }),
]);

function event(method: string, rawPath: string, extra: Partial<APIGatewayProxyEventV2> = {}): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath,
    rawQueryString: '',
    headers: {},
    isBase64Encoded: false,
    requestContext: {
      http: { method, path: rawPath, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'test' },
      requestId: 'r',
    },
    ...extra,
  } as unknown as APIGatewayProxyEventV2;
}

async function call(request: APIGatewayProxyEventV2) {
  try {
    const result = await dispatch(request);
    return { status: result.statusCode ?? 200, headers: result.headers ?? {}, body: result.body };
  } catch (error) {
    return { status: errorResponse(error).status, headers: {}, body: undefined };
  }
}

afterEach(() => {
  delete process.env.STEPWISE_PRIVATE_SITE;
  reloadConfig();
});

describe('pages and anonymous visitors', () => {
  it('a private site sends them to login with the page and its query as returnTo', async () => {
    process.env.STEPWISE_PRIVATE_SITE = 'true';
    reloadConfig();
    const answer = await call(event('GET', '/Guide/Fix', { rawQueryString: 'lang=de' }));
    expect(answer.status).toBe(302);
    expect(answer.headers.location).toBe('/login?returnTo=%2FGuide%2FFix%3Flang%3Dde');
  });

  it('a public site shows public pages, and sends them to login for pages of signed-in users', async () => {
    process.env.STEPWISE_PRIVATE_SITE = 'false';
    reloadConfig();
    expect((await call(event('GET', '/Guide/Fix'))).status).toBe(200);
    const team = await call(event('GET', '/Team/Ops'));
    expect(team.status).toBe(302);
    expect(team.headers.location).toBe('/login?returnTo=%2FTeam%2FOps');
  });

  it('a malformed session cookie is no session (no lookup, no 401)', async () => {
    process.env.STEPWISE_PRIVATE_SITE = 'false';
    reloadConfig();
    expect((await call(event('GET', '/Guide/Fix', { cookies: ['stepwise_session=forged'] }))).status).toBe(200);
    expect(seen.at(-1)).toBeUndefined();
  });
});

describe('form routes', () => {
  const form = (csrf: string | undefined, cookies?: string[]) =>
    event('POST', '/form', {
      cookies,
      body: new URLSearchParams({ name: 'Ada', ...(csrf ? { csrf } : {}) }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
  const preSession = 'stepwise_presession=0123456789abcdef';
  const token = formCsrf({ cookie: preSession }).token;

  it('read the urlencoded body once the CSRF token is that of the cookie (event.cookies)', async () => {
    const answer = await call(form(token, [preSession]));
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body!)).toEqual({ name: 'Ada' });
  });

  it('refuse (403) a missing token, a wrong one, or one without its cookie, before validating the body', async () => {
    expect((await call(form(undefined, [preSession]))).status).toBe(403);
    expect((await call(form('0'.repeat(64), [preSession]))).status).toBe(403);
    expect((await call(form(token))).status).toBe(403);
    expect((await call(form(token, ['stepwise_presession=another']))).status).toBe(403);
  });
});

describe('session helpers', () => {
  it('safeReturnTo keeps paths of this site and nothing else', () => {
    expect(safeReturnTo('/Guide/Fix+it/12?lang=de#s3')).toBe('/Guide/Fix+it/12?lang=de#s3');
    for (const elsewhere of [
      'https://evil.example/',
      '//evil.example/',
      '/\\evil.example',
      '\\\\evil.example',
      'javascript:alert(1)',
      '/\t/evil.example',
      'Guide/1',
      undefined,
      42,
      // Normalised once these become //evil.example (issue 35 item 9): checked again until stable.
      '/.//evil.example',
      '/././/evil.example/x',
      '/a/..//evil.example',
      '/%2e//evil.example',
    ])
      expect(safeReturnTo(elsewhere), String(elsewhere)).toBe('/');
  });

  it('safeReturnTo is idempotent: what it answers, it answers again', () => {
    for (const value of ['/a/./b/../c?x=1', '/Guide/Fix it/12', '/.//evil.example', '/x/%2e%2e/y', '/a//b']) {
      const once = safeReturnTo(value);
      expect(safeReturnTo(once), value).toBe(once);
      expect(once.startsWith('//'), value).toBe(false);
    }
  });

  it('cookies are Secure everywhere but on this machine', () => {
    expect(cookiesAreSecure('http://127.0.0.1:3000')).toBe(false);
    expect(cookiesAreSecure('http://localhost:3000')).toBe(false);
    expect(cookiesAreSecure('https://docs.example.com')).toBe(true);
    expect(cookiesAreSecure('http://docs.example.com')).toBe(true);
  });

  it('reads cookies by name, the first of a name winning', () => {
    expect(requestCookies({ cookie: 'a=1; stepwise_session=x.1; a=2; broken' })).toEqual({
      a: '1',
      stepwise_session: 'x.1',
    });
  });

  it('a form token is tied to the cookie, and a visitor without one gets a pre-session cookie', () => {
    const fresh = formCsrf({});
    expect(fresh.cookies).toHaveLength(1);
    const value = /^stepwise_presession=([0-9a-f]{64});/.exec(fresh.cookies[0]!)![1];
    expect(formCsrf({ cookie: `stepwise_presession=${value}` })).toEqual({ token: fresh.token, cookies: [] });
    expect(formCsrf({ cookie: 'stepwise_session=abc.1' }).token).not.toBe(fresh.token);
  });
});

describe("a group's pageError", () => {
  const routes = [
    route({
      method: 'GET',
      path: '/Wiki/{title}',
      site: true,
      page: true,
      auth: 'public',
      openOnPrivateSite: true,
      summary: 'A page that finds nothing',
      handler: async () => {
        throw new TooManyRequestsError('Slow down', 7);
      },
    }),
    route({
      method: 'GET',
      path: '/api-like',
      auth: 'public',
      openOnPrivateSite: true,
      summary: 'Not a page',
      handler: async () => {
        throw new NotFoundError('No such thing');
      },
    }),
  ];
  const withPages = createRouter(routes, {
    pageError: (status, message) => rawReply(status, `<p>${status}: ${message}</p>`, 'text/html; charset=utf-8'),
  });

  it('renders errors of page routes, with the status and headers the API would send', async () => {
    const answer = await withPages(event('GET', '/Wiki/Nothing'));
    expect(answer.statusCode).toBe(429);
    expect(answer.body).toBe('<p>429: Slow down</p>');
    expect(answer.headers).toMatchObject({ 'content-type': 'text/html; charset=utf-8', 'retry-after': '7' });
  });

  it('leaves errors of other routes to the error mapping (JSON)', async () => {
    await expect(withPages(event('GET', '/api/2.0/api-like'))).rejects.toBeInstanceOf(NotFoundError);
  });
});
