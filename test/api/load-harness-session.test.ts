/**
 * Issue 39, item 1: Dozuki's load-test harness logs in with `POST /api/2.0/user/token` and opens
 * guide pages with the session: one version sends `Cookie: PHPSESSID=<authToken>`, a newer one
 * sends back the cookie of the login answer whose name starts with `session`. Over HTTP against
 * the local stack (a private site), with the harness's own calls (decision 279, docs/sessions.md).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, site } from '../support/api.ts';
import { createGuide } from './guide-fixtures.ts';

const pathOf = (url: string) => new URL(url).pathname;

let author: Awaited<ReturnType<typeof createUser>>;
let guidePath: string;

beforeAll(async () => {
  author = await createUser({ privileges: ['Author'] });
  guidePath = pathOf((await createGuide(author.token)).url);
}, 120_000);

async function harnessLogin(): Promise<{ token: string; setCookie: string }> {
  const login = await api('POST', '/user/token', {
    body: { email: author.email, password: author.password },
    headers: { 'content-type': 'application/json' },
  });
  expect(login.status).toBe(201);
  const setCookie = login.headers.getSetCookie().find((line) => line.startsWith('session'));
  expect(setCookie).toBeDefined();
  return { token: login.body.authToken, setCookie: setCookie! };
}

/** The `name=value` part of a Set-Cookie line, as a client sends it back. */
const cookiePair = (setCookie: string) => setCookie.split(';')[0]!;

describe('the login answer sets the session cookie as the real service does', () => {
  it('sets session_<siteid> carrying the token: HttpOnly, SameSite=Lax, not Secure on a loopback site', async () => {
    const { token, setCookie } = await harnessLogin();
    expect(setCookie).toMatch(new RegExp(`^session_1=${token}; Path=/; Max-Age=\\d+; HttpOnly; SameSite=Lax$`));
  });

  it('opens a guide page with the login answer cookie sent back (the newer harness)', async () => {
    const { setCookie } = await harnessLogin();
    const page = await site('GET', guidePath, { headers: { cookie: cookiePair(setCookie) } });
    expect(page.status).toBe(200);
    expect(page.text).toContain('Signed in as <strong>');
  });

  it('opens a guide page with Cookie: PHPSESSID=<authToken> (the older harness)', async () => {
    const { token } = await harnessLogin();
    const page = await site('GET', guidePath, { headers: { cookie: `PHPSESSID=${token}` } });
    expect(page.status).toBe(200);
    expect(page.text).toContain('Signed in as <strong>');
    // No cookie, or a cookie naming no live token: anonymous, sent to login (a private site).
    expect((await site('GET', guidePath)).status).toBe(302);
    const forged = await site('GET', guidePath, { headers: { cookie: `PHPSESSID=${'0'.repeat(64)}.1` } });
    expect(forged.status).toBe(302);
    expect(forged.headers.get('location')).toBe(`/login?returnTo=${encodeURIComponent(guidePath)}`);
  });

  it('the token cookies authenticate page reads only: no API route, no form POST', async () => {
    const { token } = await harnessLogin();
    // An API route ignores every cookie (decision 216).
    expect((await api('GET', '/user/guides', { headers: { cookie: `PHPSESSID=${token}` } })).status).toBe(401);
    // A write from a page keeps its CSRF token: the token cookie alone signs no one out.
    const logout = await site('POST', '/logout', {
      headers: {
        cookie: `PHPSESSID=${token}; session_1=${token}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      rawBody: 'csrf=x',
    });
    expect(logout.status).toBe(403);
    expect((await api('GET', '/user', { token })).status).toBe(200);
  });

  it('ends with the token: DELETE /user/token clears the cookie and the page is closed again', async () => {
    const { token, setCookie } = await harnessLogin();
    const out = await api('DELETE', '/user/token', { token });
    expect(out.status).toBe(204);
    expect(out.headers.getSetCookie()).toEqual([expect.stringMatching(/^session_1=; Path=\/; Max-Age=0; HttpOnly/)]);
    expect((await site('GET', guidePath, { headers: { cookie: cookiePair(setCookie) } })).status).toBe(302);
    expect((await site('GET', guidePath, { headers: { cookie: `PHPSESSID=${token}` } })).status).toBe(302);
  });
});
