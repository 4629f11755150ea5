import { describe, expect, it } from 'vitest';
import { api, createUser, freshLoopbackAddress, loginAdmin, uniqueSuffix } from '../support/api.ts';

describe('GET /users/{userid}', () => {
  it('shows a profile; email only to the user and Admins', async () => {
    const alice = await createUser();
    const bob = await createUser();
    const asBob = await api('GET', `/users/${alice.userid}`, { token: bob.token });
    expect(asBob.status).toBe(200);
    expect(asBob.body).toMatchObject({ userid: alice.userid, unique_username: alice.unique_username, reputation: 1 });
    expect(asBob.body.email).toBeUndefined();
    const asSelf = await api('GET', `/users/${alice.userid}`, { token: alice.token });
    expect(asSelf.body.email).toBe(alice.email);
    const asAdmin = await api('GET', `/users/${alice.userid}`, { token: await loginAdmin() });
    expect(asAdmin.body.email).toBe(alice.email);
  });

  it('404 for an unknown user and for a malformed id', async () => {
    const user = await createUser();
    const unknown = await api('GET', '/users/987654321', { token: user.token });
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toMatch(/987654321/);
    expect((await api('GET', '/users/abc', { token: user.token })).status).toBe(404);
  });
});

describe('lookups by unique values (Admins only)', () => {
  it('finds a user by email, sso id and employee id', async () => {
    const admin = await loginAdmin();
    const user = await createUser();
    const sso = `sso-${uniqueSuffix()}`;
    const employee = `E-${uniqueSuffix()}`;
    const patched = await api('PATCH', `/users/${user.userid}`, {
      token: admin,
      body: { sso_userid: sso, employee_id: employee },
    });
    expect(patched.status).toBe(200);
    for (const path of [
      `/users/email/${encodeURIComponent(user.email)}`,
      `/users/sso/${sso}`,
      `/users/employee_id/${employee}`,
    ]) {
      const found = await api('GET', path, { token: admin });
      expect(found.status, path).toBe(200);
      expect(found.body.userid).toBe(user.userid);
    }
    expect((await api('GET', `/users/email/${encodeURIComponent(user.email)}`, { token: user.token })).status).toBe(
      403,
    );
    expect((await api('GET', '/users/email/nobody%40example.com', { token: admin })).status).toBe(404);
  });

  it('keeps sso ids unique across users', async () => {
    const admin = await loginAdmin();
    const [a, b] = [await createUser(), await createUser()];
    const sso = `sso-${uniqueSuffix()}`;
    expect((await api('PATCH', `/users/${a.userid}`, { token: admin, body: { sso_userid: sso } })).status).toBe(200);
    const clash = await api('PATCH', `/users/${b.userid}`, { token: admin, body: { sso_userid: sso } });
    expect(clash.status).toBe(422);
    expect(clash.body.errors[0].field).toBe('sso_userid');
    // Releasing the value lets another user take it.
    expect((await api('PATCH', `/users/${a.userid}`, { token: admin, body: { sso_userid: null } })).status).toBe(200);
    expect((await api('PATCH', `/users/${b.userid}`, { token: admin, body: { sso_userid: sso } })).status).toBe(200);
  });
});

describe('GET /users and search', () => {
  it('pages users by userid with limit and offset', async () => {
    const token = (await createUser()).token;
    await createUser();
    const first = await api('GET', '/users', { token, query: { limit: 2, offset: 0 } });
    const second = await api('GET', '/users', { token, query: { limit: 2, offset: 2 } });
    expect(first.status).toBe(200);
    expect(first.body).toHaveLength(2);
    expect(first.body[0].userid).toBe(1);
    expect(second.body[0].userid).toBeGreaterThan(first.body[1].userid);
    const descending = await api('GET', '/users', { token, query: { limit: 1, order: 'DESC' } });
    expect(descending.body[0].userid).toBeGreaterThan(1);
  });

  it('clamps limit above 200 and rejects a negative one', async () => {
    const token = (await createUser()).token;
    expect((await api('GET', '/users', { token, query: { limit: 500 } })).status).toBe(200);
    const bad = await api('GET', '/users', { token, query: { limit: -1 } });
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0].field).toBe('limit');
  });

  it('finds users by the prefix of any word of their name', async () => {
    const marker = `zq${uniqueSuffix()}`;
    const user = await createUser({ username: `Marta ${marker}son` });
    const found = await api('GET', `/users/search/${marker}`, { token: user.token });
    expect(found.status).toBe(200);
    expect(found.body.map((u: { userid: number }) => u.userid)).toEqual([user.userid]);
    const names = await api('GET', `/users/searchnames/${marker.toUpperCase()}`, { token: user.token });
    expect(names.body).toEqual([
      { userid: user.userid, username: `Marta ${marker}son`, unique_username: user.unique_username },
    ]);
  });

  it('follows renames in search', async () => {
    const user = await createUser();
    const newWord = `renamed${uniqueSuffix()}`;
    expect(
      (await api('PATCH', `/users/${user.userid}`, { token: user.token, body: { username: `Someone ${newWord}` } }))
        .status,
    ).toBe(200);
    const found = await api('GET', `/users/search/${newWord}`, { token: user.token });
    expect(found.body).toHaveLength(1);
  });
});

