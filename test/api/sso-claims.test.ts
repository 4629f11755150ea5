/**
 * What an OpenID Provider actually sends (issue 40, issue 35 item 9): claims given only at the
 * UserInfo endpoint (OIDC Core §5.4, oidc-provider's default) sign people in, fetched through the
 * SSRF-safe request; claim values are data (`constructor`, `toString` map to nothing, no 500, no
 * half-made account); a subject longer than OIDC allows is a 401, not a 500.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, loginAdmin, siteUrl, uniqueSuffix } from '../support/api.ts';
import { Visitor } from '../support/sessions.ts';
import { startOp, throughOp, type TestOp } from '../support/oidc-op.ts';

const providerid = `ui-${uniqueSuffix()}`;
let op: TestOp;
let admin: string;

beforeAll(async () => {
  op = await startOp(`${siteUrl()}/sso/${providerid}/callback`, { claimsAtUserInfo: true });
  admin = await loginAdmin();
  const created = await api('POST', '/admin/identity_providers', {
    token: admin,
    body: {
      providerid,
      kind: 'oidc',
      name: 'UserInfo OP',
      issuer: op.issuer,
      client_id: op.clientId,
      client_secret: op.clientSecret,
      jit: true,
      role_claim: 'groups',
      role_map: { 'stepwise-authors': 'Author' },
    },
  });
  expect(created.status, created.text).toBe(201);
});

afterAll(async () => {
  await op?.close();
});

async function signIn(sub: string) {
  op.signInAs(sub);
  const visitor = new Visitor();
  const start = await visitor.get(`/sso/${providerid}/login?returnTo=%2F`);
  expect(start.status).toBe(302);
  const back = await throughOp(op, start.headers.get('location')!);
  const done = await visitor.get(back.slice(siteUrl().length));
  return { visitor, done };
}

describe('OpenID Connect claims', () => {
  it('reads email, name and groups from UserInfo when the ID token leaves them out', async () => {
    const suffix = uniqueSuffix();
    const sub = `ui-${suffix}`;
    const email = `userinfo.${suffix}@example.com`;
    op.accounts.set(sub, { email, email_verified: true, name: `Uma ${suffix}`, groups: ['stepwise-authors'] });
    const { visitor, done } = await signIn(sub);
    expect(done.status, done.text).toBe(303);
    const me = await api('GET', '/user', { headers: visitor.cookieHeader() });
    expect(me.status).toBe(200);
    const account = await api('GET', `/users/${me.body.userid}`, { token: admin });
    expect(account.body).toMatchObject({
      email,
      username: `Uma ${suffix}`,
      sso_userid: `${providerid}|${sub}`,
      privileges: ['User', 'Author'],
    });
    // UserInfo was asked through the SSRF-safe request, as discovery, keys and token were.
    const userinfo = op.requests.filter((request) => request.path === '/me');
    expect(userinfo.length).toBeGreaterThan(0);
    expect(new Set(userinfo.map((request) => request.userAgent))).toEqual(new Set(['Stepwise single sign-on']));
  });

  it('a groups claim naming constructor or toString maps to nothing: the account is made whole, no 500', async () => {
    const suffix = uniqueSuffix();
    const sub = `proto-${suffix}`;
    const email = `proto.${suffix}@example.com`;
    op.accounts.set(sub, {
      email,
      email_verified: true,
      name: 'Proto Type',
      groups: ['constructor', 'toString', '__proto__', 'hasOwnProperty'],
    });
    const mapped = await api('PATCH', `/admin/identity_providers/${providerid}`, {
      token: admin,
      body: { team_claim: 'groups', team_map: {} },
    });
    expect(mapped.status, mapped.text).toBe(200);
    try {
      const { visitor, done } = await signIn(sub);
      expect(done.status, done.text).toBe(303);
      const me = await api('GET', '/user', { headers: visitor.cookieHeader() });
      const account = await api('GET', `/users/${me.body.userid}`, { token: admin });
      expect(account.body).toMatchObject({ email, privileges: ['User'], teams: [] });
      // A second sign-in finds the same account.
      const again = await signIn(sub);
      expect(again.done.status).toBe(303);
    } finally {
      await api('PATCH', `/admin/identity_providers/${providerid}`, {
        token: admin,
        body: { team_claim: null, team_map: {} },
      });
    }
  });

  it('a subject of 3,000 characters is a 401 and makes no account', async () => {
    const suffix = uniqueSuffix();
    const sub = `long-${suffix}-${'x'.repeat(3000)}`;
    const email = `long.${suffix}@example.com`;
    op.accounts.set(sub, { email, email_verified: true, name: 'Long Sub' });
    const { visitor, done } = await signIn(sub);
    expect(done.status).toBe(401);
    expect((await api('GET', '/user', { headers: visitor.cookieHeader() })).status).toBe(401);
    expect((await api('GET', `/users/email/${encodeURIComponent(email)}`, { token: admin })).status).toBe(404);
  });
});
