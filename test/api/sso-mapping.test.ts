/**
 * Roles and teams follow the identity provider's claims at every sign-in (decision 241): a
 * managed role or team comes and goes with the claim, what an Administrator gave outside the
 * mapping stays, Admin is taken away only when the provider says `demote_admins`, and every
 * change is audited naming the provider. Over HTTP, through oidc-provider in this process.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createTeam, loginAdmin, site, siteUrl, uniqueSuffix } from '../support/api.ts';
import { Visitor } from '../support/sessions.ts';
import { startOp, throughOp, type TestOp } from '../support/oidc-op.ts';

const providerid = `map-${uniqueSuffix()}`;
let op: TestOp;
let admin: string;
let teamA: number;
let teamB: number;

beforeAll(async () => {
  op = await startOp(`${siteUrl()}/sso/${providerid}/callback`);
  admin = await loginAdmin();
  teamA = (await createTeam()).teamid;
  teamB = (await createTeam()).teamid;
  const created = await api('POST', '/admin/identity_providers', {
    token: admin,
    body: {
      providerid,
      kind: 'oidc',
      name: 'Mapping OP',
      issuer: op.issuer,
      client_id: op.clientId,
      client_secret: op.clientSecret,
      jit: true,
      role_claim: 'groups',
      role_map: { 'stepwise-authors': 'Author', 'stepwise-admins': 'Admin' },
      team_claim: 'groups',
      team_map: { 'team-a': teamA, 'team-b': teamB },
    },
  });
  expect(created.status).toBe(201);
  expect(created.body.demote_admins).toBe(false);
});

afterAll(async () => {
  await api('DELETE', `/admin/identity_providers/${providerid}`, { token: admin });
  await op?.close();
});

/** A person at the provider; `signIn` signs them in with the groups they have at that moment. */
function person() {
  const sub = `sub-${uniqueSuffix()}`;
  const email = `mapped.${uniqueSuffix()}@example.com`;
  return {
    async signIn(groups: string[]): Promise<{ userid: number; privileges: string[]; teams: number[] }> {
      op.accounts.set(sub, { email, email_verified: true, name: 'Mapped Person', groups });
      op.signInAs(sub);
      const visitor = new Visitor();
      const start = await visitor.get(`/sso/${providerid}/login`);
      const back = await throughOp(op, start.headers.get('location')!);
      const done = await visitor.get(back.slice(siteUrl().length));
      if (done.status !== 303) throw new Error(`The sign-in answered ${done.status}: ${done.text}`);
      expect(visitor.cookies.has('stepwise_session')).toBe(true);
      const me = await api('GET', '/user', { headers: visitor.cookieHeader() });
      const account = await api('GET', `/users/${me.body.userid}`, { token: admin });
      return { userid: me.body.userid, privileges: account.body.privileges, teams: me.body.teams ?? [] };
    },
  };
}

async function auditOf(userid: number) {
  const history = await api('GET', `/audit/users/${userid}`, { token: admin, query: { limit: 200 } });
  expect(history.status).toBe(200);
  return history.body.records as Array<{ action: string; actor_userid: number | null; details: any }>;
}

describe('role mapping at every sign-in', () => {
  it('adds and removes a mapped role with the claim; the same claims again change nothing', async () => {
    const someone = person();
    const first = await someone.signIn(['stepwise-authors']);
    expect(first.privileges).toEqual(['User', 'Author']);
    const again = await someone.signIn([]);
    expect(again.privileges).toEqual(['User']);
    const records = await auditOf(first.userid);
    expect(records.at(-1)).toMatchObject({
      action: 'user.privileges_changed',
      actor_userid: null,
      details: { source: 'identity_provider', providerid, old: ['User', 'Author'], new: ['User'] },
    });
    const back = await someone.signIn(['stepwise-authors', 'unmapped-group']);
    expect(back.privileges).toEqual(['User', 'Author']);
    // The same claims again change nothing, and write no audit record.
    const count = (await auditOf(first.userid)).length;
    expect((await someone.signIn(['stepwise-authors'])).privileges).toEqual(['User', 'Author']);
    expect(await auditOf(first.userid)).toHaveLength(count);
  });

  it('never takes Admin away unless the provider says demote_admins', async () => {
    const someone = person();
    expect((await someone.signIn(['stepwise-admins'])).privileges).toEqual(['User', 'Admin']);
    expect((await someone.signIn([])).privileges).toEqual(['User', 'Admin']);
    const patched = await api('PATCH', `/admin/identity_providers/${providerid}`, {
      token: admin,
      body: { demote_admins: true },
    });
    expect(patched.body.demote_admins).toBe(true);
    try {
      expect((await someone.signIn([])).privileges).toEqual(['User']);
    } finally {
      await api('PATCH', `/admin/identity_providers/${providerid}`, { token: admin, body: { demote_admins: false } });
    }
  });
});

describe('a deprovisioned account', () => {
  it('is refused at sign-in (403 page, no session), its roles left as they were', async () => {
    const someone = person();
    const signedIn = await someone.signIn(['stepwise-authors']);
    const minted = await api('POST', '/admin/api_tokens', {
      token: admin,
      body: { name: `SSO mapping ${uniqueSuffix()}`, scopes: ['scim'] },
    });
    const disabled = await site('DELETE', `/scim/v2/Users/${signedIn.userid}`, {
      headers: { authorization: `Bearer ${minted.body.token}` },
    });
    expect(disabled.status).toBe(204);
    await expect(someone.signIn([])).rejects.toThrow(/answered 403: .*This account is disabled/);
    const account = await api('GET', `/users/${signedIn.userid}`, { token: admin });
    expect(account.body.privileges).toEqual(['User', 'Author']);
    await api('DELETE', `/admin/api_tokens/${minted.body.tokenid}`, { token: admin });
  });
});

describe('team mapping at every sign-in', () => {
  it('joins and leaves the mapped teams with the claim; a team joined by hand stays; audited', async () => {
    const byHand = (await createTeam()).teamid;
    const someone = person();
    const first = await someone.signIn(['team-a']);
    expect(first.teams).toEqual([teamA]);
    expect((await api('PUT', `/teams/${byHand}/users/${first.userid}`, { token: admin })).status).toBe(200);
    const moved = await someone.signIn(['team-b']);
    expect(moved.teams).toEqual([teamA, teamB, byHand].filter((teamid) => teamid !== teamA).sort((a, b) => a - b));
    const membersOfA = await api('GET', `/teams/${teamA}`, { token: admin });
    expect(membersOfA.body.map((member: { userid: number }) => member.userid)).not.toContain(first.userid);
    const membersOfB = await api('GET', `/teams/${teamB}`, { token: admin });
    expect(membersOfB.body.map((member: { userid: number }) => member.userid)).toContain(first.userid);
    const actions = (await auditOf(first.userid))
      .filter((record) => record.details?.providerid === providerid)
      .map((record) => `${record.action} ${record.details.teamid}`);
    expect(actions).toEqual([
      `team.member_added ${teamA}`,
      `team.member_added ${teamB}`,
      `team.member_removed ${teamA}`,
    ]);
  });
});
