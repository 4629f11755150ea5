/**
 * Sessions and links that must end with the credentials or role they were issued under
 * (issue 23 items 5 and 11): impersonation tokens die with their minter's Admin role or
 * password; an email or password change ends the account's other sessions; using one reset
 * link ends the others.
 */
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';
import { api, createUser, loginAdmin, uniqueSuffix } from '../support/api.ts';

function resetTokensMailedTo(email: string): string[] {
  const folder = inject('outboxDir');
  return readdirSync(folder)
    .map((file) => JSON.parse(readFileSync(join(folder, file), 'utf8')) as { to: string; text: string })
    .filter((message) => message.to === email)
    .map((message) => /token=([0-9a-f]{64})/.exec(message.text)![1]!);
}

async function impersonationToken(adminToken: string, userid: number): Promise<string> {
  const response = await api('POST', '/user/token/impersonate', { token: adminToken, body: { userid } });
  expect(response.status).toBe(201);
  return response.body.authToken;
}

const status = async (token: string) => (await api('GET', '/user', { token })).status;

describe('impersonation tokens end with their minter', () => {
  it('demoting the minting Admin ends the token: it cannot promote them back', async () => {
    const minter = await createUser({ privileges: ['Admin'] });
    const otherAdmin = await createUser({ privileges: ['Admin'] });
    const token = await impersonationToken(minter.token, otherAdmin.userid);
    expect(await status(token)).toBe(200);

    const demoted = await api('PATCH', `/users/${minter.userid}`, {
      token: await loginAdmin(),
      body: { privileges: ['User'] },
    });
    expect(demoted.status).toBe(200);
    expect(await status(token)).toBe(401);
    const promoteBack = await api('PATCH', `/users/${minter.userid}`, { token, body: { privileges: ['Admin'] } });
    expect(promoteBack.status).toBe(401);
    expect((await api('GET', `/users/${minter.userid}`, { token: await loginAdmin() })).body.privileges).toEqual([
      'User',
    ]);
  });

  it("a change of the minter's password ends the token (an Admin's change, a reset link)", async () => {
    const minter = await createUser({ privileges: ['Admin'] });
    const target = await createUser();
    const byPatch = await impersonationToken(minter.token, target.userid);
    const changed = await api('PATCH', `/users/${minter.userid}`, {
      token: await loginAdmin(),
      body: { password: `New-pass-${uniqueSuffix()}` },
    });
    expect(changed.status).toBe(200);
    expect(await status(byPatch)).toBe(401);
    // The target's own session is not the minter's business.
    expect(await status(target.token)).toBe(200);

    const password = `Reset-pass-${uniqueSuffix()}`;
    const freshLogin = async () =>
      (await api('POST', '/user/token', { body: { email: minter.email, password } })).body.authToken as string;
    await api('POST', '/users/reset_password', { body: { email: minter.email } });
    const [link] = resetTokensMailedTo(minter.email);
    expect((await api('POST', '/users/reset_password/complete', { body: { token: link, password } })).status).toBe(200);
    const admin = await freshLogin();
    const byReset = await impersonationToken(admin, target.userid);
    expect(await status(byReset)).toBe(200);
    await api('POST', '/users/reset_password', { body: { email: minter.email } });
    const second = resetTokensMailedTo(minter.email).find((token) => token !== link)!;
    const again = await api('POST', '/users/reset_password/complete', {
      body: { token: second, password: `${password}-2` },
    });
    expect(again.status).toBe(200);
    expect(await status(byReset)).toBe(401);
  });

  it('an impersonation token cannot mint another (403)', async () => {
    const target = await createUser({ privileges: ['Admin'] });
    const third = await createUser();
    const token = await impersonationToken(await loginAdmin(), target.userid);
    const nested = await api('POST', '/user/token/impersonate', { token, body: { userid: third.userid } });
    expect(nested.status).toBe(403);
  });
});

describe('an email or password change ends the other sessions', () => {
  async function twoSessions() {
    const user = await createUser();
    const other = (await api('POST', '/user/token', { body: { email: user.email, password: user.password } })).body
      .authToken as string;
    expect(await status(other)).toBe(200);
    return { user, other };
  }

  it('a new email: the session that made it survives, the others end', async () => {
    const { user, other } = await twoSessions();
    const changed = await api('PATCH', `/users/${user.userid}`, {
      token: user.token,
      body: { email: `moved.${uniqueSuffix()}@example.com`, current_password: user.password },
    });
    expect(changed.status).toBe(200);
    expect(await status(user.token)).toBe(200);
    expect(await status(other)).toBe(401);
  });

  it('the same email sent back (a client saving the whole profile) ends nothing', async () => {
    const { user, other } = await twoSessions();
    const saved = await api('PATCH', `/users/${user.userid}`, {
      token: user.token,
      body: { email: user.email.toUpperCase(), summary: 'unchanged address' },
    });
    expect(saved.status).toBe(200);
    expect(await status(other)).toBe(200);
  });

  it('a new password: the session that made it survives, the others end', async () => {
    const { user, other } = await twoSessions();
    const changed = await api('PATCH', `/users/${user.userid}`, {
      token: user.token,
      body: { password: `New-pass-${uniqueSuffix()}`, current_password: user.password },
    });
    expect(changed.status).toBe(200);
    expect(await status(user.token)).toBe(200);
    expect(await status(other)).toBe(401);
  });

  it("an Admin's change of someone's email ends all of that user's sessions", async () => {
    const { user, other } = await twoSessions();
    const changed = await api('PATCH', `/users/${user.userid}`, {
      token: await loginAdmin(),
      body: { email: `moved.${uniqueSuffix()}@example.com` },
    });
    expect(changed.status).toBe(200);
    expect(await status(user.token)).toBe(401);
    expect(await status(other)).toBe(401);
    expect(await status(await loginAdmin())).toBe(200);
  });
});

describe('reset links', () => {
  it('using one ends every other link of the account', async () => {
    const user = await createUser();
    await api('POST', '/users/reset_password', { body: { email: user.email } });
    await api('POST', '/users/reset_password', { body: { email: user.email } });
    const links = resetTokensMailedTo(user.email);
    expect(links).toHaveLength(2);
    const first = await api('POST', '/users/reset_password/complete', {
      body: { token: links[0], password: 'First-new-pass-1' },
    });
    expect(first.status).toBe(200);
    const second = await api('POST', '/users/reset_password/complete', {
      body: { token: links[1], password: 'Second-new-pass-2' },
    });
    expect(second.status).toBe(422);
    expect(second.body.errors[0]).toMatchObject({ field: 'token', code: 'invalid_token' });
    expect(
      (await api('POST', '/user/token', { body: { email: user.email, password: 'First-new-pass-1' } })).status,
    ).toBe(201);
  });

  it('a password change through the profile ends outstanding links too', async () => {
    const user = await createUser();
    await api('POST', '/users/reset_password', { body: { email: user.email } });
    const [link] = resetTokensMailedTo(user.email);
    const changed = await api('PATCH', `/users/${user.userid}`, {
      token: user.token,
      body: { password: 'Changed-pass-1', current_password: user.password },
    });
    expect(changed.status).toBe(200);
    const used = await api('POST', '/users/reset_password/complete', {
      body: { token: link, password: 'Other-pass-2' },
    });
    expect(used.status).toBe(422);
  });
});
