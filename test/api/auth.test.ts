import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { createHash } from 'node:crypto';
import {
  ADMIN,
  type ApiResponse,
  api,
  createUser,
  freshLoopbackAddress,
  loginAdmin,
  uniqueSuffix,
} from '../support/api.ts';
import { AUTH_CACHE_TTL_MS } from '../../shared/http/authenticate.ts';
import { localDb, putForThisTest } from '../support/local-db.ts';

/** The stored token hashes of a user (through the user's token index). */
async function tokensOf(userid: number): Promise<string[]> {
  const result = await localDb().send(
    new QueryCommand({
      TableName: 'stepwise',
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': `USER#${userid}#TOKENS` },
    }),
  );
  return (result.Items ?? []).map((item) => String(item.token_hash)).sort();
}

async function auditRecordsOf(userid: number) {
  const result = await localDb().send(
    new QueryCommand({
      TableName: 'stepwise',
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :seq)',
      ExpressionAttributeValues: { ':pk': `AUDIT#USER#${userid}`, ':seq': 'SEQ#' },
    }),
  );
  return result.Items ?? [];
}

function outboxMessagesTo(email: string): Array<{ to: string; kind: string; text: string }> {
  const folder = inject('outboxDir');
  return readdirSync(folder)
    .map((file) => JSON.parse(readFileSync(join(folder, file), 'utf8')))
    .filter((message) => message.to === email);
}

describe('POST /user/token', () => {
  it('answers 201 with the self form, authToken and userid', async () => {
    const response = await api('POST', '/user/token', { body: ADMIN });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      userid: 1,
      username: 'Admin',
      unique_username: 'admin',
      privileges: ['Admin'],
      links: { manage: '/Manage' },
    });
    expect(response.body.authToken).toMatch(/^[0-9a-f]{64}\.\d+$/);
    expect(response.body.about_raw).toBe(false);
  });

  it('stores only the SHA-256 of the token, with a TTL', async () => {
    const response = await api('POST', '/user/token', { body: ADMIN });
    const hash = createHash('sha256').update(response.body.authToken).digest('hex');
    const stored = await localDb().send(
      new GetCommand({ TableName: 'stepwise', Key: { pk: `TOKEN#${hash}`, sk: 'TOKEN' } }),
    );
    expect(stored.Item?.userid).toBe(1);
    expect(stored.Item?.ttl).toBeGreaterThan(Date.now() / 1000);
    expect(JSON.stringify(stored.Item)).not.toContain(response.body.authToken);
  });

  it('refuses a wrong password and an unknown account with the same 401', async () => {
    const wrong = await api('POST', '/user/token', { body: { email: ADMIN.email, password: 'nope-nope' } });
    const unknown = await api('POST', '/user/token', {
      body: { email: `nobody.${uniqueSuffix()}@example.com`, password: 'nope-nope' },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ message: 'Invalid login' });
    expect(unknown.status).toBe(401);
    expect(unknown.body).toEqual({ message: 'Invalid login' });
  });

  it('holds back the address that failed an account with 429 and Retry-After, but never the owner from another address', async () => {
    const user = await createUser();
    const attacker = freshLoopbackAddress();
    const owner = freshLoopbackAddress();
    // The test stack allows 5 failures per account (STEPWISE_LOGIN_MAX_FAILURES) before the delay.
    for (let i = 0; i < 5; i++) {
      const failed = await api('POST', '/user/token', {
        body: { email: user.email, password: 'wrong-password' },
        sourceAddress: attacker,
      });
      expect(failed.status).toBe(401);
    }
    // Held back even with the right password, so the delay is no oracle.
    const throttled = await api('POST', '/user/token', {
      body: { email: user.email, password: user.password },
      sourceAddress: attacker,
    });
    expect(throttled.status).toBe(429);
    expect(throttled.body).toEqual({ message: 'Too many failed logins; try again later' });
    const retryAfter = Number(throttled.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(30);

    // The owner, from an address of their own, has their typos like anyone: a 401, not a 429.
    const typo = await api('POST', '/user/token', {
      body: { email: user.email, password: `${user.password}x` },
      sourceAddress: owner,
    });
    expect(typo.status).toBe(401);
    const ownLogin = await api('POST', '/user/token', {
      body: { email: user.email, password: user.password },
      sourceAddress: owner,
    });
    expect(ownLogin.status).toBe(201);
    // The owner's login ends the owner's run only: the attacker's address is still held back.
    const afterOwner = await api('POST', '/user/token', {
      body: { email: user.email, password: 'wrong-password' },
      sourceAddress: attacker,
    });
    expect(afterOwner.status).toBe(429);
  });

  it('past the per-account ceiling (5 × 5 failures from many addresses) each address gets 2 guesses; a clean address still logs in', async () => {
    const user = await createUser();
    const guess = (sourceAddress: string) =>
      api('POST', '/user/token', { body: { email: user.email, password: 'wrong-password' }, sourceAddress });
    // A guesser spread over addresses, each below its own limit of 5.
    const before: number[] = [];
    for (let address = 0; address < 6; address++) {
      const source = freshLoopbackAddress();
      for (let i = 0; i < 4; i++) before.push((await guess(source)).status);
    }
    before.push((await guess(freshLoopbackAddress())).status);
    expect(before.every((status) => status === 401)).toBe(true);
    const fresh = freshLoopbackAddress();
    expect([(await guess(fresh)).status, (await guess(fresh)).status, (await guess(fresh)).status]).toEqual([
      401, 401, 429,
    ]);
    const owner = await api('POST', '/user/token', {
      body: { email: user.email, password: user.password },
      sourceAddress: freshLoopbackAddress(),
    });
    expect(owner.status).toBe(201);
  });

  it('treats an unknown account exactly like a known one (401s, then the same 429)', async () => {
    const known = await createUser();
    const unknown = `nobody.${uniqueSuffix()}@example.com`;
    const answers = async (email: string) => {
      const address = freshLoopbackAddress();
      const statuses: number[] = [];
      let last: ApiResponse | undefined;
      for (let i = 0; i < 6; i++) {
        last = await api('POST', '/user/token', {
          body: { email, password: 'wrong-password' },
          sourceAddress: address,
        });
        statuses.push(last.status);
      }
      return { statuses, body: last!.body, retryAfter: last!.headers.get('retry-after') !== null };
    };
    const forKnown = await answers(known.email);
    expect(forKnown).toEqual({
      statuses: [401, 401, 401, 401, 401, 429],
      body: { message: 'Too many failed logins; try again later' },
      retryAfter: true,
    });
    expect(await answers(unknown)).toEqual(forKnown);
  });

  it('needs both fields (422 naming them)', async () => {
    const response = await api('POST', '/user/token', { body: { email: 'a@b.c' } });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual([expect.objectContaining({ field: 'password', code: 'missing_field' })]);
  });
});

