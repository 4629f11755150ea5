/**
 * Skills, levels by a trainer's signature, the matrix (JSON and CSV), forecasts and the settings
 * over HTTP (docs/competency.md), each refusal, and the audit chains verifying after them.
 */
import { describe, expect, it } from 'vitest';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { api, createTeam, createUser, loginAdmin, type TestUser } from '../support/api.ts';
import { localDb } from '../support/local-db.ts';
import { createGuide } from './guide-fixtures.ts';
import { assign, createCourse } from '../support/courses.ts';

const DAY = 86400;

async function newSkill(admin: string, body: Record<string, unknown> = {}) {
  const guide = await createGuide(admin);
  const created = await api('POST', '/qualifications/skills', {
    token: admin,
    body: { name: `Skill ${guide.guideid}`, guideids: [guide.guideid], recertification_days: 365, ...body },
  });
  expect(created.status).toBe(201);
  return { skill: created.body, guide };
}

const setLevel = (
  trainer: TestUser | { token: string; password: string },
  skillid: number,
  userid: number,
  level: number,
) =>
  api('PUT', `/qualifications/skills/${skillid}/levels/${userid}`, {
    token: trainer.token,
    body: { level, password: trainer.password },
  });

async function adminUser(): Promise<TestUser> {
  return createUser({ privileges: ['Admin'] });
}

describe('skills', () => {
  it('Admins create, change and delete; everyone reads; unknown guides 422, unknown skills 404', async () => {
    const admin = await loginAdmin();
    const user = await createUser();
    const { skill, guide } = await newSkill(admin, { acknowledgement_strictness: 'minor' });
    expect(skill).toMatchObject({
      guideids: [guide.guideid],
      recertification_days: 365,
      acknowledgement_strictness: 'minor',
    });
    expect((await api('GET', `/qualifications/skills/${skill.skillid}`, { token: user.token })).body.name).toBe(
      skill.name,
    );
    const listed = await api('GET', '/qualifications/skills', { token: user.token, query: { limit: 200 } });
    expect(listed.body.map((item: { skillid: number }) => item.skillid)).toContain(skill.skillid);

    const refused = await api('POST', '/qualifications/skills', {
      token: user.token,
      body: { name: 'x', guideids: [guide.guideid] },
    });
    expect(refused.status).toBe(403);
    const unknownGuide = await api('POST', '/qualifications/skills', {
      token: admin,
      body: { name: 'x', guideids: [99999999] },
    });
    expect(unknownGuide.status).toBe(422);
    expect(unknownGuide.body.errors[0]).toMatchObject({ field: 'guideids', code: 'not_found' });

    const patched = await api('PATCH', `/qualifications/skills/${skill.skillid}`, {
      token: admin,
      body: { recertification_days: 30 },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.recertification_days).toBe(30);
    expect((await api('DELETE', `/qualifications/skills/${skill.skillid}`, { token: admin })).status).toBe(204);
    expect((await api('GET', `/qualifications/skills/${skill.skillid}`, { token: user.token })).status).toBe(404);
    expect((await api('PATCH', '/qualifications/skills/99999999', { token: admin, body: { name: 'y' } })).status).toBe(
      404,
    );
  });
});

describe('levels by trainer signature', () => {
  it('an Admin or a level-4 trainer signs; wrong password 422; others 403; nobody sets their own', async () => {
    const admin = await adminUser();
    const { skill } = await newSkill(admin.token);
    const trainer = await createUser();
    const trainee = await createUser();
    const stranger = await createUser();

    expect((await setLevel(stranger, skill.skillid, trainee.userid, 3)).status).toBe(403);
    const wrong = await api('PUT', `/qualifications/skills/${skill.skillid}/levels/${trainer.userid}`, {
      token: admin.token,
      body: { level: 4, password: 'wrong' },
    });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors[0].field).toBe('password');

    const four = await setLevel(admin, skill.skillid, trainer.userid, 4);
    expect(four.status).toBe(200);
    expect(four.body).toMatchObject({
      level: 4,
      level_name: 'Can train others',
      source: 'trainer_signature',
      set_by_userid: admin.userid,
    });
    expect(four.body.expires_at - four.body.set_date).toBe(365 * DAY);

    const three = await setLevel(trainer, skill.skillid, trainee.userid, 3);
    expect(three.status).toBe(200);
    expect(three.body).toMatchObject({ userid: trainee.userid, level: 3, set_by_userid: trainer.userid });
    expect((await setLevel(trainer, skill.skillid, trainer.userid, 4)).status).toBe(403);
    expect((await setLevel(admin, skill.skillid, 99999999, 1)).status).toBe(404);
    expect((await setLevel(admin, 99999999, trainee.userid, 1)).status).toBe(404);
    const outOfRange = await api('PUT', `/qualifications/skills/${skill.skillid}/levels/${trainee.userid}`, {
      token: admin.token,
      body: { level: 5, password: admin.password },
    });
    expect(outOfRange.status).toBe(422);

    // An expired trainer no longer trains.
    await localDb().send(
      new UpdateCommand({
        TableName: 'stepwise',
        Key: { pk: `USER#${trainer.userid}`, sk: `LEVEL#${String(skill.skillid).padStart(12, '0')}` },
        UpdateExpression: 'SET expires_at = :past',
        ExpressionAttributeValues: { ':past': Math.floor(Date.now() / 1000) - 10 },
      }),
    );
    expect((await setLevel(trainer, skill.skillid, trainee.userid, 2)).status).toBe(403);

    for (const userid of [trainee.userid, trainer.userid]) {
      const verified = await api('GET', `/audit/users/${userid}/verify`, { token: admin.token });
      expect(verified.body).toMatchObject({ valid: true, first_broken_seq: null });
    }
    const history = await api('GET', `/audit/users/${trainee.userid}`, { token: admin.token });
    expect(JSON.stringify(history.body)).toContain('qualification.level_set');
  });
});

