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
 * request. The fuzz acts only on its own world (test/fuzz/fuzz-fixtures.ts) and on the objects
 * a route's preparation makes for each request (test/fuzz/fuzz-preparations.ts), so other test
 * files running alongside are not disturbed. The last test asserts every write route accepted
 * its valid request at least once (decision 175). docs/hostile-input.md describes it.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeGroups } from '../../functions/routes.ts';
import type { RouteDef } from '../../shared/http/route.ts';
import { api, apiUrl, type ApiResponse } from '../support/api.ts';
import { buildWorld, type FuzzWorld } from './fuzz-fixtures.ts';
import { PREPARATIONS, type Preparation } from './fuzz-preparations.ts';
import { closeFuzzServers } from './fuzz-state.ts';
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
/** A route's requests, each with its preparation, on a loaded machine: a few seconds each at most. */
const TEST_TIMEOUT_MS = Math.max(60_000, (RUNS + 1) * 5_000);

/** Routes that remove things (DELETE, …/delete): they run last. */
const removes = (route: RouteDef) => route.method === 'DELETE' || /\/delete(\/|$)/i.test(route.path);
/** Routes that end things (…/cancel, …/invalidate…): they run after the others, before the removals. */
const ends = (route: RouteDef) => /\/(cancel|bulkCancel|userInvalidateAll|invalidate\w*)(\/|$)/i.test(route.path);
const isDestructive = (route: RouteDef) => removes(route) || ends(route);
const tier = (route: RouteDef) => (removes(route) ? 2 : ends(route) ? 1 : 0);

/**
 * Routes that change what every request of the site does, left out: a mutation would set, say,
 * the site's work gate to `block` for every test file sharing the stack. Each is tested where it
 * restores what it changed.
 */
const SITE_WIDE_SETTINGS: Record<string, string> = {
  'PUT /qualifications/settings': 'the site gate on work and acknowledgement defaults: test/api/qualifications.test.ts',
};

// Destructive routes last, so the world's objects live while the other routes are fuzzed, and the
// world's quiz, guide and entry still exist when the routes that end things run.
const routes = routeGroups
  // Site paths (outside /api/2.0) are pages, not API operations: test/api/site-paths.test.ts.
  .flatMap((group) =>
    group.routes
      .filter((route) => !route.site && !(`${route.method} ${route.path}` in SITE_WIDE_SETTINGS))
      .map((route) => ({ group: group.name, route })),
  )
  .sort((a, b) => tier(a.route) - tier(b.route));

let world: FuzzWorld;
/** Write routes that accepted at least one request (the post-write reads ran for them). */
const acceptedWrites = new Set<string>();
const tokens = { admin: '', user: '' };

beforeAll(async () => {
  world = await buildWorld();
  tokens.admin = world.admin.token;
  tokens.user = world.user.token;
}, 120_000);

afterAll(closeFuzzServers);

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

/** One request's world: the shared one, with the values the route's preparation made for it. */
interface Scene {
  world: FuzzWorld;
  preparation: Preparation;
}

const routeKey = (route: RouteDef) => `${route.method} ${route.path}`;

/** Runs the route's preparation (fresh objects for this one request), if it has one. */
async function scene(route: RouteDef): Promise<Scene> {
  const prepare = PREPARATIONS[routeKey(route)];
  if (!prepare) return { world, preparation: {} };
  const preparation = await prepare(world);
  return { world: { ...world, bound: preparation.values }, preparation };
}

/** The valid request: the scene's ids in the path, a schema-valid query, the adopted example. */
async function baseRequest(route: RouteDef, { world: here, preparation }: Scene): Promise<FuzzRequest> {
  const params = validParams(route, here);
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
  const adopted = route.body && !route.rawBody ? adoptExample(route.example ?? {}, '', here, route) : undefined;
  const body = withReplacements(
    preparation.body && adopted !== undefined ? mergeOver(adopted, preparation.body) : adopted,
    preparation,
  );
  return {
    method: route.method,
    params,
    query: validQuery(route, here, { ...known, ...preparation.query }),
    body,
    rawBody: preparation.rawBody,
    contentType: preparation.contentType,
  };
}

/** Every field the body schema declares, the example's (and the preparation's) values kept. */
function fullBodyOf(route: RouteDef, { world: here, preparation }: Scene): unknown {
  if (!route.body || route.rawBody) return undefined;
  const full = adoptExample(mergeOver(sampleFromSchema(bodySchema(route)), route.example), '', here, route);
  return withReplacements(preparation.body ? mergeOver(full, preparation.body) : full, preparation);
}

