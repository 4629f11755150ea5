/**
 * Property-based fuzz over the whole route table (issue 12, Proof). For every route: the valid
 * request built from its own schemas and example, then hostile mutations of it (lone
 * surrogates, deep nesting, huge and negative numbers, huge offsets, long strings, wrong types,
 * `__proto__` keys, odd content types, hostile path segments), sent over HTTP as an Admin and as
 * a plain user. Never a 5xx; after every accepted write (2xx on POST/PUT/PATCH) the entity's
 * reads and the lists holding it answer 2xx.
 *
 * Fixed seed and a bounded run in `npm test`; STEPWISE_FUZZ_RUNS=<n> runs n mutations per route
 * (default 3), STEPWISE_FUZZ_SEED=<n> another seed, STEPWISE_FUZZ_VERBOSE=1 prints every
 * request. The fuzz acts only on its own world (test/fuzz/fuzz-fixtures.ts), so other test
 * files running alongside are not disturbed. docs/hostile-input.md describes it.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { routeGroups } from '../../functions/routes.ts';
import type { RouteDef } from '../../shared/http/route.ts';
import { api, apiUrl, type ApiResponse } from '../support/api.ts';
import { buildWorld, type FuzzWorld } from './fuzz-fixtures.ts';
import * as z from 'zod/mini';
import {
  adoptExample,
  concretePath,
  mergeOver,
  mutate,
  MUTATIONS,
  sampleFromSchema,
  schemaKeys,
  validParams,
  validQuery,
  type Choice,
  type FuzzRequest,
} from './fuzz-requests.ts';

const RUNS = Number(process.env.STEPWISE_FUZZ_RUNS ?? 3);
const SEED = Number(process.env.STEPWISE_FUZZ_SEED ?? 20261123);

/** Routes that remove or end things (DELETE, …/delete, …/cancel, …/invalidate…) run last. */
const isDestructive = (route: RouteDef) =>
  route.method === 'DELETE' || /\/(delete|cancel|bulkCancel|userInvalidateAll|invalidate\w*)(\/|$)/i.test(route.path);

// Destructive routes last, so the world's objects live while the other routes are fuzzed.
const routes = routeGroups
  // Site paths (outside /api/2.0) are pages, not API operations: test/api/site-paths.test.ts.
  .flatMap((group) => group.routes.filter((route) => !route.site).map((route) => ({ group: group.name, route })))
  .sort((a, b) => Number(isDestructive(a.route)) - Number(isDestructive(b.route)));

let world: FuzzWorld;
/** Write routes that accepted at least one request (the post-write reads ran for them). */
const acceptedWrites = new Set<string>();
const tokens = { admin: '', user: '' };

beforeAll(async () => {
  world = await buildWorld();
  tokens.admin = world.admin.token;
  tokens.user = world.user.token;
}, 120_000);

