import { describe, expect, it } from 'vitest';
import { api, createUser, loginAdmin, createTeam as createTeamWith } from '../support/api.ts';

const createTeam = (body: Record<string, unknown> = {}) => createTeamWith({ name: 'Line 3', ...body });

const ids = (users: Array<{ userid: number }>) => users.map((user) => user.userid).sort((a, b) => a - b);

describe('POST /teams', () => {
  it('creates a team (201) whose owner is a member, with aggregates', async () => {
    const owner = await createUser();
    const member = await createUser();
    const team = await createTeam({ owner: owner.userid, members: [member.userid], description: 'Night shift' });
    expect(team).toMatchObject({
      name: 'Line 3',
      owner: owner.userid,
      member_count: 2,
      reputation: 2,
      description: 'Night shift',
    });
    const members = await api('GET', `/teams/${team.teamid}`, { token: owner.token });
    expect(ids(members.body)).toEqual([owner.userid, member.userid].sort((a, b) => a - b));
    const me = await api('GET', '/user', { token: member.token });
    expect(me.body.teams).toContain(team.teamid);
  });

  it('is for Admins (403 otherwise) and validates input (422)', async () => {
    const user = await createUser();
    expect((await api('POST', '/teams', { token: user.token, body: { name: 'X' } })).status).toBe(403);
    const bad = await api('POST', '/teams', { token: await loginAdmin(), body: { name: '' } });
    expect(bad.status).toBe(422);
    const unknownMember = await api('POST', '/teams', {
      token: await loginAdmin(),
      body: { name: 'X', members: [99999999] },
    });
    expect(unknownMember.status).toBe(422);
  });
});

describe('GET /teams', () => {
  it('lists teams with owner and aggregated member reputation', async () => {
    const owner = await createUser();
    const team = await createTeam({ owner: owner.userid });
    const list = await api('GET', '/teams', { token: owner.token, query: { limit: 200, order: 'DESC' } });
    expect(list.status).toBe(200);
    const entry = list.body.find((t: { teamid: number }) => t.teamid === team.teamid);
    expect(entry).toMatchObject({ owner: owner.userid, reputation: 1, member_count: 1 });
    expect(entry).toHaveProperty('avatarUrl');
  });
});

describe('GET /teams/{teamid}', () => {
  it("shows a private team's members to members, the owner and Admins only (403 for others)", async () => {
    const owner = await createUser();
    const member = await createUser();
    const outsider = await createUser();
    const team = await createTeam({ owner: owner.userid, members: [member.userid], privacy: 'private' });
    const expected = [owner.userid, member.userid].sort((a, b) => a - b);
    for (const token of [owner.token, member.token, await loginAdmin()]) {
      const members = await api('GET', `/teams/${team.teamid}`, { token });
      expect(members.status).toBe(200);
      expect(ids(members.body)).toEqual(expected);
    }
    const refused = await api('GET', `/teams/${team.teamid}`, { token: outsider.token });
    expect(refused.status).toBe(403);
    expect(JSON.stringify(refused.body)).not.toContain(String(member.unique_username));
    expect((await api('GET', `/teams/${team.teamid}`)).status).toBe(401);
  });

  it("shows a public team's members to any user", async () => {
    const owner = await createUser();
    const outsider = await createUser();
    const team = await createTeam({ owner: owner.userid, privacy: 'public' });
    const members = await api('GET', `/teams/${team.teamid}`, { token: outsider.token });
    expect(members.status).toBe(200);
    expect(ids(members.body)).toEqual([owner.userid]);
  });
});

