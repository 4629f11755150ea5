/**
 * Site API tokens over HTTP (decision 227): shown once, stored hashed, a service principal held to
 * its scopes (read-only = GET/HEAD), named in the audit records it causes, last use to the
 * minute, revoked at once.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { AUTH_CACHE_TTL_MS } from '../../shared/http/authenticate.ts';
import { api, createUser, loginAdmin } from '../support/api.ts';

let admin: string;

beforeAll(async () => {
  admin = await loginAdmin();
});

async function mint(name: string, scopes: string[]) {
  const response = await api('POST', '/admin/api_tokens', { token: admin, body: { name, scopes } });
  expect(response.status).toBe(201);
  return response.body as { tokenid: string; token: string; name: string; scopes: string[] };
}

const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

describe('API token management', () => {
  it('creates a token shown once, in a form no session token has, and lists and reads it without it', async () => {
    const created = await mint('Reporting', ['read-only']);
    expect(created.token).toMatch(/^swk_[0-9a-f]{16}_[0-9a-f]{64}$/);
    expect(created.token).not.toMatch(/^[0-9a-f]{64}\.\d+$/);
    expect(created.token.startsWith(`swk_${created.tokenid}_`)).toBe(true);
    expect(created).toMatchObject({ name: 'Reporting', scopes: ['read-only'], last_used_date: null });

    const listed = await api('GET', '/admin/api_tokens', { token: admin });
    expect(listed.status).toBe(200);
    const entry = listed.body.api_tokens.find((token: { tokenid: string }) => token.tokenid === created.tokenid);
    expect(entry).toMatchObject({ name: 'Reporting', scopes: ['read-only'] });
    expect(JSON.stringify(listed.body)).not.toContain(created.token.slice(22));
    const one = await api('GET', `/admin/api_tokens/${created.tokenid}`, { token: admin });
    expect(one.status).toBe(200);
    expect(one.body.token).toBeUndefined();
  });

  it('refuses bad bodies, non-Admins, and tokens managing tokens', async () => {
    const empty = await api('POST', '/admin/api_tokens', { token: admin, body: { name: 'x', scopes: [] } });
    expect(empty.status).toBe(422);
    const unknown = await api('POST', '/admin/api_tokens', { token: admin, body: { name: 'x', scopes: ['root'] } });
    expect(unknown.status).toBe(422);
    const twice = await api('POST', '/admin/api_tokens', {
      token: admin,
      body: { name: 'x', scopes: ['full', 'full'] },
    });
    expect(twice.status).toBe(422);
    const user = await createUser();
    expect((await api('GET', '/admin/api_tokens', { token: user.token })).status).toBe(403);
    const full = await mint('Automation', ['full']);
    const byToken = await api('POST', '/admin/api_tokens', {
      token: full.token,
      body: { name: 'y', scopes: ['full'] },
    });
    expect(byToken.status).toBe(403);
    expect((await api('GET', '/admin/api_tokens', { token: full.token })).status).toBe(403);
  });

  it('404s an unknown token id and a second revocation', async () => {
    expect((await api('GET', '/admin/api_tokens/0123456789abcdef', { token: admin })).status).toBe(404);
    const created = await mint('Short-lived', ['read-only']);
    expect((await api('DELETE', `/admin/api_tokens/${created.tokenid}`, { token: admin })).status).toBe(204);
    expect((await api('DELETE', `/admin/api_tokens/${created.tokenid}`, { token: admin })).status).toBe(404);
  });
});

describe('a token as a service principal', () => {
  it('read-only: GET and HEAD through either scheme, anything else 403', async () => {
    const created = await mint('Read only', ['read-only']);
    const target = await createUser();
    expect((await api('GET', `/users/${target.userid}`, { token: created.token })).status).toBe(200);
    expect((await api('GET', `/users/${target.userid}`, bearer(created.token))).status).toBe(200);
    const write = await api('PATCH', `/users/${target.userid}`, { token: created.token, body: { location: 'x' } });
    expect(write.status).toBe(403);
    expect(write.body.message).toMatch(/read-only/);
  });

  it('full: writes as an Admin, and the audit record names the token, not a user', async () => {
    const created = await mint('Role sync', ['full']);
    const target = await createUser();
    const changed = await api('PATCH', `/users/${target.userid}`, {
      token: created.token,
      body: { privileges: ['Author'] },
    });
    expect(changed.status).toBe(200);
    const audit = await api('GET', `/audit/users/${target.userid}`, { token: admin });
    const record = audit.body.records.find((entry: { action: string }) => entry.action === 'user.privileges_changed');
    expect(record).toMatchObject({ actor_userid: null, actor_tokenid: created.tokenid });
  });

  it('a scim or external-courses token reaches nothing of the general API', async () => {
    const created = await mint('Provisioning', ['scim', 'external-courses']);
    const target = await createUser();
    expect((await api('GET', `/users/${target.userid}`, { token: created.token })).status).toBe(403);
  });

  it("records its last use, and stops working once revoked (past the containers' auth cache)", async () => {
    const created = await mint('Revocable', ['read-only']);
    const target = await createUser();
    expect((await api('GET', `/users/${target.userid}`, { token: created.token })).status).toBe(200);
    const used = await api('GET', `/admin/api_tokens/${created.tokenid}`, { token: admin });
    expect(used.body.last_used_date).toBeGreaterThan(0);
    // A second request within the minute leaves it as it was.
    expect((await api('GET', `/users/${target.userid}`, { token: created.token })).status).toBe(200);
    const again = await api('GET', `/admin/api_tokens/${created.tokenid}`, { token: admin });
    expect(again.body.last_used_date).toBe(used.body.last_used_date);

    expect((await api('DELETE', `/admin/api_tokens/${created.tokenid}`, { token: admin })).status).toBe(204);
    // Another function's warm container may honour what it cached for up to AUTH_CACHE_TTL_MS
    // (decision 106; as deployed, and in verify:deploy's one process per function).
    await new Promise((resolve) => setTimeout(resolve, AUTH_CACHE_TTL_MS + 100));
    expect((await api('GET', `/users/${target.userid}`, { token: created.token })).status).toBe(401);
    expect((await api('GET', `/users/${target.userid}`, bearer(created.token))).status).toBe(401);
  });

  it('401s an altered token and a user token sent as Bearer', async () => {
    const created = await mint('Altered', ['read-only']);
    const altered = `${created.token.slice(0, -1)}${created.token.endsWith('0') ? '1' : '0'}`;
    const target = await createUser();
    expect((await api('GET', `/users/${target.userid}`, { token: altered })).status).toBe(401);
    expect((await api('GET', `/users/${target.userid}`, bearer(target.token))).status).toBe(401);
  });
});
