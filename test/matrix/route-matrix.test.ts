/**
 * The generic test matrix, generated from the route table: every route is checked for 401
 * without a token, 403 for a lesser role, 405 for a wrong method, 400 for invalid JSON, 422
 * for a wrong body, 404 for an unknown id and HEAD wherever GET answers. A new route is
 * covered the moment it is declared.
 * The test stack is a private site (the default): every route not open on a private site
 * answers 401 anonymously, and authorization comes before body validation (401/403, not 422).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { routeGroups } from '../../functions/routes.ts';
import { buildOpenApiDocument } from '../../shared/http/openapi.ts';
import { PathMatcher } from '../../shared/http/path-match.ts';
import type { HttpMethod, RouteDef } from '../../shared/http/route.ts';
import { openToAnonymous } from '../../shared/http/site-access.ts';
import { api, apiUrl, createUser, loginAdmin, type TestUser } from '../support/api.ts';

const METHODS: HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
const UNKNOWN_ID = '999999999';
const INVALID_BODY = ['not', 'an', 'object'];
// Site paths (outside /api/2.0) answer pages, not the API's JSON errors: tested in test/api/site-paths.test.ts.
const routes = routeGroups.flatMap((group) =>
  group.routes.filter((route) => !route.site).map((route) => ({ group: group.name, route })),
);
const matcher = new PathMatcher(routes.map(({ route }) => ({ method: route.method, path: route.path, value: route })));

/** True for a path parameter that takes a numeric id (it refuses "abc", accepts a number). */
function isIdParam(route: RouteDef, name: string): boolean {
  if (!route.params) return false;
  const accepts = (value: string) => route.params!.safeParse({ ...sampleParams(route, '1'), [name]: value }).success;
  return accepts(UNKNOWN_ID) && !accepts('abc');
}

function paramNames(route: RouteDef): string[] {
  return [...route.path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
}

function sampleParams(route: RouteDef, id: string): Record<string, string> {
  return Object.fromEntries(paramNames(route).map((name) => [name, /id$/.test(name) ? id : 'sample']));
}

function concretePath(route: RouteDef, id = '1'): string {
  const params = sampleParams(route, id);
  return route.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(params[name]));
}

/** Routes that answer success for ids naming nothing, by design. */
const SKIPS_UNKNOWN_IDS = new Set([
  // Decision 75: a list of the caller's images to delete; ids that name no image are skipped (204).
  'DELETE /user/media/images/{imageid}',
]);

let admin: string;
let plainUser: TestUser;

beforeAll(async () => {
  admin = await loginAdmin();
  plainUser = await createUser();
});

describe.each(routes)('$group: $route.method $route.path', ({ route }) => {
  const path = concretePath(route);
  const closedToAnonymous = !openToAnonymous(route, true);
  const takesJson = route.body !== undefined && !route.rawBody;

  if (closedToAnonymous)
    it('401 without a token (private site)', async () => {
      const response = await api(route.method, path, { body: route.example });
      expect(response.status).toBe(401);
      expect(response.body).toHaveProperty('message');
    });

  if (closedToAnonymous && takesJson)
    it('401 without a token, before the invalid body is looked at', async () => {
      const response = await api(route.method, path, { body: INVALID_BODY });
      expect(response.status).toBe(401);
      expect(response.body).not.toHaveProperty('errors');
    });

  if (route.auth === 'admin' || route.auth === 'author')
    it('403 for a plain User', async () => {
      const response = await api(route.method, path, { token: plainUser.token, body: route.example });
      expect(response.status).toBe(403);
    });

  if ((route.auth === 'admin' || route.auth === 'author') && takesJson)
    it('403 for a plain User, before the invalid body is looked at', async () => {
      const response = await api(route.method, path, { token: plainUser.token, body: INVALID_BODY });
      expect(response.status).toBe(403);
    });

  const wrongMethod = METHODS.find((method) => !matcher.match(method, path));
  if (wrongMethod !== undefined)
    it(`405 for ${wrongMethod}`, async () => {
      const response = await api(wrongMethod!, path, { token: admin, body: wrongMethod === 'GET' ? undefined : {} });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toContain(route.method);
    });

  if (takesJson)
    it('400 for invalid JSON', async () => {
      const response = await api(route.method, path, { token: admin, rawBody: '{"broken": ' });
      expect(response.status).toBe(400);
    });

  if (takesJson)
    it('422 for a wrong body', async () => {
      const response = await api(route.method, path, { token: admin, body: INVALID_BODY });
      expect(response.status).toBe(422);
      expect(response.body.errors.length).toBeGreaterThan(0);
    });

  const hasIdParam = paramNames(route).some((name) => isIdParam(route, name));
  // RFC 9110 §9.3.2: HEAD wherever GET answers, with the GET's status and headers and no body.
  if (route.method === 'GET')
    it('HEAD answers as the GET does, without a body', async () => {
      const target = hasIdParam ? concretePath(route, UNKNOWN_ID) : path;
      const get = await api('GET', target, { token: admin });
      const head = await api('HEAD', target, { token: admin });
      expect(head.status).toBe(get.status);
      expect(head.text).toBe('');
      expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
    });

  if (hasIdParam && !SKIPS_UNKNOWN_IDS.has(`${route.method} ${route.path}`))
    it('404 for an unknown id', async () => {
      const response = await api(route.method, concretePath(route, UNKNOWN_ID), { token: admin, body: route.example });
      expect(response.status).toBe(404);
    });
});

it('only login, registration, password reset, the API docs, health and site info are open on a private site', () => {
  const open = routes
    .filter(({ route }) => openToAnonymous(route, true))
    .map(({ route }) => `${route.method} ${route.path}`);
  expect(open.sort()).toEqual(
    [
      'GET /doc',
      'GET /doc/renderer.js',
      'GET /doc/static',
      'GET /health',
      'GET /openapi.json',
      // The site's description: a client needs the sign-in method before it has a token (decision 191).
      'GET /info',
      'GET /site',
      'GET /sites/info',
      'POST /user/token',
      'POST /users',
      'POST /users/reset_password',
      'POST /users/reset_password/complete',
    ].sort(),
  );
});

it('every custom route decides who may call it in an authorize hook (before its body is validated)', () => {
  const undecided = routes
    .filter(({ route }) => route.auth === 'custom' && !route.authorize)
    .map(({ route }) => `${route.method} ${route.path}`);
  expect(undecided).toEqual([]);
});

it('every route declares a summary and a body example when it takes a body', () => {
  for (const { route } of routes) {
    expect(route.summary.length, `${route.method} ${route.path}`).toBeGreaterThan(5);
    if (route.body) expect(route.example, `${route.method} ${route.path}`).toBeDefined();
  }
});

// Here, where the route table is loaded anyway: the stacks of a test run share one build of the embeds (decision 354).
it('GET /openapi.json serves byte for byte the document the route table builds now', async () => {
  const served = await fetch(`${apiUrl()}/openapi.json`);
  expect(served.status).toBe(200);
  expect(await served.text()).toBe(JSON.stringify(buildOpenApiDocument(routeGroups)));
});