describe('membership', () => {
  it('PUT adds a member and answers exactly 200 with the member list', async () => {
    const owner = await createUser();
    const newcomer = await createUser();
    const team = await createTeam({ owner: owner.userid, privacy: 'private' });
    const added = await api('PUT', `/teams/${team.teamid}/users/${newcomer.userid}`, { token: owner.token });
    expect(added.status).toBe(200);
    expect(ids(added.body)).toEqual([owner.userid, newcomer.userid].sort((a, b) => a - b));
    const again = await api('PUT', `/teams/${team.teamid}/users/${newcomer.userid}`, { token: owner.token });
    expect(again.status).toBe(422);
    const attributes = await api('GET', `/teams/${team.teamid}/attributes`, { token: owner.token });
    expect(attributes.body).toMatchObject({ member_count: 2, reputation: 2, privacy: 'private' });
    expect(attributes.body.new_member_since).toBeGreaterThan(0);
  });

  it('on a private team only the owner and Admins add members; on a public one users may join themselves', async () => {
    const owner = await createUser();
    const outsider = await createUser();
    const privateTeam = await createTeam({ owner: owner.userid, privacy: 'private' });
    expect(
      (await api('PUT', `/teams/${privateTeam.teamid}/users/${outsider.userid}`, { token: outsider.token })).status,
    ).toBe(403);
    const publicTeam = await createTeam({ owner: owner.userid, privacy: 'public' });
    expect(
      (await api('PUT', `/teams/${publicTeam.teamid}/users/${outsider.userid}`, { token: outsider.token })).status,
    ).toBe(200);
    // Adding someone else is still the owner's call.
    const third = await createUser();
    expect(
      (await api('PUT', `/teams/${publicTeam.teamid}/users/${third.userid}`, { token: outsider.token })).status,
    ).toBe(403);
  });

  it('PATCH adds and removes atomically and needs at least one of add/remove', async () => {
    const owner = await createUser();
    const [a, b, c, outsider] = [await createUser(), await createUser(), await createUser(), await createUser()];
    const team = await createTeam({ owner: owner.userid, members: [a.userid] });
    const empty = await api('PATCH', `/teams/${team.teamid}/users`, { token: owner.token, body: {} });
    expect(empty.status).toBe(422);
    expect(empty.body.errors.map((e: { field: string }) => e.field)).toEqual(['add', 'remove']);
    const changed = await api('PATCH', `/teams/${team.teamid}/users`, {
      token: owner.token,
      body: { add: [b.userid, c.userid], remove: [a.userid] },
    });
    expect(changed.status).toBe(200);
    expect(ids(changed.body)).toEqual(ids([owner, b, c]));
    // Removing a non-member refuses the whole request: the valid add is not applied either.
    const refused = await api('PATCH', `/teams/${team.teamid}/users`, {
      token: owner.token,
      body: { add: [a.userid], remove: [outsider.userid] },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual([expect.objectContaining({ field: 'remove', code: 'not_member' })]);
    const unknown = await api('PATCH', `/teams/${team.teamid}/users`, {
      token: owner.token,
      body: { add: [99999999] },
    });
    expect(unknown.status).toBe(422);
    const members = await api('GET', `/teams/${team.teamid}`, { token: owner.token });
    const attributes = await api('GET', `/teams/${team.teamid}/attributes`, { token: owner.token });
    expect(ids(members.body)).toEqual(ids([owner, b, c]));
    expect(attributes.body.member_count).toBe(3);
    expect(attributes.body.reputation).toBe(3);
  });

  it('DELETE removes a member (204), who keeps their account; the owner cannot leave', async () => {
    const owner = await createUser();
    const member = await createUser();
    const team = await createTeam({ owner: owner.userid, members: [member.userid] });
    const removed = await api('DELETE', `/teams/${team.teamid}/users/${member.userid}`, { token: owner.token });
    expect(removed.status).toBe(204);
    const me = await api('GET', '/user', { token: member.token });
    expect(me.body.teams).not.toContain(team.teamid);
    expect((await api('DELETE', `/teams/${team.teamid}/users/${owner.userid}`, { token: owner.token })).status).toBe(
      422,
    );
    expect((await api('DELETE', `/teams/${team.teamid}/users/${member.userid}`, { token: owner.token })).status).toBe(
      422,
    );
  });

  it('keeps aggregates right under concurrent joins', async () => {
    const owner = await createUser();
    const team = await createTeam({ owner: owner.userid, privacy: 'public' });
    const joiners = await Promise.all(Array.from({ length: 6 }, () => createUser()));
    const results = await Promise.all(
      joiners.map((user) => api('PUT', `/teams/${team.teamid}/users/${user.userid}`, { token: user.token })),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    const attributes = await api('GET', `/teams/${team.teamid}/attributes`, { token: owner.token });
    expect(attributes.body.member_count).toBe(7);
    expect(attributes.body.reputation).toBe(7);
  });
});

describe('suggested users and course assignments', () => {
  it('suggests only users who are not members, for the owner', async () => {
    const owner = await createUser();
    const member = await createUser();
    const outsider = await createUser();
    const team = await createTeam({ owner: owner.userid, members: [member.userid] });
    const suggested = await api('GET', `/teams/${team.teamid}/suggested_users`, {
      token: owner.token,
      query: { limit: 200 },
    });
    expect(suggested.status).toBe(200);
    const suggestedIds = ids(suggested.body);
    expect(suggestedIds).toContain(outsider.userid);
    expect(suggestedIds).not.toContain(member.userid);
    expect(suggestedIds).not.toContain(owner.userid);
    expect((await api('GET', `/teams/${team.teamid}/suggested_users`, { token: member.token })).status).toBe(403);
  });

  it("lists the team's course assignments to members only", async () => {
    const owner = await createUser();
    const outsider = await createUser();
    const team = await createTeam({ owner: owner.userid });
    const assignments = await api('GET', `/teams/${team.teamid}/course_assignments`, { token: owner.token });
    expect(assignments.status).toBe(200);
    expect(assignments.body).toEqual([]);
    expect((await api('GET', `/teams/${team.teamid}/course_assignments`, { token: outsider.token })).status).toBe(403);
    expect((await api('GET', '/teams/99999999/course_assignments', { token: owner.token })).status).toBe(404);
  });
});

describe('teams in user summaries (filtered per viewer)', () => {
  it("lists a private team only to its members, its owner and Admins, in every member's summary", async () => {
    const owner = await createUser();
    const member = await createUser();
    const otherMember = await createUser();
    const outsider = await createUser();
    const secret = await createTeam({
      owner: owner.userid,
      members: [member.userid, otherMember.userid],
      privacy: 'private',
    });
    const open = await createTeam({ owner: owner.userid, members: [member.userid] });
    const both = [open.teamid, secret.teamid].sort((a, b) => a - b);

    const teamsSeenBy = async (token: string) =>
      (await api('GET', `/users/${member.userid}`, { token })).body.teams as number[];
    // The same rule as GET /teams/{teamid}: the outsider is refused the members there...
    expect((await api('GET', `/teams/${secret.teamid}`, { token: outsider.token })).status).toBe(403);
    // ...so no summary tells them either.
    expect(await teamsSeenBy(outsider.token)).toEqual([open.teamid]);
    expect(await teamsSeenBy(otherMember.token)).toEqual(both);
    expect(await teamsSeenBy(owner.token)).toEqual(both);
    expect(await teamsSeenBy(member.token)).toEqual(both);
    expect(await teamsSeenBy(await loginAdmin())).toEqual(both);

    const inPublicTeam = await api('GET', `/teams/${open.teamid}`, { token: outsider.token });
    expect(inPublicTeam.status).toBe(200);
    const summary = inPublicTeam.body.find((user: { userid: number }) => user.userid === member.userid);
    expect(summary.teams).toEqual([open.teamid]);

    const searched = await api('GET', `/users/search/${member.unique_username}`, { token: outsider.token });
    expect(searched.status).toBe(200);
    const found = searched.body.find((user: { userid: number }) => user.userid === member.userid);
    expect(found.teams).toEqual([open.teamid]);
  });
});
