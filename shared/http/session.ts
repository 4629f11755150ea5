/**
 * Browser sessions (docs/sessions.md, decisions 216-218). A session is an API token of the
 * token store carried in an HttpOnly cookie, so logout, a password change and every other
 * revocation end it exactly as they end a token. The cookie authenticates page routes and
 * `GET /api/2.0/user` only (`page` / `sessionCookie` route flags, read by the router).
 *
 * Form POSTs carry a CSRF token derived from the cookie that ties them to this browser: the
 * session cookie once signed in, before that a random pre-session cookie set by the page that
 * shows the form. A cross-site POST has neither the cookie (SameSite=Lax) nor the token.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { config } from '../config.ts';
import { ForbiddenError } from '../domain/errors.ts';
import { sha256Hex } from '../domain/secrets.ts';
import { issueToken } from '../accounts/accounts.ts';
import type { Reply } from './route.ts';

export const SESSION_COOKIE = 'stepwise_session';
export const PRE_SESSION_COOKIE = 'stepwise_presession';
/** Where a visitor signs in; anonymous visitors of closed pages are sent here. */
export const LOGIN_PATH = '/login';
/** The form field every form POST carries. */
export const CSRF_FIELD = 'csrf';

/** What no page may be kept as: it shows a session's user or a form's token. */
export const NO_STORE = 'private, no-store';

/** The request's cookies by name (the router folds API Gateway's `event.cookies` into this header). */
export function requestCookies(headers: Record<string, string>): Record<string, string> {
  const cookies: Record<string, string> = {};
  for (const part of (headers.cookie ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at <= 0) continue;
    const name = part.slice(0, at).trim();
    // The first of two cookies with one name wins, as browsers send the most specific path first.
    if (!(name in cookies)) cookies[name] = part.slice(at + 1).trim();
  }
  return cookies;
}

/**
 * The cookie `POST /user/token` sets beside the token it answers, named as the real service names
 * its own (`session_<siteid>`), so a tool that logs in through the API and then opens pages with
 * the login answer's cookie is signed in there (decision 279).
 */
export function loginCookieName(): string {
  return `session_${config().STEPWISE_SITE_ID}`;
}

/** What the real service's tools send as the session cookie: the login answer's cookie, or `PHPSESSID`. */
const TOKEN_COOKIE_NAMES = (): string[] => [loginCookieName(), 'PHPSESSID'];

/**
 * The session token the request's cookies carry, if any (valid or not: the router decides).
 * `stepwise_session` counts for every request of a route that reads the cookie; the API token sent
 * under the real service's cookie names (`session_<siteid>`, `PHPSESSID`) counts for reads only
 * (GET, HEAD): a write from a page authenticates by `stepwise_session` and its CSRF token
 * (decision 279, docs/sessions.md).
 */
export function sessionTokenOf(headers: Record<string, string>, method = 'GET'): string | undefined {
  const cookies = requestCookies(headers);
  if (cookies[SESSION_COOKIE]) return cookies[SESSION_COOKIE];
  if (method !== 'GET' && method !== 'HEAD') return undefined;
  for (const name of TOKEN_COOKIE_NAMES()) if (cookies[name]) return cookies[name];
  return undefined;
}

/** Secure everywhere but a site served from this machine (http://localhost, 127.0.0.1 in the tests). */
export function cookiesAreSecure(siteUrl = config().STEPWISE_SITE_URL): boolean {
  const { hostname } = new URL(siteUrl);
  return !(hostname === 'localhost' || hostname === '127.0.0.1' || hostname === '[::1]');
}

function cookie(name: string, value: string, maxAgeSeconds: number): string {
  const secure = cookiesAreSecure() ? '; Secure' : '';
  return `${name}=${value}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${secure}`;
}

export function sessionCookie(token: string): string {
  return cookie(SESSION_COOKIE, token, config().STEPWISE_TOKEN_TTL_DAYS * 86400);
}

export function endedSessionCookie(): string {
  return cookie(SESSION_COOKIE, '', 0);
}

