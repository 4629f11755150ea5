/**
 * OpenID Connect sign-in (docs/identity.md, decision 233) against oidc-provider running in this
 * process: the code flow with PKCE end to end, then every lie a provider (or whoever stands
 * between) could tell: wrong audience, wrong issuer, expired, another nonce, unsigned, a
 * replayed or foreign callback. Each refusal is a 401 page and no session.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createTeam, loginAdmin, siteUrl, uniqueSuffix } from '../support/api.ts';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { Visitor } from '../support/sessions.ts';
import { localDb, putForThisTest } from '../support/local-db.ts';
import { startOp, throughOp, type Tamper, type TestOp } from '../support/oidc-op.ts';

const providerid = `op-${uniqueSuffix()}`;
let op: TestOp;
let admin: string;

beforeAll(async () => {
  op = await startOp(`${siteUrl()}/sso/${providerid}/callback`);
  admin = await loginAdmin();
  const created = await api('POST', '/admin/identity_providers', {
    token: admin,
    body: {
      providerid,
      kind: 'oidc',
      name: 'Test OP',
      issuer: op.issuer,
      client_id: op.clientId,
      client_secret: op.clientSecret,
      jit: true,
      role_claim: 'groups',
      role_map: { 'stepwise-authors': 'Author' },
    },
  });
  expect(created.status).toBe(201);
});

afterAll(async () => {
  await op?.close();
});

function newPerson(): { sub: string; email: string } {
  const suffix = uniqueSuffix();
  const sub = `sub-${suffix}`;
  const email = `oidc.${suffix}@example.com`;
  op.accounts.set(sub, { email, email_verified: true, name: `Olivia ${suffix}`, groups: ['stepwise-authors'] });
  op.signInAs(sub);
  return { sub, email };
}

/** Starts at Stepwise, goes through the provider, and comes back to the callback (not yet opened). */
async function toCallback(visitor: Visitor, returnTo = '/'): Promise<string> {
  const start = await visitor.get(`/sso/${providerid}/login?returnTo=${encodeURIComponent(returnTo)}`);
  expect(start.status).toBe(302);
  const back = await throughOp(op, start.headers.get('location')!);
  expect(back.startsWith(`${siteUrl()}/sso/${providerid}/callback?`)).toBe(true);
  return back.slice(siteUrl().length);
}