describe('PATCH /users/{userid}', () => {
  it('lets a user edit their profile but not another user or admin-only fields', async () => {
    const user = await createUser();
    const other = await createUser();
    const ok = await api('PATCH', `/users/${user.userid}`, {
      token: user.token,
      body: { location: 'Line 3', summary: 'Tech' },
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ location: 'Line 3', summary: 'Tech' });
    expect((await api('PATCH', `/users/${other.userid}`, { token: user.token, body: { location: 'X' } })).status).toBe(
      403,
    );
    expect(
      (await api('PATCH', `/users/${user.userid}`, { token: user.token, body: { privileges: ['Admin'] } })).status,
    ).toBe(403);
  });

  it('needs the current password to change your own password', async () => {
    const user = await createUser();
    const missing = await api('PATCH', `/users/${user.userid}`, {
      token: user.token,
      body: { password: 'Another-pass-9' },
    });
    expect(missing.status).toBe(422);
    expect(missing.body.errors[0].field).toBe('current_password');
    const ok = await api('PATCH', `/users/${user.userid}`, {
      token: user.token,
      body: { password: 'Another-pass-9', current_password: user.password },
    });
    expect(ok.status).toBe(200);
    expect((await api('POST', '/user/token', { body: { email: user.email, password: 'Another-pass-9' } })).status).toBe(
      201,
    );
  });

  it('needs the current password to change your own email (422 on current_password when missing or wrong)', async () => {
    const user = await createUser();
    const newEmail = `moved.${uniqueSuffix()}@example.com`;
    const missing = await api('PATCH', `/users/${user.userid}`, { token: user.token, body: { email: newEmail } });
    expect(missing.status).toBe(422);
    expect(missing.body.errors).toEqual([
      expect.objectContaining({ field: 'current_password', code: 'missing_field' }),
    ]);
    const wrong = await api('PATCH', `/users/${user.userid}`, {
      token: user.token,
      body: { email: newEmail, current_password: 'not-my-password' },
    });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors).toEqual([
      expect.objectContaining({ field: 'current_password', code: 'invalid_password' }),
    ]);
    expect((await api('GET', '/user', { token: user.token })).body.email).toBe(user.email);
    // Sending the unchanged address back (a client saving the whole profile) needs nothing.
    expect(
      (
        await api('PATCH', `/users/${user.userid}`, {
          token: user.token,
          body: { email: user.email, location: 'Bay 2' },
        })
      ).status,
    ).toBe(200);
    const ok = await api('PATCH', `/users/${user.userid}`, {
      token: user.token,
      body: { email: newEmail, current_password: user.password },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.email).toBe(newEmail);
  });

  it('checks current_password under the login throttle: guesses through a stolen token end in 429', async () => {
    const user = await createUser();
    const thief = freshLoopbackAddress();
    const guess = (current_password: string) =>
      api('PATCH', `/users/${user.userid}`, {
        token: user.token,
        body: { email: `stolen.${uniqueSuffix()}@example.com`, current_password },
        sourceAddress: thief,
      });
    for (let i = 0; i < 5; i++) expect((await guess(`guess-${i}`)).status).toBe(422);
    const held = await guess(user.password);
    expect(held.status).toBe(429);
    expect(Number(held.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await api('GET', '/user', { token: user.token })).body.email).toBe(user.email);
  });

  it("lets an Admin change another user's email without a password, but not their own", async () => {
    const admin = await createUser({ privileges: ['Admin'] });
    const user = await createUser();
    const newEmail = `by.admin.${uniqueSuffix()}@example.com`;
    const changed = await api('PATCH', `/users/${user.userid}`, { token: admin.token, body: { email: newEmail } });
    expect(changed.status).toBe(200);
    expect(changed.body.email).toBe(newEmail);
    const own = await api('PATCH', `/users/${admin.userid}`, {
      token: admin.token,
      body: { email: `self.${uniqueSuffix()}@example.com` },
    });
    expect(own.status).toBe(422);
    expect(own.body.errors[0].field).toBe('current_password');
  });

  it('awards the Autobiographer badge once for filling in About', async () => {
    const user = await createUser();
    await api('PATCH', `/users/${user.userid}`, { token: user.token, body: { about_raw: 'I fix lathes.' } });
    await api('PATCH', `/users/${user.userid}`, { token: user.token, body: { about_raw: 'I fix lathes and mills.' } });
    const badges = await api('GET', '/user/badges', { token: user.token });
    expect(badges.body).toEqual([expect.objectContaining({ badgeid: 'autobiographer', level: 'bronze' })]);
    const profile = await api('GET', `/users/${user.userid}/badges`, { token: user.token });
    expect(profile.body).toHaveLength(1);
    const me = await api('GET', '/user', { token: user.token });
    expect(me.body.badge_counts).toEqual({ bronze: 1, silver: 0, gold: 0, total: 1 });
    expect(me.body.about_rendered).toBe('<p>I fix lathes and mills.</p>');
  });

  it('lets an Admin change roles, which is audited, but not demote themself', async () => {
    const admin = await loginAdmin();
    const user = await createUser();
    const promoted = await api('PATCH', `/users/${user.userid}`, { token: admin, body: { privileges: ['Author'] } });
    expect(promoted.body.privileges).toEqual(['Author']);
    expect((await api('PATCH', '/users/1', { token: admin, body: { privileges: ['User'] } })).status).toBe(422);
  });
});

