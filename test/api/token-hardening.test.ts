/**
 * Issue 35 items 5 and 8: an impersonation token dies with any change to its minter (demotion,
 * disabling, SCIM deletion, a new password or email; decision 261) and mints no tokens; a site
 * API token keeps its Idempotency-Key answers apart from every other token's (decision 262), and
 * the route that mints site API tokens refuses the header (a kept answer never holds a secret).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { AUTH_CACHE_TTL_MS } from '../../shared/http/authenticate.ts';
import { api, createUser, loginAdmin, uniqueSuffix, type TestUser } from '../support/api.ts';
import { localDb } from '../support/local-db.ts';

let admin: string;

beforeAll(async () => {
  admin = await loginAdmin();
});

const settle = () => new Promise((resolve) => setTimeout(resolve, AUTH_CACHE_TTL_MS + 100));

/** A fresh Admin X, signed in, who mints an impersonation token acting as a fresh Admin Y. */
async function minterAndToken(): Promise<{ minter: TestUser; actedAs: TestUser; token: string }> {
  const [minter, actedAs] = await Promise.all([
    createUser({ privileges: ['Admin'] }),
    createUser({ privileges: ['Admin'] }),
  ]);
  const minted = await api('POST', '/user/token/impersonate', {
    token: minter.token,
    body: { userid: actedAs.userid },
  });
  expect(minted.status).toBe(201);
  const token = minted.body.authToken as string;
  const self = await api('GET', '/user', { token });
  expect(self.status).toBe(200);
  expect(self.body.userid).toBe(actedAs.userid);
  return { minter, actedAs, token };
}

async function expectDead(token: string) {
  await settle();
  expect((await api('GET', '/user', { token })).status).toBe(401);
  expect((await api('GET', '/admin/api_tokens', { token })).status).toBe(401);
}

describe('an impersonation token and its minter', () => {
  it('mints no site API token, lists none, and mints no impersonation token', async () => {
    const { token } = await minterAndToken();
    const minted = await api('POST', '/admin/api_tokens', { token, body: { name: 'By imp', scopes: ['full'] } });
    expect(minted.status).toBe(403);
    expect((await api('GET', '/admin/api_tokens', { token })).status).toBe(403);
    const other = await createUser();
    expect((await api('POST', '/user/token/impersonate', { token, body: { userid: other.userid } })).status).toBe(403);
  });

  it('dies when the minter is demoted', async () => {
    const { minter, token } = await minterAndToken();
    const demoted = await api('PATCH', `/users/${minter.userid}`, { token: admin, body: { privileges: ['User'] } });
    expect(demoted.status).toBe(200);
    await expectDead(token);
  });

  it('dies when the minter is disabled or deleted by the identity provider', async () => {
    for (const change of [{ disabled: true }, { scim_deleted_date: 1_700_000_000 }]) {
      const { minter, token } = await minterAndToken();
      const [name, value] = Object.entries(change)[0];
      // SCIM refuses Admin accounts (decision 259): the state is set as a deprovisioning would leave it.
      await localDb().send(
        new UpdateCommand({
          TableName: 'stepwise',
          Key: { pk: `USER#${minter.userid}`, sk: 'USER' },
          UpdateExpression: 'SET #f = :v',
          ExpressionAttributeNames: { '#f': name },
          ExpressionAttributeValues: { ':v': value },
        }),
      );
      await expectDead(token);
    }
  });

  it("dies when the minter's password or email changes", async () => {
    const first = await minterAndToken();
    const password = await api('PATCH', `/users/${first.minter.userid}`, {
      token: first.minter.token,
      body: { password: `New-${uniqueSuffix()}-Pw`, current_password: first.minter.password },
    });
    expect(password.status).toBe(200);
    await expectDead(first.token);

    const second = await minterAndToken();
    const email = await api('PATCH', `/users/${second.minter.userid}`, {
      token: second.minter.token,
      body: { email: `moved.${uniqueSuffix()}@example.com`, current_password: second.minter.password },
    });
    expect(email.status).toBe(200);
    await expectDead(second.token);
  });

  it('lives on while the minter changes nothing of their credentials, role or state', async () => {
    const { minter, token } = await minterAndToken();
    const located = await api('PATCH', `/users/${minter.userid}`, { token: admin, body: { location: 'Bay 4' } });
    expect(located.status).toBe(200);
    await settle();
    expect((await api('GET', '/user', { token })).status).toBe(200);
  });
});

describe('Idempotency-Key and site API tokens', () => {
  async function mint(name: string) {
    const response = await api('POST', '/admin/api_tokens', { token: admin, body: { name, scopes: ['full'] } });
    expect(response.status).toBe(201);
    return response.body.token as string;
  }

  it('POST /admin/api_tokens refuses the header (422): its answer holds the token', async () => {
    const refused = await api('POST', '/admin/api_tokens', {
      token: admin,
      body: { name: 'Keyed', scopes: ['read-only'] },
      headers: { 'Idempotency-Key': `mint-${uniqueSuffix()}` },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.errors[0]).toMatchObject({ field: 'Idempotency-Key', code: 'not_replayable' });
    const listed = await api('GET', '/admin/api_tokens', { token: admin });
    expect(JSON.stringify(listed.body)).not.toContain('"name":"Keyed"');
  });

  it("each token has its own key space: one token's key never replays another's answer", async () => {
    const [first, second] = await Promise.all([mint('Sync A'), mint('Sync B')]);
    const headers = { 'Idempotency-Key': `shared-${uniqueSuffix()}` };
    const a = await api('POST', '/teams', {
      headers: { ...headers, authorization: `api ${first}` },
      body: { name: `Team A ${uniqueSuffix()}` },
    });
    expect(a.status).toBe(201);
    const nameB = `Team B ${uniqueSuffix()}`;
    const b = await api('POST', '/teams', {
      headers: { ...headers, authorization: `api ${second}` },
      body: { name: nameB },
    });
    expect(b.status).toBe(201);
    expect(b.headers.get('idempotent-replayed')).toBeNull();
    expect(b.body.name).toBe(nameB);
    expect(b.body.teamid).not.toBe(a.body.teamid);
    // The same token, key and request: its own answer again.
    const replay = await api('POST', '/teams', {
      headers: { ...headers, authorization: `api ${second}` },
      body: { name: nameB },
    });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.teamid).toBe(b.body.teamid);
  });
});
