/**
 * Who may change an account's credentials, role, state and external ids (decision 259; issue 35
 * items 3 and 6): never a token (SCIM, full, impersonation) for an Admin account, never a token
 * making an Admin; SCIM manages provisioned accounts, not Admins. Each reproduction of the probe
 * answers a refusal and changes nothing.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, loginAdmin, site, uniqueSuffix, type TestUser } from '../support/api.ts';

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

let admin: string;
let scimToken: string;
let fullToken: string;

async function mint(name: string, scopes: string[]): Promise<string> {
  const response = await api('POST', '/admin/api_tokens', { token: admin, body: { name, scopes } });
  expect(response.status).toBe(201);
  return response.body.token as string;
}

beforeAll(async () => {
  admin = await loginAdmin();
  scimToken = await mint('Account rule SCIM', ['scim']);
  fullToken = await mint('Account rule full', ['full']);
});

function scim(method: string, path: string, body?: unknown) {
  return site(method, `/scim/v2${path}`, {
    headers: { authorization: `Bearer ${scimToken}`, 'content-type': 'application/scim+json' },
    ...(body === undefined ? {} : { body }),
  });
}

const replace = (value: unknown, path?: string) => ({
  schemas: [PATCH],
  Operations: [{ op: 'replace', ...(path ? { path } : {}), value }],
});

async function profileOf(userid: number) {
  const response = await api('GET', `/users/${userid}`, { token: admin });
  expect(response.status).toBe(200);
  return response.body;
}

async function stillLogsIn(user: TestUser) {
  const login = await api('POST', '/user/token', { body: { email: user.email, password: user.password } });
  expect(login.status).toBe(201);
}

describe('SCIM does not manage Admin accounts', () => {
  let other: TestUser;
  beforeAll(async () => {
    other = await createUser({ privileges: ['Admin'] });
  });

  it('refuses userName, active, externalId by PATCH, a PUT and a DELETE of an Admin, and changes nothing', async () => {
    const attacker = `attacker.${uniqueSuffix()}@evil.example`;
    const attempts = [
      await scim('PATCH', `/Users/${other.userid}`, replace(attacker, 'userName')),
      await scim('PATCH', `/Users/${other.userid}`, replace({ userName: attacker })),
      await scim('PATCH', `/Users/${other.userid}`, replace(false, 'active')),
      await scim('PATCH', `/Users/${other.userid}`, replace('corp-oidc|evil', 'externalId')),
      await scim('PUT', `/Users/${other.userid}`, { schemas: [USER], userName: attacker, active: true }),
      await scim('DELETE', `/Users/${other.userid}`),
    ];
    for (const attempt of attempts) {
      expect(attempt.status).toBe(403);
      expect(attempt.headers.get('content-type')).toMatch(/^application\/scim\+json/);
      expect(attempt.body.detail).toMatch(/Admin/);
    }
    const after = await profileOf(other.userid);
    expect(after).toMatchObject({ email: other.email, sso_userid: null, privileges: ['Admin'] });
    await stillLogsIn(other);
  });

  it('refuses the break-glass Admin (user 1) the same way, and still reads it', async () => {
    const patched = await scim('PATCH', '/Users/1', replace(`x.${uniqueSuffix()}@evil.example`, 'userName'));
    expect(patched.status).toBe(403);
    const read = await scim('GET', '/Users/1');
    expect(read.status).toBe(200);
    expect(read.body.userName).toBe('admin@example.com');
  });

  it('still manages an account that is not an Admin', async () => {
    const person = await createUser();
    const renamed = await scim('PATCH', `/Users/${person.userid}`, replace('Renamed By SCIM', 'displayName'));
    expect(renamed.status).toBe(200);
    expect(renamed.body.displayName).toBe('Renamed By SCIM');
  });
});

describe('a full API token and an Admin account', () => {
  let other: TestUser;
  beforeAll(async () => {
    other = await createUser({ privileges: ['Admin'] });
  });

  it("refuses the Admin's password, email, role and external ids, without the current password or with it", async () => {
    const bodies = [
      { password: 'Token-Chosen-Password-1' },
      { password: 'Token-Chosen-Password-1', current_password: 'guess-guess' },
      { email: `taken.${uniqueSuffix()}@evil.example` },
      { privileges: ['User'] },
      { sso_userid: 'corp-oidc|evil' },
      { employee_id: 'E-EVIL' },
    ];
    for (const body of bodies) {
      const response = await api('PATCH', `/users/${other.userid}`, { token: fullToken, body });
      expect(response.status).toBe(403);
      expect(response.body.message).toMatch(/token cannot change an Admin/);
    }
    const user1 = await api('PATCH', '/users/1', { token: fullToken, body: { password: 'Token-Chosen-Password-1' } });
    expect(user1.status).toBe(403);
    expect(await profileOf(other.userid)).toMatchObject({
      email: other.email,
      privileges: ['Admin'],
      sso_userid: null,
    });
    await stillLogsIn(other);
  });

  it("still edits an Admin's profile fields, and a non-Admin's account", async () => {
    const located = await api('PATCH', `/users/${other.userid}`, { token: fullToken, body: { location: 'Plant 2' } });
    expect(located.status).toBe(200);
    const person = await createUser();
    const moved = await api('PATCH', `/users/${person.userid}`, {
      token: fullToken,
      body: { employee_id: `E-${uniqueSuffix()}` },
    });
    expect(moved.status).toBe(200);
  });

  it('never makes an Admin: not by PATCH, not by invitation', async () => {
    const person = await createUser();
    const promoted = await api('PATCH', `/users/${person.userid}`, {
      token: fullToken,
      body: { privileges: ['User', 'Admin'] },
    });
    expect(promoted.status).toBe(403);
    expect((await profileOf(person.userid)).privileges).toEqual(['User']);
    const email = `invited.${uniqueSuffix()}@evil.example`;
    const invited = await api('POST', '/users/createByEmails', {
      token: fullToken,
      body: { emails: [email], privileges: ['Admin'] },
    });
    expect(invited.status).toBe(403);
    expect((await api('GET', `/users/email/${email}`, { token: admin })).status).toBe(404);
  });
});

describe('an impersonation token and an Admin account', () => {
  it("acting as an Admin, cannot change another Admin's password or make an Admin", async () => {
    const [actedAs, victim, person] = await Promise.all([
      createUser({ privileges: ['Admin'] }),
      createUser({ privileges: ['Admin'] }),
      createUser(),
    ]);
    const minted = await api('POST', '/user/token/impersonate', { token: admin, body: { userid: actedAs.userid } });
    expect(minted.status).toBe(201);
    const token = minted.body.authToken as string;
    const password = await api('PATCH', `/users/${victim.userid}`, { token, body: { password: 'Chosen-By-Imp-1' } });
    expect(password.status).toBe(403);
    const promoted = await api('PATCH', `/users/${person.userid}`, { token, body: { privileges: ['Admin'] } });
    expect(promoted.status).toBe(403);
    await stillLogsIn(victim);
  });
});

describe('your own password', () => {
  it('needs the current one, even for an Admin', async () => {
    const self = await createUser({ privileges: ['Admin'] });
    const bare = await api('PATCH', `/users/${self.userid}`, {
      token: self.token,
      body: { password: 'New-Pass-Word-9' },
    });
    expect(bare.status).toBe(422);
    expect(bare.body.errors?.[0]?.field ?? bare.body.message).toMatch(/current_password/);
    await stillLogsIn(self);
  });
});

describe('an Admin signed in as themselves', () => {
  it('demotes another Admin while others stay enabled (the count of enabled Admins is read)', async () => {
    const other = await createUser({ privileges: ['Admin'] });
    const demoted = await api('PATCH', `/users/${other.userid}`, { token: admin, body: { privileges: ['Author'] } });
    expect(demoted.status).toBe(200);
    expect(demoted.body.privileges).toEqual(['Author']);
  });
});
