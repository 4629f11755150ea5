/**
 * Dozuki's signed remote login (docs/identity.md, decision 231) and the Admin's identity
 * providers (decision 232), over HTTP against the local stack: the hash over the raw query,
 * freshness, replay, just-in-time accounts, matching by sso_userid, the customer's redirects,
 * and secrets that no answer shows.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { signRemoteLogin, remoteLoginHash } from '../../shared/domain/remote-login.ts';
import { api, createUser, loginAdmin, site, uniqueSuffix } from '../support/api.ts';

const SECRET = 'the-customer-sso-secret-0123456789';
const CUSTOMER_LOGIN = 'https://intranet.example.com/dozuki-sso';
const now = () => Math.floor(Date.now() / 1000);

let admin: string;

async function configureRemoteLogin(body: Record<string, unknown> = {}): Promise<void> {
  await api('DELETE', '/admin/identity_providers/remote_login', { token: admin });
  const created = await api('POST', '/admin/identity_providers', {
    token: admin,
    body: { kind: 'remote_login', name: 'Intranet', login_url: CUSTOMER_LOGIN, secret: SECRET, jit: true, ...body },
  });
  expect(created.status).toBe(201);
}

function remoteLogin(query: string) {
  return site('GET', `/Guide/User/remote_login?${query}`);
}

beforeAll(async () => {
  admin = await loginAdmin();
  await configureRemoteLogin();
});

describe('identity providers (Admin)', () => {
  it('keeps secrets write-only: the answers say a secret is set, never what it is', async () => {
    const providerid = `okta-${uniqueSuffix()}`;
    const created = await api('POST', '/admin/identity_providers', {
      token: admin,
      body: {
        providerid,
        kind: 'oidc',
        name: 'Okta',
        issuer: 'https://example.okta.com',
        client_id: 'client-1',
        client_secret: 'very-secret-client-secret',
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ providerid, kind: 'oidc', client_secret_set: true, jit: false });
    expect(created.body.callback_url).toMatch(new RegExp(`/sso/${providerid}/callback$`));
    const listed = await api('GET', '/admin/identity_providers', { token: admin });
    expect(listed.text).not.toContain('very-secret-client-secret');
    expect(listed.body.identity_providers.map((p: { providerid: string }) => p.providerid)).toContain(providerid);
    const remote = await api('GET', '/admin/identity_providers/remote_login', { token: admin });
    expect(remote.body).toMatchObject({ kind: 'remote_login', secret_set: true, login_url: CUSTOMER_LOGIN });
    expect(remote.text).not.toContain(SECRET);
    expect((await api('DELETE', `/admin/identity_providers/${providerid}`, { token: admin })).status).toBe(204);
    expect((await api('GET', `/admin/identity_providers/${providerid}`, { token: admin })).status).toBe(404);
  });

  it('refuses what a kind lacks, a second remote login, and callers who are not Admins', async () => {
    const missing = await api('POST', '/admin/identity_providers', {
      token: admin,
      body: { providerid: `x-${uniqueSuffix()}`, kind: 'oidc', name: 'No issuer', client_id: 'c' },
    });
    expect(missing.status).toBe(422);
    expect(missing.body.errors[0].field).toBe('issuer');
    const plainHttp = await api('POST', '/admin/identity_providers', {
      token: admin,
      body: {
        providerid: `x-${uniqueSuffix()}`,
        kind: 'oidc',
        name: 'Plain',
        issuer: 'http://idp.example.com',
        client_id: 'c',
      },
    });
    expect(plainHttp.status).toBe(422);
    const second = await api('POST', '/admin/identity_providers', {
      token: admin,
      body: { kind: 'remote_login', name: 'Again', login_url: CUSTOMER_LOGIN, secret: SECRET },
    });
    expect(second.status).toBe(409);
    const user = await createUser();
    expect((await api('GET', '/admin/identity_providers', { token: user.token })).status).toBe(403);
  });
});

describe('Dozuki remote login', () => {
  it('signs a new person in with a session (just in time), and GET /user with it answers authToken', async () => {
    const suffix = uniqueSuffix();
    const email = `remote.${suffix}@example.com`;
    const response = await remoteLogin(
      signRemoteLogin({ userid: `emp-${suffix}`, email, name: 'George', t: now() }, SECRET),
    );
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/');
    const session = /stepwise_session=([^;]+)/.exec(response.headers.getSetCookie().join('\n'))![1]!;
    const me = await api('GET', '/user', { headers: { cookie: `stepwise_session=${session}` } });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ username: 'George', authToken: session });
    const admin_view = await api('GET', `/users/${me.body.userid}`, { token: admin });
    expect(admin_view.body.sso_userid).toBe(`emp-${suffix}`);
    // The next sign-in finds the same account by its sso_userid, even with another email.
    const again = await remoteLogin(
      signRemoteLogin({ userid: `emp-${suffix}`, email: `other.${suffix}@example.com`, name: 'G', t: now() }, SECRET),
    );
    expect(again.status).toBe(303);
    const token = /stepwise_session=([^;]+)/.exec(again.headers.getSetCookie().join('\n'))![1]!;
    expect((await api('GET', '/user', { token })).body.userid).toBe(me.body.userid);
  });

  it('a signed returnTo that normalises to another host sends the browser home (issue 35 item 9)', async () => {
    const suffix = uniqueSuffix();
    for (const returnTo of ['/.//evil.example', '/a/..//evil.example/x']) {
      const query = new URLSearchParams({
        userid: `emp-rt-${suffix}`,
        email: `remote.rt.${suffix}@example.com`,
        name: 'Rita',
        t: String(now()),
        returnTo,
      }).toString();
      const response = await remoteLogin(`${query}&hash=${remoteLoginHash(query, SECRET)}`);
      expect(response.status, returnTo).toBe(303);
      expect(response.headers.get('location'), returnTo).toBe('/');
    }
  });

  it('refuses a hash made with another secret, a changed parameter, and a missing hash (401)', async () => {
    const claims = { userid: `emp-${uniqueSuffix()}`, email: `x.${uniqueSuffix()}@example.com`, name: 'X', t: now() };
    expect((await remoteLogin(signRemoteLogin(claims, 'another-secret-of-someone-else'))).status).toBe(401);
    const tampered = signRemoteLogin(claims, SECRET).replace(`userid=${claims.userid}`, 'userid=admin');
    expect((await remoteLogin(tampered)).status).toBe(401);
    const unsigned = await remoteLogin(signRemoteLogin(claims, SECRET).replace(/&hash=.*$/, ''));
    expect(unsigned.status).toBe(401);
    expect(unsigned.headers.get('content-type')).toBe('text/html; charset=utf-8');
    // The hash covers the query as sent: the same fields in another order are another query.
    const reordered = `email=${encodeURIComponent(claims.email)}&userid=${claims.userid}&name=X&t=${claims.t}`;
    const inOrder = `userid=${claims.userid}&email=${encodeURIComponent(claims.email)}&name=X&t=${claims.t}`;
    const otherOrder = `${reordered}&hash=${remoteLoginHash(inOrder, SECRET)}`;
    expect((await remoteLogin(otherOrder)).status).toBe(401);
  });

  it("keeps out of the company sign-ins' namespace: a userid `<providerid>|<sub>` signs in as no one (401)", async () => {
    const victim = await createUser();
    const subject = `corp-oidc|00u1victim${uniqueSuffix()}`;
    const bound = await api('PATCH', `/users/${victim.userid}`, { token: admin, body: { sso_userid: subject } });
    expect(bound.status, bound.text).toBe(200);
    const response = await remoteLogin(
      signRemoteLogin({ userid: subject, email: victim.email, name: 'Mallory', t: now() }, SECRET),
    );
    expect(response.status).toBe(401);
    expect(response.headers.getSetCookie().join('\n')).not.toContain('stepwise_session=');
  });

  it('refuses a stale link (t more than 5 minutes away) and a link used twice', async () => {
    const stale = signRemoteLogin(
      { userid: `emp-${uniqueSuffix()}`, email: `s.${uniqueSuffix()}@example.com`, name: 'S', t: now() - 301 },
      SECRET,
    );
    const staleAnswer = await remoteLogin(stale);
    expect(staleAnswer.status).toBe(401);
    expect(staleAnswer.text).toContain('expired');
    const fresh = signRemoteLogin(
      { userid: `emp-${uniqueSuffix()}`, email: `r.${uniqueSuffix()}@example.com`, name: 'R', t: now() },
      SECRET,
    );
    expect((await remoteLogin(fresh)).status).toBe(303);
    const replayed = await remoteLogin(fresh);
    expect(replayed.status).toBe(401);
    expect(replayed.text).toContain('already used');
  });

  it('without just-in-time creation, signs in only known accounts (by sso_userid, or email when allowed)', async () => {
    await configureRemoteLogin({ jit: false, match_verified_email: true });
    try {
      const unknown = signRemoteLogin(
        { userid: `emp-${uniqueSuffix()}`, email: `n.${uniqueSuffix()}@example.com`, name: 'N', t: now() },
        SECRET,
      );
      expect((await remoteLogin(unknown)).status).toBe(403);
      const user = await createUser();
      const byEmail = await remoteLogin(
        signRemoteLogin({ userid: `emp-${uniqueSuffix()}`, email: user.email, name: 'U', t: now() }, SECRET),
      );
      expect(byEmail.status).toBe(303);
      const token = /stepwise_session=([^;]+)/.exec(byEmail.headers.getSetCookie().join('\n'))![1]!;
      expect((await api('GET', '/user', { token })).body.userid).toBe(user.userid);
    } finally {
      await configureRemoteLogin();
    }
  });

  it('sends the browser to the customer’s login URL to sign in, register, and after signing out', async () => {
    expect((await site('GET', '/Guide/User/login')).headers.get('location')).toBe(CUSTOMER_LOGIN);
    expect((await site('GET', '/Guide/User/register')).headers.get('location')).toBe(`${CUSTOMER_LOGIN}?register=1`);
    const out = await site('GET', '/Guide/User/logged_out');
    expect(out.status).toBe(302);
    expect(out.headers.get('location')).toBe(`${CUSTOMER_LOGIN}?logout=1`);
  });
});
