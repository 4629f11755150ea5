import { describe, expect, it } from 'vitest';
import { api, createUser, loginAdmin, createTeam as createTeamWith } from '../support/api.ts';
import { addStep, createGuide, LINES, publish } from './guide-fixtures.ts';

const author = () => createUser({ privileges: ['Author'] });

const createTeam = (members: number[]) => createTeamWith({ members });

describe('a private guide', () => {
  it('is read by its author, Admins, granted users and members of granted teams; 401 anonymous, 403 others', async () => {
    const writer = await author();
    const guide = await createGuide(writer.token);
    const [grantedUser, teamMember, outsider] = [await createUser(), await createUser(), await createUser()];
    const team = await createTeam([teamMember.userid]);
    // The member's token predates the team: membership is read with the caller on each request.
    expect(
      (await api('PUT', `/guides/${guide.guideid}/users/${grantedUser.userid}`, { token: writer.token })).status,
    ).toBe(200);
    expect((await api('PUT', `/guides/${guide.guideid}/teams/${team.teamid}`, { token: writer.token })).status).toBe(
      200,
    );
    const read = (token?: string) => api('GET', `/guides/${guide.guideid}`, { token });

    const anonymous = await read();
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.message).toBeTruthy();
    expect((await read(outsider.token)).status).toBe(403);
    expect((await read(writer.token)).status).toBe(200);
    expect((await read(await loginAdmin())).status).toBe(200);
    const asGranted = await read(grantedUser.token);
    expect(asGranted.status).toBe(200);
    expect(asGranted.body.can_edit).toBe(false);
    expect((await read(teamMember.token)).status).toBe(200);

    expect(
      (await api('DELETE', `/guides/${guide.guideid}/users/${grantedUser.userid}`, { token: writer.token })).status,
    ).toBe(204);
    expect((await read(grantedUser.token)).status).toBe(403);
    expect((await api('DELETE', `/guides/${guide.guideid}/teams/${team.teamid}`, { token: writer.token })).status).toBe(
      204,
    );
    expect((await read(teamMember.token)).status).toBe(403);
  });

  it('is edited by the author, granted Authors and Admins — not by granted Users or other Authors', async () => {
    const writer = await author();
    const guide = await createGuide(writer.token);
    const [grantedAuthor, grantedUser, otherAuthor] = [await author(), await createUser(), await author()];
    await api('PUT', `/guides/${guide.guideid}/users/${grantedAuthor.userid}`, { token: writer.token });
    await api('PUT', `/guides/${guide.guideid}/users/${grantedUser.userid}`, { token: writer.token });
    const edit = async (token: string) => {
      const current = await api('GET', `/guides/${guide.guideid}`, { token: writer.token });
      return api('PATCH', `/guides/${guide.guideid}`, {
        token,
        query: { revisionid: current.body.revisionid },
        body: { summary: `by ${token.slice(0, 6)}` },
      });
    };
    expect((await edit(grantedAuthor.token)).status).toBe(200);
    expect((await edit(await loginAdmin())).status).toBe(200);
    expect((await edit(grantedUser.token)).status).toBe(403);
    expect((await edit(otherAuthor.token)).status).toBe(403);
    expect(
      (
        await api('POST', `/guides/${guide.guideid}/steps`, {
          token: grantedUser.token,
          body: { orderby: 1, lines: LINES },
        })
      ).status,
    ).toBe(403);
    expect((await api('GET', `/guides/${guide.guideid}`, { token: grantedAuthor.token })).body.can_edit).toBe(true);
    // Granted Authors edit but do not hand out access.
    expect(
      (await api('PUT', `/guides/${guide.guideid}/users/${otherAuthor.userid}`, { token: grantedAuthor.token })).status,
    ).toBe(403);
  });

  it("stays out of other people's lists: GET /guides, a user's guides, favorites", async () => {
    const writer = await author();
    const hidden = await createGuide(writer.token);
    const shown = await publish(writer.token, await createGuide(writer.token));
    const outsider = await createUser();
    const theirGuides = await api('GET', `/users/${writer.userid}/guides`, { token: outsider.token });
    expect(theirGuides.body.map((guide: { guideid: number }) => guide.guideid)).toEqual([shown.guideid]);
    const ownGuides = await api('GET', '/user/guides', { token: writer.token });
    expect(ownGuides.body.map((guide: { guideid: number }) => guide.guideid)).toEqual([hidden.guideid, shown.guideid]);
    const list = await api('GET', '/guides', {
      token: outsider.token,
      query: { includePrivate: '1', order: 'DESC', limit: 50 },
    });
    expect(list.body.map((guide: { guideid: number }) => guide.guideid)).not.toContain(hidden.guideid);
    expect((await api('PUT', `/user/favorites/guides/${hidden.guideid}`, { token: outsider.token })).status).toBe(403);
  });
});

