/**
 * A site that signs in through its identity provider (docs/identity.md): site info reports the
 * SSO URL and that passwords are off; only break-glass Admins still sign in with a password,
 * at POST /user/token and on the login page, which links to the company sign-in; signing out
 * goes to the customer's site (Dozuki's remote login). A stack of its own, with those settings.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStackProcess, type RunningStack } from '../support/local-stack-process.ts';
import { apiAt } from '../support/api.ts';

let stack: RunningStack;
let siteRoot: string;

beforeAll(async () => {
  stack = await startStackProcess({
    STEPWISE_ADMIN_EMAIL: 'admin@example.com',
    STEPWISE_ADMIN_PASSWORD: 'stepwise-admin',
    STEPWISE_PASSWORD_LOGIN: 'admins',
    STEPWISE_SSO_PROVIDER: 'remote_login',
  });
  siteRoot = stack.url.replace(/\/api\/2\.0$/, '');
}, 60_000);

afterAll(() => stack?.stop());

describe('password sign-in switched off but for Admins', () => {
  it('site info says so: standard false, sso the company sign-in URL', async () => {
    const info = await apiAt(stack.url, 'GET', '/sites/info');
    expect(info.status).toBe(200);
    expect(info.body.authentication).toEqual({
      standard: false,
      sso: `${siteRoot}/Guide/User/login`,
      'public-registration': false,
    });
  });

  it('lets a break-glass Admin in with a password, and nobody else', async () => {
    const admin = await apiAt(stack.url, 'POST', '/user/token', {
      body: { email: 'admin@example.com', password: 'stepwise-admin' },
    });
    expect(admin.status).toBe(201);
    const email = `person.${Date.now()}@example.com`;
    const created = await apiAt(stack.url, 'POST', '/users', {
      token: admin.body.authToken,
      body: { email, username: 'Person', password: 'a-password-1234', unique_username: `person_${Date.now()}` },
    });
    expect(created.status).toBe(201);
    const refused = await apiAt(stack.url, 'POST', '/user/token', { body: { email, password: 'a-password-1234' } });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toContain('identity provider');
    // A wrong password stays the plain 401: the policy is told only to who knows the password.
    expect(
      (await apiAt(stack.url, 'POST', '/user/token', { body: { email, password: 'wrong-password' } })).status,
    ).toBe(401);
  });

  it('the login page links to the company sign-in', async () => {
    const page = await apiAt(siteRoot, 'GET', '/login', { query: { returnTo: '/Guide/Fix/3' } });
    expect(page.status).toBe(200);
    expect(page.text).toContain('<a href="/Guide/User/login">Sign in with your company account</a>');
  });

  it('signing out sends the browser to the customer’s site with logout=1, not back to sign in', async () => {
    const login = await apiAt(stack.url, 'POST', '/user/token', {
      body: { email: 'admin@example.com', password: 'stepwise-admin' },
    });
    const session = login.body.authToken as string;
    const csrf = createHash('sha256').update(`stepwise-csrf\u0000${session}`).digest('hex');
    const out = await apiAt(siteRoot, 'POST', '/logout', {
      rawBody: new URLSearchParams({ csrf }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `stepwise_session=${session}` },
    });
    expect(out.status).toBe(303);
    expect(out.headers.get('location')).toBe('/Guide/User/logged_out');
  });
});