describe('DELETE /user/token', () => {
  it('revokes the token at once', async () => {
    const user = await createUser();
    expect((await api('GET', '/user', { token: user.token })).status).toBe(200);
    const logout = await api('DELETE', '/user/token', { token: user.token });
    expect(logout.status).toBe(204);
    expect(logout.text).toBe('');
    // At once in the function that revoked it; every other container within the
    // authentication cache's TTL (decision 106), as deployed.
    const again = await api('DELETE', '/user/token', { token: user.token });
    expect(again.status).toBe(401);
    await new Promise((resolve) => setTimeout(resolve, AUTH_CACHE_TTL_MS + 100));
    const after = await api('GET', '/user', { token: user.token });
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ message: 'Invalid login' });
  });
});

describe('POST /users (registration)', () => {
  it('lets an Admin register a user: 201 with authToken', async () => {
    const suffix = uniqueSuffix();
    const response = await api('POST', '/users', {
      token: await loginAdmin(),
      body: {
        email: `reg.${suffix}@example.com`,
        username: 'Reg User',
        password: 'Secret-pass-1',
        unique_username: `reg_${suffix}`,
      },
    });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      username: 'Reg User',
      unique_username: `reg_${suffix}`,
      privileges: ['User'],
    });
    expect(response.body.authToken).toMatch(/^[0-9a-f]{64}\.\d+$/);
    const me = await api('GET', '/user', { token: response.body.authToken });
    expect(me.body.userid).toBe(response.body.userid);
  });

  it('with public registration off: 401 anonymous, 403 for a non-Admin', async () => {
    const body = { email: `x.${uniqueSuffix()}@example.com`, username: 'X', password: 'Secret-pass-1' };
    expect((await api('POST', '/users', { body })).status).toBe(401);
    const user = await createUser();
    expect((await api('POST', '/users', { token: user.token, body })).status).toBe(403);
  });

  it('enforces unique email and unique_username (case-insensitive) in DynamoDB', async () => {
    const admin = await loginAdmin();
    const user = await createUser();
    const sameEmail = await api('POST', '/users', {
      token: admin,
      body: { email: user.email.toUpperCase(), username: 'Dup', password: 'Secret-pass-1' },
    });
    expect(sameEmail.status).toBe(422);
    expect(sameEmail.body.errors).toEqual([expect.objectContaining({ field: 'email', code: 'already_exists' })]);
    const sameName = await api('POST', '/users', {
      token: admin,
      body: {
        email: `n.${uniqueSuffix()}@example.com`,
        username: 'Dup',
        password: 'Secret-pass-1',
        unique_username: user.unique_username,
      },
    });
    expect(sameName.status).toBe(422);
    expect(sameName.body.errors[0].field).toBe('unique_username');
  });

  it('creates exactly one account when the same email registers concurrently', async () => {
    const admin = await loginAdmin();
    const email = `race.${uniqueSuffix()}@example.com`;
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        api('POST', '/users', { token: admin, body: { email, username: `Racer ${i}`, password: 'Secret-pass-1' } }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 422)).toHaveLength(7);
  });

  it('validates unique_username against ^[a-z0-9][a-z0-9_]{2,29}$', async () => {
    const admin = await loginAdmin();
    for (const bad of ['ab', 'has-hyphen', 'Upper', '_lead', 'x'.repeat(31)]) {
      const response = await api('POST', '/users', {
        token: admin,
        body: {
          email: `v.${uniqueSuffix()}@example.com`,
          username: 'V',
          password: 'Secret-pass-1',
          unique_username: bad,
        },
      });
      expect(response.status, bad).toBe(422);
      expect(response.body.errors[0].field).toBe('unique_username');
    }
  });
});