describe('grants', () => {
  it('PUT answers the granted users (idempotent); GET lists them for editors; DELETE of no grant is 404', async () => {
    const writer = await author();
    const guide = await createGuide(writer.token);
    const [a, b] = [await createUser(), await createUser()];
    const first = await api('PUT', `/guides/${guide.guideid}/users/${b.userid}`, { token: writer.token });
    expect(first.status).toBe(200);
    expect(first.body.map((user: { userid: number }) => user.userid)).toEqual([b.userid]);
    await api('PUT', `/guides/${guide.guideid}/users/${a.userid}`, { token: writer.token });
    const again = await api('PUT', `/guides/${guide.guideid}/users/${a.userid}`, { token: writer.token });
    expect(again.status).toBe(200);
    expect(again.body.map((user: { userid: number }) => user.userid)).toEqual(
      [a.userid, b.userid].sort((x, y) => x - y),
    );
    expect(again.body[0]).toHaveProperty('username');
    const listed = await api('GET', `/guides/${guide.guideid}/users`, {
      token: writer.token,
      query: { limit: 1, offset: 1 },
    });
    expect(listed.body.map((user: { userid: number }) => user.userid)).toEqual([Math.max(a.userid, b.userid)]);
    expect((await api('GET', `/guides/${guide.guideid}/users`, { token: a.token })).status).toBe(403);
    expect((await api('PUT', `/guides/${guide.guideid}/users/999999999`, { token: writer.token })).status).toBe(404);
    const other = await createUser();
    expect(
      (await api('DELETE', `/guides/${guide.guideid}/users/${other.userid}`, { token: writer.token })).status,
    ).toBe(404);
    expect((await api('PUT', `/guides/${guide.guideid}/users/${other.userid}`, { token: a.token })).status).toBe(403);
    // Grants are not content: the revisionid stays, so an editor's next write is not a 409.
    const after = await api('GET', `/guides/${guide.guideid}`, { token: writer.token });
    expect(after.body.revisionid).toBe(guide.revisionid);
  });

  it('team grants: PUT answers the teams, GET lists them, unknown team 404', async () => {
    const writer = await author();
    const guide = await createGuide(writer.token);
    const team = await createTeam([]);
    const granted = await api('PUT', `/guides/${guide.guideid}/teams/${team.teamid}`, { token: writer.token });
    expect(granted.status).toBe(200);
    expect(granted.body).toEqual([expect.objectContaining({ teamid: team.teamid, name: team.name })]);
    const listed = await api('GET', `/guides/${guide.guideid}/teams`, { token: writer.token });
    expect(listed.body.map((entry: { teamid: number }) => entry.teamid)).toEqual([team.teamid]);
    expect((await api('PUT', `/guides/${guide.guideid}/teams/999999999`, { token: writer.token })).status).toBe(404);
    expect((await api('DELETE', `/guides/${guide.guideid}/teams/${team.teamid}`, { token: writer.token })).status).toBe(
      204,
    );
    expect((await api('DELETE', `/guides/${guide.guideid}/teams/${team.teamid}`, { token: writer.token })).status).toBe(
      404,
    );
    expect((await api('GET', `/guides/${guide.guideid}/teams`, { token: writer.token })).body).toEqual([]);
  });
});

it('a granted reader sees prerequisite steps only of prerequisites they can read', async () => {
  const writer = await author();
  const secret = await createGuide(writer.token, { title: 'Secret prep' });
  await addStep(writer.token, secret.guideid, { title: 'Secret step' });
  const main = await publish(writer.token, await createGuide(writer.token, { prerequisites: [secret.guideid] }));
  const reader = await createUser();
  const read = await api('GET', `/guides/${main.guideid}`, { token: reader.token });
  expect(read.status).toBe(200);
  expect(read.body.prerequisites).toEqual([]);
  expect(read.body.steps).toEqual([]);
});