describe('the matrix and forecasts', () => {
  it('Admins all, team owners their team, others their own rows; CSV; 30/60/90 windows', async () => {
    const admin = await adminUser();
    const { skill } = await newSkill(admin.token, { recertification_days: 45 });
    const owner = await createUser();
    const member = await createUser();
    const other = await createUser();
    const team = await createTeam({ owner: owner.userid, members: [member.userid] });
    expect((await setLevel(admin, skill.skillid, member.userid, 3)).status).toBe(200);
    expect((await setLevel(admin, skill.skillid, other.userid, 2)).status).toBe(200);

    const { skill: second } = await newSkill(admin.token);
    const cellsOf = (row: { skills: Array<{ skillid: number; level: number; source: string | null }> }) =>
      row.skills
        .filter((cell) => cell.skillid === skill.skillid || cell.skillid === second.skillid)
        .map((cell) => [cell.skillid, cell.level, cell.source]);

    // Dense: a team's members × every skill, level 0 where none is held.
    const teamRows = await api('GET', '/qualifications/matrix', { token: owner.token, query: { teamid: team.teamid } });
    expect(teamRows.status).toBe(200);
    // The owner is a member too: a row of level 0 cells.
    expect(teamRows.body.map((row: { userid: number }) => row.userid)).toEqual(
      [owner.userid, member.userid].sort((a, b) => a - b),
    );
    const memberRow = teamRows.body.find((row: { userid: number }) => row.userid === member.userid);
    expect(cellsOf(memberRow)).toEqual([
      [skill.skillid, 3, 'trainer_signature'],
      [second.skillid, 0, null],
    ]);
    expect(
      (await api('GET', '/qualifications/matrix', { token: other.token, query: { teamid: team.teamid } })).status,
    ).toBe(403);
    // Everyone their own row, with every skill.
    const own = await api('GET', '/qualifications/matrix', { token: other.token, query: { skillid: second.skillid } });
    expect(own.body).toEqual([
      { userid: other.userid, username: expect.any(String), skills: [expect.objectContaining({ level: 0 })] },
    ]);
    expect((await api('GET', '/qualifications/matrix', { token: other.token, query: { offset: 1 } })).body).toEqual([]);
    // Admins: everyone, paged over people (a person who holds nothing is a row too).
    // The stack is shared: the owner's row is on whichever page of everyone it falls.
    let ownerRow: { skills: unknown[] } | undefined;
    for (let offset = 0; !ownerRow; offset += 200) {
      const page = await api('GET', '/qualifications/matrix', {
        token: admin.token,
        query: { skillid: skill.skillid, limit: 200, offset },
      });
      expect(page.body.length, 'the owner is a row of the matrix').toBeGreaterThan(0);
      ownerRow = page.body.find((row: { userid: number }) => row.userid === owner.userid);
    }
    expect(ownerRow.skills).toEqual([expect.objectContaining({ skillid: skill.skillid, level: 0, source: null })]);
    const firstTwo = await api('GET', '/qualifications/matrix', { token: admin.token, query: { limit: 2 } });
    const nextOne = await api('GET', '/qualifications/matrix', { token: admin.token, query: { limit: 1, offset: 1 } });
    expect(firstTwo.body).toHaveLength(2);
    expect(nextOne.body.map((row: { userid: number }) => row.userid)).toEqual([firstTwo.body[1].userid]);

    const csv = await api('GET', '/qualifications/matrix', {
      token: owner.token,
      query: { teamid: team.teamid, format: 'csv' },
    });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toContain('text/csv');
    const lines = csv.text.trim().split('\r\n');
    expect(lines[0]).toBe(
      'userid,username,skillid,skill_name,level,level_name,expires_at,expired,source,set_by_userid,set_date',
    );
    expect(lines.some((line) => line.startsWith(`${member.userid},`) && line.includes(`,3,Independent,`))).toBe(true);
    expect(
      lines.some((line) => line.includes(`,${second.skillid},`) && line.includes(',0,Not trained,,false,,,')),
    ).toBe(true);

    const forecast = await api('GET', '/qualifications/forecast', {
      token: admin.token,
      query: { skillid: skill.skillid },
    });
    expect(forecast.status).toBe(200);
    expect(forecast.body.within_30_days).toEqual([]);
    expect(forecast.body.within_60_days.map((row: { userid: number }) => row.userid).sort()).toEqual(
      [member.userid, other.userid].sort(),
    );
    expect(forecast.body.within_90_days).toHaveLength(2);
    const mine = await api('GET', '/qualifications/forecast', { token: member.token });
    expect(mine.body.within_60_days).toEqual([expect.objectContaining({ userid: member.userid })]);
  });
});