describe('OpenID Connect sign-in', () => {
  it('signs in through the provider (PKCE, state, nonce), creates the account with its mapped role', async () => {
    const person = newPerson();
    const visitor = new Visitor();
    const start = await visitor.get(`/sso/${providerid}/login?returnTo=${encodeURIComponent('/Guide/Fix/1')}`);
    const authorize = new URL(start.headers.get('location')!);
    expect(authorize.origin).toBe(op.issuer);
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('nonce')).toBeTruthy();
    expect(authorize.searchParams.get('state')).toBe(visitor.cookies.get('stepwise_sso_state'));
    const back = await throughOp(op, authorize.toString());
    const done = await visitor.get(back.slice(siteUrl().length));
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe('/Guide/Fix/1');
    expect(visitor.cookies.has('stepwise_sso_state')).toBe(false);
    const me = await api('GET', '/user', { headers: visitor.cookieHeader() });
    expect(me.status).toBe(200);
    expect(me.body.authToken).toBe(visitor.cookies.get('stepwise_session'));
    const account = await api('GET', `/users/${me.body.userid}`, { token: admin });
    expect(account.body).toMatchObject({ sso_userid: `${providerid}|${person.sub}`, privileges: ['User', 'Author'] });
    // Discovery, the keys and the token exchange all came through the SSRF-safe request.
    const fromServer = op.requests.filter((request) =>
      ['/.well-known/openid-configuration', '/jwks', '/token'].includes(request.path),
    );
    expect(new Set(fromServer.map((request) => request.path))).toEqual(
      new Set(['/.well-known/openid-configuration', '/jwks', '/token']),
    );
    expect(new Set(fromServer.map((request) => request.userAgent))).toEqual(new Set(['Stepwise single sign-on']));
  });

  const hourAgo = () => Math.floor(Date.now() / 1000) - 3600;
  it('puts a new account in the teams its claim maps to (a removed team is skipped)', async () => {
    const team = await createTeam();
    const mapped = await api('PATCH', `/admin/identity_providers/${providerid}`, {
      token: admin,
      body: { team_claim: 'groups', team_map: { 'stepwise-authors': team.teamid, 'gone-team': 999_999_999 } },
    });
    expect(mapped.status).toBe(200);
    try {
      const person = newPerson();
      op.accounts.get(person.sub)!.groups = ['stepwise-authors', 'gone-team'];
      const visitor = new Visitor();
      expect((await visitor.get(await toCallback(visitor))).status).toBe(303);
      const me = await api('GET', '/user', { headers: visitor.cookieHeader() });
      expect(me.body.teams).toEqual([team.teamid]);
      const members = await api('GET', `/teams/${team.teamid}`, { token: admin });
      expect(members.body.map((member: { userid: number }) => member.userid)).toContain(me.body.userid);
    } finally {
      await api('PATCH', `/admin/identity_providers/${providerid}`, {
        token: admin,
        body: { team_claim: null, team_map: {} },
      });
    }
  });

  const lies: Array<[string, Tamper, RegExp]> = [
    ['another audience', (claims) => ({ claims: { ...claims, aud: 'someone-else' } }), /\(aud\)/],
    ['another issuer', (claims) => ({ claims: { ...claims, iss: 'http://127.0.0.1:1/not-the-issuer' } }), /\(iss\)/],
    ['an expired token', (claims) => ({ claims: { ...claims, iat: hourAgo() - 60, exp: hourAgo() } }), /\(exp\)/],
    ['another nonce', (claims) => ({ claims: { ...claims, nonce: 'not-the-nonce' } }), /\(nonce\)/],
    ['an unsigned token', (claims) => ({ claims, unsigned: true }), /refused/],
    ['a token signed by another key', (claims) => ({ claims, foreignKey: true }), /signature/i],
  ];

  for (const [lie, tamper, why] of lies) {
    it(`refuses ${lie} in the ID token: 401, no session`, async () => {
      newPerson();
      const visitor = new Visitor();
      const callback = await toCallback(visitor);
      op.tamperNext(tamper);
      const refused = await visitor.get(callback);
      expect(refused.status).toBe(401);
      expect(refused.text).toMatch(why);
      expect(refused.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(visitor.cookies.has('stepwise_session')).toBe(false);
    });
  }

  it('refuses a callback used twice, one opened in another browser, and a provider error', async () => {
    newPerson();
    const visitor = new Visitor();
    const callback = await toCallback(visitor);
    const stranger = new Visitor();
    expect((await stranger.get(callback)).status).toBe(401);
    expect((await visitor.get(callback)).status).toBe(303);
    const again = new Visitor();
    again.cookies.set('stepwise_sso_state', new URL(callback, siteUrl()).searchParams.get('state')!);
    expect((await again.get(callback)).status).toBe(401);
    const denied = await new Visitor().get(`/sso/${providerid}/callback?error=access_denied&state=x`);
    expect(denied.status).toBe(401);
    expect(denied.text).toContain('access_denied');
  });

  it('steps up before signing: a forced fresh login at the provider, kept for the window (§4)', async () => {
    const person = newPerson();
    const visitor = new Visitor();
    expect((await visitor.get(await toCallback(visitor))).status).toBe(303);
    const token = visitor.cookies.get('stepwise_session')!;
    const before = await api('GET', '/user/step_up', { token });
    expect(before.body).toEqual({
      required: true,
      step_up_url: `${siteUrl()}/sso/step_up`,
      method: null,
      auth_time: null,
      fresh_until: null,
    });
    const start = await visitor.get('/sso/step_up?returnTo=%2Fsign');
    expect(start.status).toBe(302);
    const authorize = new URL(start.headers.get('location')!);
    expect(authorize.searchParams.get('prompt')).toBe('login');
    expect(authorize.searchParams.get('max_age')).toBe('0');
    op.signInAs(person.sub);
    const back = await throughOp(op, authorize.toString());
    const done = await visitor.get(back.slice(siteUrl().length));
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe('/sign');
    const after = await api('GET', '/user/step_up', { token });
    expect(after.body.method).toBe('oidc');
    expect(Math.abs(after.body.auth_time - Date.now() / 1000)).toBeLessThan(30);
    expect(after.body.fresh_until).toBe(after.body.auth_time + 300);
  });

  it('refuses a step-up where someone else signs in at the provider, and one for a password account', async () => {
    newPerson();
    const visitor = new Visitor();
    expect((await visitor.get(await toCallback(visitor))).status).toBe(303);
    const start = await visitor.get('/sso/step_up');
    newPerson();
    const back = await throughOp(op, start.headers.get('location')!);
    const refused = await visitor.get(back.slice(siteUrl().length));
    expect(refused.status).toBe(403);
    const token = visitor.cookies.get('stepwise_session')!;
    expect((await api('GET', '/user/step_up', { token })).body.fresh_until).toBeNull();
    const admin = new Visitor();
    await admin.signIn('admin@example.com', 'stepwise-admin');
    expect((await admin.get('/sso/step_up')).status).toBe(403);
    const status = await api('GET', '/user/step_up', { token: admin.cookies.get('stepwise_session')! });
    expect(status.body).toMatchObject({ required: false, step_up_url: null });
  });

  it('refuses an issuer on an internal address when the provider is saved (422 on issuer), created or patched', async () => {
    // The same running provider, but as `localhost`: the test stack allow-lists 127.0.0.1 only.
    const issuer = op.issuer.replace('127.0.0.1', 'localhost');
    const providerid = `internal-${uniqueSuffix()}`;
    const body = { providerid, kind: 'oidc', name: 'Internal', issuer, client_id: op.clientId, jit: true };
    const created = await api('POST', '/admin/identity_providers', { token: admin, body });
    expect(created.status).toBe(422);
    expect(created.body.errors[0]).toMatchObject({ field: 'issuer', code: 'url_not_allowed' });
    for (const address of ['https://10.0.0.8/realms/x', 'https://169.254.169.254/', 'https://[::1]:8443/']) {
      const literal = await api('POST', '/admin/identity_providers', {
        token: admin,
        body: { ...body, issuer: address },
      });
      expect(literal.status).toBe(422);
      expect(literal.body.errors[0]).toMatchObject({ field: 'issuer', code: 'url_not_allowed' });
    }
    expect((await api('GET', `/admin/identity_providers/${providerid}`, { token: admin })).status).toBe(404);
    // A name that does not resolve (yet) is kept: every sign-in vets it again.
    const unresolved = await api('POST', '/admin/identity_providers', {
      token: admin,
      body: { ...body, providerid: `${providerid}-later`, issuer: 'https://idp.invalid/realms/x' },
    });
    expect(unresolved.status).toBe(201);
    await api('DELETE', `/admin/identity_providers/${providerid}-later`, { token: admin });

    const saved = await api('POST', '/admin/identity_providers', {
      token: admin,
      body: { ...body, issuer: op.issuer },
    });
    expect(saved.status).toBe(201);
    try {
      const patched = await api('PATCH', `/admin/identity_providers/${providerid}`, { token: admin, body: { issuer } });
      expect(patched.status).toBe(422);
      expect(patched.body.errors[0]).toMatchObject({ field: 'issuer', code: 'url_not_allowed' });
      const kept = await api('GET', `/admin/identity_providers/${providerid}`, { token: admin });
      expect(kept.body).toEqual(saved.body);
      // Other fields still change while the issuer stays as it is.
      const renamed = await api('PATCH', `/admin/identity_providers/${providerid}`, {
        token: admin,
        body: { name: 'Internal, renamed' },
      });
      expect(renamed.status).toBe(200);
    } finally {
      await api('DELETE', `/admin/identity_providers/${providerid}`, { token: admin });
    }
  });

  it('fetches the issuer through the SSRF rules at sign-in too: a name that resolves inward later is refused', async () => {
    // Saved while its name was public, the issuer's name now resolves to loopback (DNS moved):
    // written behind the service's back, as the save would refuse it.
    const internal = `internal-${uniqueSuffix()}`;
    const issuer = op.issuer.replace('127.0.0.1', 'localhost');
    const created = await api('POST', '/admin/identity_providers', {
      token: admin,
      body: {
        providerid: internal,
        kind: 'oidc',
        name: 'Internal',
        issuer: op.issuer,
        client_id: op.clientId,
        jit: true,
      },
    });
    expect(created.status).toBe(201);
    const key = { pk: `IDP#${internal}`, sk: 'IDP' };
    const { Item } = await localDb().send(new GetCommand({ TableName: 'stepwise', Key: key, ConsistentRead: true }));
    expect((await api('DELETE', `/admin/identity_providers/${internal}`, { token: admin })).status).toBe(204);
    await putForThisTest({ ...key, ...Item, issuer });

    const refused = await new Visitor().get(`/sso/${internal}/login`);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(refused.text).toContain(
      `The identity provider&#39;s issuer ${issuer} was refused: The URL could not be fetched`,
    );
  });

  it('answers 404 for a provider that does not exist or is switched off', async () => {
    expect((await new Visitor().get('/sso/no-such-provider/login')).status).toBe(404);
  });
});
