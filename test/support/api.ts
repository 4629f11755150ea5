/** HTTP helpers for API tests against the local stack started by the global setup. */
import { inject } from 'vitest';
import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import { type RouteDef, routeUrlPath } from '../../shared/http/route.ts';
import { PathMatcher } from '../../shared/http/path-match.ts';

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  text: string;
  headers: Headers;
}

export interface RequestOptions {
  token?: string;
  body?: unknown;
  /** Sent as-is (for invalid JSON and binary bodies). */
  rawBody?: string | Buffer;
  query?: Record<string, string | number | boolean>;
  headers?: Record<string, string>;
  /**
   * Send from this loopback address (127.x.y.z) instead of 127.0.0.1: the local gateway takes
   * the client address from the socket, so this is how a test plays two different clients.
   */
  sourceAddress?: string;
}

export const ADMIN = { email: 'admin@example.com', password: 'stepwise-admin' };

export function apiUrl(): string {
  return inject('apiUrl');
}

export function api<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
  return apiAt<T>(apiUrl(), method, path, options);
}

/** The site root of the test stack: where paths outside /api/2.0 (pages, robots.txt) answer. */
export function siteUrl(): string {
  return apiUrl().replace(/\/api\/2\.0$/, '');
}

/** A request to a path of the site, outside /api/2.0. */
export function site<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
  return apiAt<T>(siteUrl(), method, path, options);
}

/** The same request against another stack (a second stack started with other settings). */
export async function apiAt<T = any>(
  baseUrl: string,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<ApiResponse<T>> {
  const url = new URL(baseUrl + path);
  for (const [name, value] of Object.entries(options.query ?? {})) url.searchParams.set(name, String(value));
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.token) headers.authorization = `api ${options.token}`;
  const body = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  const response = options.sourceAddress
    ? await requestFrom(options.sourceAddress, url, { method, headers, body })
    : await fetch(url, { method, headers, body, redirect: 'manual' });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON (XML, HTML)
  }
  const answer = { status: response.status, body: parsed as T, text, headers: response.headers };
  await checkResponseSchema(method, url, answer);
  return answer;
}

let responseRoutes: Promise<PathMatcher<RouteDef>> | undefined;

/** The route table as the router matches it (loaded once per test file, on first use). */
function routeMatcher(): Promise<PathMatcher<RouteDef>> {
  responseRoutes ??= import('../../functions/routes.ts').then(
    ({ routeGroups }) =>
      new PathMatcher(
        routeGroups.flatMap((group) =>
          group.routes.map((route) => ({ method: route.method, path: routeUrlPath(route), value: route })),
        ),
      ),
  );
  return responseRoutes;
}

/**
 * Every 2xx JSON answer must match its route's declared `response` schema, so the OpenAPI
 * document describes what the API really sends. Routes without a response schema are not
 * checked (test/unit/response-schemas.test.ts says which may still lack one).
 */
export async function checkResponseSchema(method: string, url: URL, answer: ApiResponse): Promise<void> {
  if (answer.status < 200 || answer.status > 299 || !answer.text) return;
  if (!(answer.headers.get('content-type') ?? '').includes('application/json')) return;
  const matched = (await routeMatcher()).match(method.toUpperCase(), url.pathname);
  const schema = matched?.value.response;
  if (!matched || !schema) return;
  const result = schema.safeParse(answer.body);
  if (result.success) return;
  const issues = result.error.issues
    .slice(0, 5)
    .map((issue) => `  at ${issue.path.map(String).join('.') || '(root)'}: ${issue.message}`)
    .join('\n');
  throw new Error(
    `Response of ${matched.value.method} ${matched.value.path} (${answer.status}) does not match its ` +
      `response schema:\n` +
      `${issues}${result.error.issues.length > 5 ? `\n  ...and ${result.error.issues.length - 5} more` : ''}\n` +
      `body: ${answer.text.slice(0, 600)}`,
  );
}

/** One HTTP request from a given local address (fetch cannot choose it). */
function requestFrom(
  localAddress: string,
  url: URL,
  init: { method: string; headers: Record<string, string>; body?: string | Buffer },
): Promise<Response> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: init.method, headers: init.headers, localAddress }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(incoming.headers)) {
          for (const one of [value ?? []].flat()) headers.append(name, one);
        }
        const status = incoming.statusCode ?? 0;
        resolve(new Response(status === 204 || status === 304 ? null : Buffer.concat(chunks), { status, headers }));
      });
      incoming.on('error', reject);
    });
    request.on('error', reject);
    request.end(init.body);
  });
}

/**
 * A loopback address no other test uses, to act as a client with its own address. Linux routes
 * all of 127.0.0.0/8 to loopback; macOS answers only 127.0.0.1 unless aliases are added
 * (`sudo ifconfig lo0 alias 127.x.y.z`).
 */
export function freshLoopbackAddress(): string {
  const bytes = randomBytes(3);
  return `127.${bytes[0]}.${bytes[1]}.${Math.max(2, bytes[2]! % 255)}`;
}

let adminToken: Promise<string> | undefined;

/** A token of the first Admin (logged in once per test file). */
export function loginAdmin(): Promise<string> {
  adminToken ??= api('POST', '/user/token', { body: ADMIN }).then((response) => {
    if (response.status !== 201) throw new Error(`Admin login failed: ${response.status} ${response.text}`);
    return response.body.authToken as string;
  });
  return adminToken;
}

export function uniqueSuffix(): string {
  return randomUUID().replace(/-/g, '').slice(0, 10);
}

export interface TestUser {
  userid: number;
  token: string;
  email: string;
  password: string;
  unique_username: string;
}

/** A fresh user created by the Admin, with its own token. */
export async function createUser(
  options: { privileges?: Array<'Admin' | 'Author' | 'User'>; username?: string } = {},
): Promise<TestUser> {
  const suffix = uniqueSuffix();
  const email = `user.${suffix}@example.com`;
  const password = `pw-${suffix}-Secret`;
  const unique_username = `u_${suffix}`;
  const admin = await loginAdmin();
  const created = await api('POST', '/users', {
    token: admin,
    body: { email, username: options.username ?? `Test User ${suffix}`, password, unique_username },
  });
  if (created.status !== 201) throw new Error(`createUser failed: ${created.status} ${created.text}`);
  const userid = created.body.userid as number;
  if (options.privileges) {
    const patched = await api('PATCH', `/users/${userid}`, { token: admin, body: { privileges: options.privileges } });
    if (patched.status !== 200) throw new Error(`set privileges failed: ${patched.status} ${patched.text}`);
  }
  const login = await api('POST', '/user/token', { body: { email, password } });
  return { userid, token: login.body.authToken, email, password, unique_username };
}

export interface TestTeam {
  teamid: number;
  name: string;
  owner: number;
  [field: string]: unknown;
}

/** A team created by the Admin (POST /teams); `body` overrides the defaults. */
export async function createTeam(body: Record<string, unknown> = {}): Promise<TestTeam> {
  const response = await api('POST', '/teams', {
    token: await loginAdmin(),
    body: { name: `Team ${uniqueSuffix()}`, ...body },
  });
  if (response.status !== 201) throw new Error(`createTeam: ${response.status} ${response.text}`);
  return response.body as TestTeam;
}