describe('POST /user/token/impersonate', () => {
  it('lets an Admin act as a user, and leaves an audit record', async () => {
    const user = await createUser();
    const response = await api('POST', '/user/token/impersonate', {
      token: await loginAdmin(),
      body: { userid: user.userid },
    });
    expect(response.status).toBe(201);
    expect(response.body.userid).toBe(user.userid);
    const me = await api('GET', '/user', { token: response.body.authToken });
    expect(me.body.userid).toBe(user.userid);
    const audit = await localDb().send(
      new QueryCommand({
        TableName: 'stepwise',
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :seq)',
        ExpressionAttributeValues: { ':pk': `AUDIT#USER#${user.userid}`, ':seq': 'SEQ#' },
      }),
    );
    expect(audit.Items).toEqual([expect.objectContaining({ action: 'user.impersonated', actor_userid: 1, seq: 1 })]);
    expect(audit.Items![0].hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refuses an Admin impersonating themself (422 on userid) and mints no token', async () => {
    const admin = await createUser({ privileges: ['Admin'] });
    const before = await tokensOf(admin.userid);
    const response = await api('POST', '/user/token/impersonate', {
      token: admin.token,
      body: { userid: admin.userid },
    });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual([expect.objectContaining({ field: 'userid', code: 'self_impersonation' })]);
    expect(await tokensOf(admin.userid)).toEqual(before);
    expect((await auditRecordsOf(admin.userid)).filter((record) => record.action === 'user.impersonated')).toEqual([]);
  });

  it('writes the token only with its audit record: a failed audit append leaves no token', async () => {
    const user = await createUser();
    const admin = await createUser({ privileges: ['Admin'] });
    const before = await tokensOf(user.userid);
    // A record squatting the next position of the user's chain makes every append fail its condition.
    await putForThisTest({
      pk: `AUDIT#USER#${user.userid}`,
      sk: `SEQ#${'1'.padStart(12, '0')}`,
      entity: 'AuditRecord',
    });
    const response = await api('POST', '/user/token/impersonate', {
      token: admin.token,
      body: { userid: user.userid },
    });
    // The append reads as a lost race on the chain (shared/db/retry.ts) until its attempts run out: 409.
    expect(response.status).toBe(409);
    expect(await tokensOf(user.userid)).toEqual(before);
    expect((await auditRecordsOf(admin.userid)).filter((record) => record.action === 'user.impersonated')).toEqual([]);
  });

  it('is refused to a non-Admin (403) and for an unknown user (404)', async () => {
    const user = await createUser();
    expect((await api('POST', '/user/token/impersonate', { token: user.token, body: { userid: 1 } })).status).toBe(403);
    expect(
      (await api('POST', '/user/token/impersonate', { token: await loginAdmin(), body: { userid: 99999999 } })).status,
    ).toBe(404);
  });
});

describe('password reset', () => {
  it('answers the same whether or not the address has an account', async () => {
    const user = await createUser();
    const known = await api('POST', '/users/reset_password', { body: { email: user.email } });
    const unknown = await api('POST', '/users/reset_password', {
      body: { email: `ghost.${uniqueSuffix()}@example.com` },
    });
    expect(known.status).toBe(200);
    expect(unknown.status).toBe(200);
    expect(known.body).toEqual(unknown.body);
  });

  it('mails a single-use link that sets the password and ends every session', async () => {
    const user = await createUser();
    await api('POST', '/users/reset_password', { body: { email: user.email } });
    const [message] = outboxMessagesTo(user.email);
    expect(message.kind).toBe('password-reset');
    const token = /token=([0-9a-f]{64})/.exec(message.text)![1];
    const done = await api('POST', '/users/reset_password/complete', { body: { token, password: 'Brand-new-pass-2' } });
    expect(done.status).toBe(200);
    expect((await api('GET', '/user', { token: user.token })).status).toBe(401);
    expect(
      (await api('POST', '/user/token', { body: { email: user.email, password: 'Brand-new-pass-2' } })).status,
    ).toBe(201);
    const again = await api('POST', '/users/reset_password/complete', { body: { token, password: 'Another-pass-3' } });
    expect(again.status).toBe(422);
  });
});
