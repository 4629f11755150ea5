/** HTTP helpers for API tests against the local stack started by the global setup. */
import { inject } from 'vitest';
import { randomUUID } from 'node:crypto';

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
}

export const ADMIN = { email: 'admin@example.com', password: 'stepwise-admin' };

export function apiUrl(): string {
  return inject('apiUrl');
}

export function api<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
  return apiAt<T>(apiUrl(), method, path, options);
}

/** The same request against another stack (a second stack started with other settings). */
export async function apiAt<T = any>(baseUrl: string, method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
  const url = new URL(baseUrl + path);
  for (const [name, value] of Object.entries(options.query ?? {})) url.searchParams.set(name, String(value));
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.token) headers.authorization = `api ${options.token}`;
  const body = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  const response = await fetch(url, { method, headers, body, redirect: 'manual' });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON (XML, HTML)
  }
  return { status: response.status, body: parsed as T, text, headers: response.headers };
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
export async function createUser(options: { privileges?: Array<'Admin' | 'Author' | 'User'>; username?: string } = {}): Promise<TestUser> {
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
  const response = await api('POST', '/teams', { token: await loginAdmin(), body: { name: `Team ${uniqueSuffix()}`, ...body } });
  if (response.status !== 201) throw new Error(`createTeam: ${response.status} ${response.text}`);
  return response.body as TestTeam;
}
