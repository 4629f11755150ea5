/**
 * Required skills per team and per role and the gap report (docs/competency.md "Requirements and
 * gaps") over HTTP: who sets and reads them, each refusal, the report's statuses in JSON and CSV
 * (formula cells defused; a level outdated by a newer major release is `outdated`, as at the gate),
 * the owner's, the learner's and a trainer's views.
 */
import { describe, expect, it } from 'vitest';
import { api, createTeam, createUser, type TestUser } from '../support/api.ts';
import { releaseGuide } from '../support/courses.ts';
import { createGuide } from './guide-fixtures.ts';

async function newSkill(admin: TestUser, name: string) {
  const guide = await createGuide(admin.token);
  const created = await api('POST', '/qualifications/skills', {
    token: admin.token,
    body: { name: `${name} ${guide.guideid}`, guideids: [guide.guideid], recertification_days: 365 },
  });
  expect(created.status).toBe(201);
  return { ...(created.body as { skillid: number; name: string }), guideid: guide.guideid };
}

const setLevel = (admin: TestUser, skillid: number, userid: number, level: number) =>
  api('PUT', `/qualifications/skills/${skillid}/levels/${userid}`, {
    token: admin.token,
    body: { level, password: admin.password },
  });

describe('requirements and gaps', () => {
  it('team owners and Admins set them; the gap report shows missing, expiring and met, as JSON and CSV', async () => {
    const admin = await createUser({ privileges: ['Admin'] });
    const [owner, member, outsider, trainer] = await Promise.all([
      createUser(),
      createUser(),
      createUser(),
      createUser(),
    ]);
    const author = await createUser({ privileges: ['Author'] });
    const team = await createTeam({ owner: owner.userid, members: [member.userid, author.userid] });
    const a = await newSkill(admin, '=Seals');
    const b = await newSkill(admin, 'Pumps');
    const teamPath = `/qualifications/requirements/teams/${team.teamid}`;

    // A team's: its owner and Admins set them; members read; others 403; unknown or twice-listed skills 422.
    const put = (who: TestUser, path: string, requirements: unknown) =>
      api('PUT', path, { token: who.token, body: { requirements } });
    expect((await put(member, teamPath, [{ skillid: a.skillid, level: 3 }])).status).toBe(403);
    const unknown = await put(owner, teamPath, [{ skillid: 99999999, level: 3 }]);
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors[0]).toMatchObject({ field: 'requirements', code: 'not_found' });
    const twice = await put(owner, teamPath, [
      { skillid: a.skillid, level: 3 },
      { skillid: a.skillid, level: 2 },
    ]);
    expect(twice.status).toBe(422);
    const set = await put(owner, teamPath, [{ skillid: a.skillid, level: 3 }]);
    expect(set.status).toBe(200);
    expect(set.body).toEqual({
      scope: 'team',
      teamid: team.teamid,
      role: null,
      requirements: [
        { skillid: a.skillid, skill_name: a.name, level: 3, set_by_userid: owner.userid, set_date: expect.any(Number) },
      ],
    });
    expect((await api('GET', teamPath, { token: member.token })).body.requirements).toHaveLength(1);
    expect((await api('GET', teamPath, { token: outsider.token })).status).toBe(403);

    // A role's: Admins set them (roles nest: Author reaches Authors and Admins, not Users); unknown roles 404.
    const rolePath = '/qualifications/requirements/roles/Author';
    expect((await put(owner, rolePath, [{ skillid: b.skillid, level: 2 }])).status).toBe(403);
    expect((await put(admin, rolePath, [{ skillid: b.skillid, level: 2 }])).status).toBe(200);
    expect((await api('GET', '/qualifications/requirements/roles/Nobody', { token: member.token })).status).toBe(404);
    try {
      expect((await setLevel(admin, a.skillid, member.userid, 3)).status).toBe(200);
      expect((await setLevel(admin, a.skillid, author.userid, 2)).status).toBe(200);

      // The owner's view of the team.
      const report = await api('GET', '/qualifications/gaps', { token: owner.token, query: { teamid: team.teamid } });
      expect(report.status).toBe(200);
      const row = (userid: number) => report.body.find((r: { userid: number }) => r.userid === userid);
      expect(report.body.map((r: { userid: number }) => r.userid)).toEqual(
        [owner.userid, member.userid, author.userid].sort((x, y) => x - y),
      );
      expect(row(member.userid)).toMatchObject({ missing: 0, expired: 0, expiring: 0 });
      expect(row(member.userid).skills).toEqual([
        expect.objectContaining({ skillid: a.skillid, required_level: 3, level: 3, status: 'met' }),
      ]);
      expect(row(author.userid)).toMatchObject({ missing: 2 });
      expect(row(author.userid).skills).toEqual([
        expect.objectContaining({
          skillid: a.skillid,
          level: 2,
          status: 'missing',
          required_by: [{ scope: 'team', teamid: team.teamid }],
        }),
        expect.objectContaining({
          skillid: b.skillid,
          level: 0,
          status: 'missing',
          required_by: [{ scope: 'role', role: 'Author' }],
        }),
      ]);
      expect(row(owner.userid).skills).toEqual([expect.objectContaining({ skillid: a.skillid, status: 'missing' })]);
      // A lead window that reaches the expiry (365 days) shows it expiring.
      const lead = await api('GET', '/qualifications/gaps', {
        token: owner.token,
        query: { teamid: team.teamid, lead_days: 365 },
      });
      expect(lead.body.find((r: { userid: number }) => r.userid === member.userid).expiring).toBe(1);

      // CSV, asked by Accept: a formula-like skill name is defused.
      const csv = await api('GET', '/qualifications/gaps', {
        token: owner.token,
        query: { teamid: team.teamid },
        headers: { accept: 'text/csv' },
      });
      expect(csv.headers.get('content-type')).toContain('text/csv');
      const lines = csv.text.trim().split('\r\n');
      expect(lines[0]).toBe('userid,username,skillid,skill_name,required_level,level,expires_at,status,required_by');
      expect(lines).toHaveLength(5);
      expect(lines).toContainEqual(expect.stringContaining(`,'${a.name},3,2,`));
      expect(lines).toContainEqual(expect.stringContaining(`,missing,role:Author`));

      // Refusals: another's team; the learner sees their own row only.
      expect(
        (await api('GET', '/qualifications/gaps', { token: member.token, query: { teamid: team.teamid } })).status,
      ).toBe(403);
      const own = await api('GET', '/qualifications/gaps', { token: member.token });
      expect(own.body.map((r: { userid: number }) => r.userid)).toEqual([member.userid]);

      // A trainer in skill A: everyone it is required of; without authority, their own row.
      expect((await setLevel(admin, a.skillid, trainer.userid, 4)).status).toBe(200);
      const trainerView = await api('GET', '/qualifications/gaps', {
        token: trainer.token,
        query: { skillid: a.skillid },
      });
      expect(trainerView.body.map((r: { userid: number }) => r.userid)).toEqual(
        [owner.userid, member.userid, author.userid].sort((x, y) => x - y),
      );
      const notTrainer = await api('GET', '/qualifications/gaps', {
        token: outsider.token,
        query: { skillid: a.skillid },
      });
      expect(notTrainer.body).toEqual([expect.objectContaining({ userid: outsider.userid, skills: [] })]);

      // A newer major release of the skill's guide outdates the level earned before it, as at the gate.
      await releaseGuide(a.guideid, 'major');
      const outdated = await api('GET', '/qualifications/gaps', { token: owner.token, query: { teamid: team.teamid } });
      expect(outdated.body.find((r: { userid: number }) => r.userid === member.userid)).toMatchObject({
        outdated: 1,
        skills: [expect.objectContaining({ skillid: a.skillid, level: 3, status: 'outdated' })],
      });
    } finally {
      expect((await put(admin, rolePath, [])).status).toBe(200);
    }
  });
});