describe('GET /user/flags', () => {
  it('lists the site feature flags in force', async () => {
    const user = await createUser();
    const flags = await api('GET', '/user/flags', { token: user.token });
    expect(flags.body).toEqual(
      expect.arrayContaining(['dev-unify-completion-status-logic', 'dev-use-status-and-reason']),
    );
  });
});

describe('Admin bulk tools', () => {
  it('suggests free unique_usernames, distinct within the batch', async () => {
    const user = await createUser();
    const admin = await loginAdmin();
    const response = await api('POST', '/users/unique_usernames', {
      token: admin,
      body: { names: [user.unique_username, user.unique_username, 'Jane Doe'] },
    });
    expect(response.status).toBe(200);
    const names = response.body.map((entry: { unique_username: string }) => entry.unique_username);
    expect(names[0]).not.toBe(user.unique_username);
    expect(new Set(names).size).toBe(3);
    expect(names[2]).toMatch(/^jane_doe\d*$/);
  });

  it('creates accounts by email, reports existing and invalid ones, and lists them as created users', async () => {
    const admin = await loginAdmin();
    const existing = await createUser();
    const fresh = `invitee.${uniqueSuffix()}@example.com`;
    const response = await api('POST', '/users/createByEmails', {
      token: admin,
      body: { emails: [fresh, existing.email, 'not-an-email'] },
    });
    expect(response.status).toBe(200);
    expect(response.body.created).toHaveLength(1);
    expect(response.body.existing).toEqual([existing.email]);
    expect(response.body.invalid).toEqual(['not-an-email']);
    // The Admin creates every test user of the run: page until the new one shows up.
    const createdIds: number[] = [];
    for (let offset = 0; ; offset += 200) {
      const page = await api('GET', '/users/created_users', { token: admin, query: { limit: 200, offset } });
      expect(page.status).toBe(200);
      createdIds.push(...page.body.map((u: { userid: number }) => u.userid));
      if (page.body.length < 200) break;
    }
    expect(createdIds).toContain(response.body.created[0].userid);
    // The invitee has no password until the mailed link sets one.
    expect((await api('POST', '/user/token', { body: { email: fresh, password: '!' } })).status).toBe(401);
  });
});

describe('?format=xml with control characters in stored text', () => {
  it('answers well-formed XML: each character XML 1.0 cannot carry becomes U+FFFD', async () => {
    const user = await createUser();
    const patched = await api('PATCH', `/users/${user.userid}`, {
      token: user.token,
      body: { summary: 'bell\u0007 nul\u0000 esc\u001B tab\tok' },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.summary).toBe('bell\u0007 nul\u0000 esc\u001B tab\tok');
    const xml = await api('GET', `/users/${user.userid}`, { token: user.token, query: { format: 'xml' } });
    expect(xml.status).toBe(200);
    expect(xml.text).toContain('<summary>bell\uFFFD nul\uFFFD esc\uFFFD tab\tok</summary>');
    // XML 1.0 Char: tab, LF, CR, U+0020-U+D7FF, U+E000-U+FFFD, U+10000-U+10FFFF; nothing else.
    expect(/^[\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]*$/u.test(xml.text)).toBe(true);
  });
});