describe('levels from courses', () => {
  it('completing a mapped stage (or the course) gives the level, with the expiry; a higher level stays', async () => {
    const admin = await adminUser();
    const { skill, guide } = await newSkill(admin.token, { recertification_days: 30 });
    const { skill: courseSkill } = await newSkill(admin.token, { recertification_days: null });
    const course = await createCourse({ stages: [{ doctype: 'guide', docid: guide.guideid }] });
    const stageid = course.stages[0].course_stageid;
    const path = `/qualifications/courses/${course.wikiid}/levels`;
    const grants = [
      { course_stageid: stageid, skillid: skill.skillid, level: 3 },
      { course_stageid: null, skillid: courseSkill.skillid, level: 2 },
    ];
    const reader = await createUser();
    expect((await api('PUT', path, { token: reader.token, body: { grants } })).status).toBe(403);
    const badStage = await api('PUT', path, {
      token: admin.token,
      body: { grants: [{ course_stageid: 99999999, skillid: skill.skillid, level: 3 }] },
    });
    expect(badStage.status).toBe(422);
    expect(badStage.body.errors[0].field).toBe('grants[0].course_stageid');
    const badSkill = await api('PUT', path, {
      token: admin.token,
      body: { grants: [{ course_stageid: null, skillid: 99999999, level: 3 }] },
    });
    expect(badSkill.status).toBe(422);
    expect(
      (await api('PUT', '/qualifications/courses/99999999/levels', { token: admin.token, body: { grants } })).status,
    ).toBe(404);
    const put = await api('PUT', path, { token: admin.token, body: { grants } });
    expect(put.status).toBe(200);
    expect((await api('GET', path, { token: admin.token })).body).toEqual({ wikiid: course.wikiid, grants });

    const trainee = await createUser();
    const trained = await createUser();
    expect((await setLevel(admin, skill.skillid, trained.userid, 4)).status).toBe(200);
    for (const person of [trainee, trained]) {
      await assign({ wikiid: course.wikiid, userid: person.userid });
      const done = await api('PATCH', `/course_assignments/complete/guide/${guide.guideid}`, {
        token: person.token,
        body: {},
      });
      expect(done.status).toBe(200);
    }
    const cellsOf = async (person: TestUser) => {
      const matrix = await api('GET', '/qualifications/matrix', { token: person.token });
      return new Map(matrix.body[0].skills.map((cell: { skillid: number }) => [cell.skillid, cell]));
    };
    const mine = await cellsOf(trainee);
    expect(mine.get(skill.skillid)).toMatchObject({ level: 3, source: 'course_completion' });
    const cell = mine.get(skill.skillid) as { expires_at: number; set_date: number };
    expect(cell.expires_at - cell.set_date).toBe(30 * DAY);
    expect(mine.get(courseSkill.skillid)).toMatchObject({ level: 2, source: 'course_completion', expires_at: null });
    // A trainer's higher level is never lowered.
    expect((await cellsOf(trained)).get(skill.skillid)).toMatchObject({ level: 4, source: 'trainer_signature' });

    const history = await api('GET', `/audit/users/${trainee.userid}`, { token: admin.token });
    expect(JSON.stringify(history.body)).toContain('derived_from');
  });
});