/** The login answer's cookie: the token it answers, under the real service's name (decision 279). */
export function loginSessionCookie(token: string): string {
  return cookie(loginCookieName(), token, config().STEPWISE_TOKEN_TTL_DAYS * 86400);
}

/** `DELETE /user/token` clears the login answer's cookie with the token it carried. */
export function endedLoginSessionCookie(): string {
  return cookie(loginCookieName(), '', 0);
}

/** The CSRF token of a cookie value: only who can read the cookie can compute it. */
function csrfTokenOf(cookieValue: string): string {
  return sha256Hex(`stepwise-csrf\u0000${cookieValue}`);
}

/**
 * The CSRF token a page puts in its forms, and the pre-session cookie to set when the visitor
 * has no cookie to tie it to yet.
 */
export function formCsrf(headers: Record<string, string>): { token: string; cookies: string[] } {
  const cookies = requestCookies(headers);
  const tiedTo = cookies[SESSION_COOKIE] || cookies[PRE_SESSION_COOKIE];
  if (tiedTo) return { token: csrfTokenOf(tiedTo), cookies: [] };
  const preSession = randomBytes(32).toString('hex');
  // A day: a login form left open longer is reloaded.
  return { token: csrfTokenOf(preSession), cookies: [cookie(PRE_SESSION_COOKIE, preSession, 86400)] };
}

function sameText(left: string, right: string): boolean {
  const a = Buffer.from(left);
  const b = Buffer.from(right);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Refuses (403) a form POST whose CSRF token is not that of one of the request's own cookies. */
export function checkCsrf(headers: Record<string, string>, submitted: unknown): void {
  const cookies = requestCookies(headers);
  const tiedTo = [cookies[SESSION_COOKIE], cookies[PRE_SESSION_COOKIE]].filter((value): value is string => !!value);
  if (typeof submitted !== 'string' || !tiedTo.some((value) => sameText(csrfTokenOf(value), submitted)))
    throw new ForbiddenError('This form expired or was not sent from this site; reload the page and try again');
}

/**
 * A path of this site to go back to after signing in: a relative path only (never `//host`,
 * `/\host` or a scheme), else `/`. What the login form and redirects accept, so no open redirect.
 * Normalised until it no longer changes, and checked again each time: one normalisation may make
 * a path of another host (`/.//evil.example` becomes `//evil.example`; issue 35 item 9).
 */
export function safeReturnTo(value: unknown): string {
  let current = value;
  for (let round = 0; round < 4; round++) {
    const next = normalisedPath(current);
    if (next === undefined) return '/';
    if (next === current) return next;
    current = next;
  }
  return '/';
}

/** One normalisation of a same-site path, or undefined for anything that is not one. */
function normalisedPath(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > 2048 || !value.startsWith('/')) return undefined;
  if (/[\u0000-\u001f\\]/.test(value) || value.startsWith('//')) return undefined;
  const base = 'https://stepwise.invalid';
  const url = new URL(value, base);
  if (url.origin !== base) return undefined;
  return url.pathname + url.search + url.hash;
}

/** The 302 an anonymous visitor of a closed page gets: to login, and back here afterwards. */
export function loginRedirect(pathAndQuery: string): Reply {
  const location = `${LOGIN_PATH}?returnTo=${encodeURIComponent(safeReturnTo(pathAndQuery))}`;
  return { kind: 'reply', status: 302, headers: { location, 'cache-control': NO_STORE } };
}

/**
 * Starts a session for a user whose identity is settled (password login here; company sign-in
 * by OIDC, SAML or a remote login once it ends): mints a token of the token store, sets it as
 * the session cookie and sends the browser on to `returnTo` (a path of this site only). The
 * pre-session cookie is dropped: its forms' tokens are no longer good.
 */
export async function startSession(userid: number, returnTo?: string): Promise<Reply> {
  const token = await issueToken(userid);
  return {
    kind: 'reply',
    status: 303,
    headers: { location: safeReturnTo(returnTo), 'cache-control': NO_STORE },
    cookies: [sessionCookie(token), cookie(PRE_SESSION_COOKIE, '', 0)],
  };
}