async function send(route: RouteDef, request: FuzzRequest, token: string): Promise<ApiResponse> {
  const url = new URL(apiUrl() + concretePath(route, request));
  for (const [name, value] of Object.entries(request.query)) url.searchParams.set(name, value);
  const headers: Record<string, string> = { authorization: `api ${token}` };
  if (request.contentType) headers['content-type'] = request.contentType;
  const body =
    request.rawBody ??
    (request.body === undefined || request.method === 'GET' ? undefined : JSON.stringify(request.body));
  const response = await fetch(url, {
    method: request.method,
    headers,
    body: request.method === 'GET' ? undefined : body,
    redirect: 'manual',
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON
  }
  return { status: response.status, body: parsed, text, headers: response.headers };
}

/** The valid request: world ids in the path, a schema-valid query, the adopted example. */
async function baseRequest(route: RouteDef): Promise<FuzzRequest> {
  const params = validParams(route, world);
  const known: Record<string, string> = {};
  if (schemaKeys(route.query).includes('revisionid')) {
    // Writes name the current revision: read it from the GET at the same path, or at the
    // nearest parent path that has one (a step's guide).
    const segments = concretePath(route, { method: 'GET', params, query: {} }).split('/');
    for (let length = segments.length; length > 2 && known.revisionid === undefined; length--) {
      const current = await api('GET', segments.slice(0, length).join('/'), { token: tokens.admin });
      if (current.status === 200 && current.body?.revisionid != null)
        known.revisionid = String(current.body.revisionid);
    }
  }
  const body = route.body && !route.rawBody ? adoptExample(route.example ?? {}, '', world, route) : undefined;
  return { method: route.method, params, query: validQuery(route, world, known), body };
}

function bodySchema(route: RouteDef): Parameters<typeof sampleFromSchema>[0] {
  if (!route.body) return undefined;
  return z.toJSONSchema(route.body, { io: 'input', unrepresentable: 'any' }) as Parameters<typeof sampleFromSchema>[0];
}

interface Read {
  path: string;
  query?: Record<string, string>;
}

/** Ids the write named (path) or answered (body). */
function touched(name: string, request: FuzzRequest, body: any): number | undefined {
  const value = body?.[name] ?? request.params[name];
  const id = Number(value);
  return Number.isSafeInteger(id) && id > 0 ? id : undefined;
}

/** The reads and lists that must answer 2xx after an accepted write of this group. */
function readsAfterWrite(group: string, request: FuzzRequest, body: any): Read[] {
  const reads: Read[] = [];
  if (['auth', 'users', 'teams'].includes(group)) {
    reads.push(
      { path: '/users' },
      { path: `/users/${world.victim.userid}` },
      { path: '/users/search/Fuzz' },
      { path: '/user' },
    );
    const userid = touched('userid', request, body);
    if (userid) reads.push({ path: `/users/${userid}` });
  }
  if (['wikis', 'tags', 'releases'].includes(group)) {
    reads.push(
      { path: '/wikis/WIKI' },
      { path: '/wikis/CATEGORY' },
      { path: `/wikis/WIKI/${encodeURIComponent(world.wiki.title)}` },
    );
    if (typeof body?.namespace === 'string' && typeof body?.title === 'string' && body.namespace !== 'COURSE') {
      reads.push({ path: `/wikis/${body.namespace}/${encodeURIComponent(body.title)}` });
    }
  }
  if (['guides', 'releases', 'tags', 'user-guides', 'comments', 'step-forms'].includes(group)) {
    reads.push({ path: '/guides' });
    const guideid = touched('guideid', request, body);
    if (guideid) reads.push({ path: `/guides/${guideid}` });
  }
  if (['courses', 'course-assignments', 'signoffs'].includes(group)) {
    reads.push({ path: '/courses' });
    const wikiid = touched('wikiid', request, body);
    if (wikiid) reads.push({ path: `/courses/${wikiid}` });
  }
  if (group === 'work-log') {
    reads.push({ path: '/work_log' });
    const entryid = touched('entryid', request, body);
    if (entryid) reads.push({ path: `/work_log/${entryid}` });
  }
  if (['quizzes', 'quiz-import'].includes(group)) {
    reads.push({ path: '/quizzes' });
    const quizid = touched('quizid', request, body);
    if (quizid) reads.push({ path: `/quizzes/${quizid}` });
  }
  return reads;
}

async function checkReadsAfterWrite(
  group: string,
  route: RouteDef,
  request: FuzzRequest,
  response: ApiResponse,
): Promise<void> {
  for (const read of readsAfterWrite(group, request, response.body)) {
    const result = await api('GET', read.path, { token: tokens.admin, query: read.query });
    expect(
      result.status,
      `after ${route.method} ${route.path} (${response.status}): GET ${read.path} answered ${result.status} ` +
        `${result.text.slice(0, 300)}`,
    ).toBeLessThan(300);
  }
  if (['auth', 'users', 'teams'].includes(group)) {
    const login = await api('POST', '/user/token', {
      body: { email: world.victim.email, password: world.victim.password },
    });
    expect(
      login.status,
      `after ${route.method} ${route.path}: the victim's login answered ${login.status} ${login.text.slice(0, 300)}`,
    ).toBe(201);
  }
}

/** A token revoked by a fuzzed DELETE /user/token is replaced, so later routes still run. */
async function refreshTokens(): Promise<void> {
  for (const role of ['admin', 'user'] as const) {
    if ((await api('GET', '/user', { token: tokens[role] })).status !== 401) continue;
    const account = role === 'admin' ? world.admin : world.user;
    const login = await api('POST', '/user/token', { body: { email: account.email, password: account.password } });
    tokens[role] = login.body.authToken;
  }
}

const choice: fc.Arbitrary<Choice & { role: 'admin' | 'user' }> = fc.record({
  role: fc.constantFrom('admin' as const, 'user' as const),
  mutation: fc.constantFrom(...MUTATIONS),
  extra: fc.nat({ max: 1000 }),
  pick: fc.nat({ max: 1000 }),
  variant: fc.nat({ max: 1000 }),
});

describe.each(routes.map((entry, index) => ({ ...entry, index })))(
  '$group: $route.method $route.path',
  ({ group, route, index }) => {
    it('never answers 5xx; accepted writes leave the entity readable', async () => {
      const base = await baseRequest(route);
      const fullBody =
        base.body === undefined
          ? undefined
          : adoptExample(mergeOver(sampleFromSchema(bodySchema(route)), route.example), '', world, route);
      const queryKeys = schemaKeys(route.query);
      const isWrite = ['POST', 'PUT', 'PATCH'].includes(route.method);
      const attempt = async (request: FuzzRequest, role: 'admin' | 'user', label: string) => {
        // A write guarded by ?revisionid= names the current one, or every attempt after the first accepted one is a
        // 409.
        if (request.query.revisionid === base.query.revisionid && base.query.revisionid !== undefined) {
          request.query.revisionid = (await baseRequest(route)).query.revisionid ?? base.query.revisionid;
        }
        const response = await send(route, request, tokens[role]);
        if (process.env.STEPWISE_FUZZ_VERBOSE)
          console.log(
            label,
            response.status,
            (request.rawBody ?? JSON.stringify(request.body) ?? '').slice(0, 200),
            response.text.slice(0, 150),
          );
        expect(response.status, `${label} as ${role}: ${response.status} ${response.text.slice(0, 500)}`).toBeLessThan(
          500,
        );
        if (isWrite && response.status < 300) {
          acceptedWrites.add(`${route.method} ${route.path}`);
          await checkReadsAfterWrite(group, route, request, response);
        }
      };
      // The valid request first, so every route has at least one chance of an accepted write.
      await attempt(base, 'admin', 'the valid request');
      await fc.assert(
        fc.asyncProperty(choice, async ({ role, ...mutation }) => {
          await attempt(mutate(base, mutation, queryKeys, fullBody), role, `mutation ${JSON.stringify(mutation)}`);
        }),
        { seed: SEED + index, numRuns: RUNS, endOnFailure: true },
      );
      if (isDestructive(route)) await refreshTokens();
    });
  },
);

it('the valid requests reach the handlers: many write routes accept one', () => {
  const writeRoutes = routes.filter(({ route }) => ['POST', 'PUT', 'PATCH'].includes(route.method));
  console.log(
    `fuzz: ${acceptedWrites.size} of ${writeRoutes.length} write routes accepted a request:`,
    [...acceptedWrites].join(', '),
  );
  // The rest need state the fuzz world does not build (signoff requests, approval requests...).
  expect(acceptedWrites.size).toBeGreaterThan(writeRoutes.length * 0.4);
});