describe('levels from a signoff', () => {
  it('a stage assessed by a signoff gives its level once the approved signoff is acknowledged (source signoff)', async () => {
    const admin = await adminUser();
    const signer = await createUser();
    const team = await createTeam({ members: [signer.userid] });
    const { skill, guide } = await newSkill(admin.token, { recertification_days: null });
    const course = await createCourse({
      stages: [{ doctype: 'guide', docid: guide.guideid, assessment: { teamid: team.teamid } }],
    });
    const stage = course.stages[0];
    const put = await api('PUT', `/qualifications/courses/${course.wikiid}/levels`, {
      token: admin.token,
      body: { grants: [{ course_stageid: stage.course_stageid, skillid: skill.skillid, level: 2 }] },
    });
    expect(put.status).toBe(200);
    const trainee = await createUser();
    await assign({ wikiid: course.wikiid, userid: trainee.userid });
    const levelOf = async () => {
      const matrix = await api('GET', '/qualifications/matrix', {
        token: trainee.token,
        query: { skillid: skill.skillid },
      });
      return matrix.body[0].skills[0];
    };
    await api('PATCH', `/course_assignments/complete/guide/${guide.guideid}`, { token: trainee.token, body: {} });
    // The document is done, the assessment is not: no level yet.
    expect(await levelOf()).toMatchObject({ level: 0, source: null });
    const requested = await api('POST', '/stage-sign-offs/requests', {
      token: trainee.token,
      body: { stage_assessmentid: stage.stage_assessmentid },
    });
    expect(requested.status).toBe(201);
    const answered = await api('PATCH', '/stage-sign-offs/responses', {
      token: signer.token,
      body: { signoff_requestid: requested.body.signoff_requestid, approved: true },
    });
    expect(answered.status).toBe(200);
    const acknowledged = await api(
      'PATCH',
      `/stage-sign-offs/responses/${requested.body.signoff_requestid}/acknowledge`,
      { token: trainee.token },
    );
    expect(acknowledged.status).toBe(200);
    // Set by the signer who approved it, not by the trainee.
    expect(await levelOf()).toMatchObject({
      level: 2,
      source: 'signoff',
      expires_at: null,
      set_by_userid: signer.userid,
    });
  });
});

describe('settings', () => {
  it('site settings: everyone reads, Admins change (level names too); a guide gate: its editors', async () => {
    const admin = await loginAdmin();
    const user = await createUser();
    const before = await api('GET', '/qualifications/settings', { token: user.token });
    expect(before.status).toBe(200);
    expect(before.body.level_names).toHaveLength(5);
    expect((await api('PUT', '/qualifications/settings', { token: user.token, body: { min_level: 2 } })).status).toBe(
      403,
    );
    const badNames = await api('PUT', '/qualifications/settings', { token: admin, body: { level_names: ['a'] } });
    expect(badNames.status).toBe(422);
    // Left unchanged in value (other test files share the site): set what it was.
    const same = await api('PUT', '/qualifications/settings', {
      token: admin,
      body: { acknowledgement_due_days: before.body.acknowledgement_due_days },
    });
    expect(same.status).toBe(200);

    const guide = await createGuide(admin);
    const path = `/qualifications/gating/guides/${guide.guideid}`;
    expect((await api('PUT', path, { token: user.token, body: { gate_mode: 'block' } })).status).toBe(403);
    const put = await api('PUT', path, { token: admin, body: { gate_mode: 'block', min_level: 2 } });
    expect(put.body).toEqual({ gate_mode: 'block', min_level: 2 });
    expect((await api('GET', path, { token: admin })).body).toEqual({ gate_mode: 'block', min_level: 2 });
    expect((await api('PUT', path, { token: admin, body: { gate_mode: 'sometimes' } })).status).toBe(422);
    expect((await api('GET', '/qualifications/gating/guides/99999999', { token: admin })).status).toBe(404);
  });
});