function withReplacements(body: unknown, { bodyReplacing }: Preparation): unknown {
  if (!bodyReplacing || body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  return { ...body, ...bodyReplacing };
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
  // The groups the preparations made reachable (decision 175).
  if (['course-assignments', 'signoffs'].includes(group)) {
    reads.push(
      { path: '/course_assignments/individualSummaries' },
      { path: `/stage-sign-offs/requests/pending/${world.admin.userid}` },
    );
  }
  if (group === 'approvals') {
    reads.push({ path: '/approvals/processes' }, { path: '/approvals/requests' });
    const processid = touched('approval_processid', request, body);
    if (processid) reads.push({ path: `/approvals/process/${processid}` });
    const requestid = touched('approval_requestid', request, body);
    if (requestid) reads.push({ path: `/approvals/request/${requestid}` });
  }
  if (group === 'periodic-review') {
    reads.push({ path: '/periodic_review' });
    const prsid = touched('prsid', request, body);
    if (prsid) reads.push({ path: `/periodic_review/${prsid}` });
  }
  if (group === 'webhooks') {
    reads.push({ path: '/webhooks' });
    const webhookid = touched('webhookid', request, body);
    if (webhookid) reads.push({ path: `/webhooks/${webhookid}` });
  }
  if (group === 'modules') {
    reads.push({ path: '/external_training_modules/current' });
    const importid = touched('importid', request, body);
    if (importid) reads.push({ path: `/external_training_modules/imports/${importid}/progress` });
  }
  if (group === 'media') reads.push({ path: '/user/media/images' }, { path: '/user/media/current' });
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
    it(
      'never answers 5xx; accepted writes leave the entity readable',
      async () => {
        const queryKeys = schemaKeys(route.query);
        const isWrite = ['POST', 'PUT', 'PATCH'].includes(route.method);
        const attempt = async (request: FuzzRequest, as: { role: 'admin' | 'user'; token?: string }, label: string) => {
          const role = as.token ? 'prepared actor' : as.role;
          const response = await send(route, request, as.token ?? tokens[as.role]);
          if (process.env.STEPWISE_FUZZ_VERBOSE)
            console.log(
              label,
              response.status,
              String(request.rawBody ?? JSON.stringify(request.body) ?? '').slice(0, 200),
              response.text.slice(0, 150),
            );
          expect(
            response.status,
            `${label} as ${role}: ${response.status} ${response.text.slice(0, 500)}`,
          ).toBeLessThan(500);
          if (isWrite && response.status < 300) {
            acceptedWrites.add(routeKey(route));
            await checkReadsAfterWrite(group, route, request, response);
          }
        };
        // The valid request first, so every route has at least one chance of an accepted write. Each request
        // is built anew (a fresh scene, the current revisionid), so an earlier accepted write cannot stale it.
        const first = await scene(route);
        const { role: firstRole = 'admin', token: firstToken } = first.preparation;
        await attempt(await baseRequest(route, first), { role: firstRole, token: firstToken }, 'the valid request');
        await fc.assert(
          fc.asyncProperty(choice, async ({ role, ...mutation }) => {
            const here = await scene(route);
            const request = mutate(await baseRequest(route, here), mutation, queryKeys, fullBodyOf(route, here));
            // A prepared actor (a signer, a reviewer) stands in for the Admin.
            const token = role === 'admin' ? here.preparation.token : undefined;
            await attempt(request, { role, token }, `mutation ${JSON.stringify(mutation)}`);
          }),
          { seed: SEED + index, numRuns: RUNS, endOnFailure: true },
        );
        if (isDestructive(route)) await refreshTokens();
      },
      TEST_TIMEOUT_MS,
    );
  },
);

/**
 * Write routes whose valid request cannot be accepted on the shared test stack, by design.
 * Each entry says why; an entry that names no route, or a route that did accept a request,
 * fails the test, so the list cannot go stale.
 */
const NEVER_ACCEPTED: Record<string, string> = {
  'PUT /translation_glossary/entries':
    'the glossary exists only on sites with several languages; the shared test stack has one (en), ' +
    'so every request is 403 (test/api/glossary.test.ts checks it on a second stack)',
  'POST /user/step_up/ticket':
    'only an account that signs through an identity provider gets a ticket; the fuzz callers sign with ' +
    'passwords, so it is 403 (test/api/sso-signing.test.ts issues and spends one)',
};

it('every write route accepted its valid request (the post-write reads ran for each)', () => {
  const writeRoutes = routes
    .filter(({ route }) => ['POST', 'PUT', 'PATCH'].includes(route.method))
    .map(({ route }) => routeKey(route));
  const missing = writeRoutes.filter((key) => !acceptedWrites.has(key) && !(key in NEVER_ACCEPTED));
  console.log(
    `fuzz: ${acceptedWrites.size} of ${writeRoutes.length} write routes accepted a request` +
      ` (${Object.keys(NEVER_ACCEPTED).length} excluded by design: ${Object.keys(NEVER_ACCEPTED).join(', ')})` +
      (missing.length > 0 ? `; NEVER ACCEPTED: ${missing.join(', ')}` : '') +
      `; accepted: ${writeRoutes.filter((key) => acceptedWrites.has(key)).join(', ')}`,
  );
  expect(missing).toEqual([]);
  for (const key of Object.keys(NEVER_ACCEPTED)) {
    expect(writeRoutes, `NEVER_ACCEPTED names ${key}`).toContain(key);
    expect(acceptedWrites.has(key), `${key} is in NEVER_ACCEPTED but accepted a request`).toBe(false);
  }
});
