/**
 * Nobody certifies themselves (decision 263; issue 35 item 7): no level set for oneself (an Admin
 * neither), none derived from a course mapping one wrote oneself, and the work-log gate holds
 * when an entry is assumed and when it is finished, not only when it starts.
 */
import { describe, expect, it } from 'vitest';
import { api, createUser, type TestUser } from '../support/api.ts';
import { assign, createCourse, releaseGuide } from '../support/courses.ts';
import { createGuide, publish } from './guide-fixtures.ts';

async function skillOf(admin: TestUser, guideid: number) {
  const skill = await api('POST', '/qualifications/skills', {
    token: admin.token,
    body: { name: `Self skill ${guideid}`, guideids: [guideid], recertification_days: 90 },
  });
  expect(skill.status).toBe(201);
  return skill.body.skillid as number;
}

async function setLevel(admin: TestUser, skillid: number, userid: number, level: number) {
  return api('PUT', `/qualifications/skills/${skillid}/levels/${userid}`, {
    token: admin.token,
    body: { level, password: admin.password },
  });
}

async function levelOf(person: TestUser, skillid: number) {
  const matrix = await api('GET', '/qualifications/matrix', { token: person.token });
  expect(matrix.status).toBe(200);
  const cell = matrix.body[0]?.skills.find((entry: { skillid: number }) => entry.skillid === skillid);
  return cell?.level ?? 0;
}

describe('levels', () => {
  it('an Admin cannot set their own level', async () => {
    const admin = await createUser({ privileges: ['Admin'] });
    const skillid = await skillOf(admin, (await createGuide(admin.token)).guideid);
    const own = await setLevel(admin, skillid, admin.userid, 4);
    expect(own.status).toBe(403);
    expect(own.body.message).toMatch(/own level/);
    expect(await levelOf(admin, skillid)).toBe(0);
  });

  it('completing a course whose mapping you set yourself gives you no level; another trainee gets it', async () => {
    const mapper = await createUser({ privileges: ['Admin'] });
    const guide = await createGuide(mapper.token);
    const skillid = await skillOf(mapper, guide.guideid);
    const course = await createCourse({ stages: [{ doctype: 'guide', docid: guide.guideid }] });
    const put = await api('PUT', `/qualifications/courses/${course.wikiid}/levels`, {
      token: mapper.token,
      body: { grants: [{ course_stageid: null, skillid, level: 4 }] },
    });
    expect(put.status).toBe(200);
    const trainee = await createUser();
    for (const person of [mapper, trainee]) {
      await assign({ wikiid: course.wikiid, userid: person.userid });
      const done = await api('PATCH', `/course_assignments/complete/guide/${guide.guideid}`, {
        token: person.token,
        body: {},
      });
      expect(done.status).toBe(200);
    }
    expect(await levelOf(mapper, skillid)).toBe(0);
    expect(await levelOf(trainee, skillid)).toBe(4);
  });
});

describe('the work-log gate beyond the start', () => {
  async function gated() {
    const admin = await createUser({ privileges: ['Admin'] });
    const guide = await createGuide(admin.token);
    await publish(admin.token, guide);
    const skillid = await skillOf(admin, guide.guideid);
    const gate = await api('PUT', `/qualifications/gating/guides/${guide.guideid}`, {
      token: admin.token,
      body: { gate_mode: 'block', min_level: 3 },
    });
    expect(gate.status).toBe(200);
    await releaseGuide(guide.guideid, 'major');
    const supervisor = await createUser();
    expect((await setLevel(admin, skillid, supervisor.userid, 4)).status).toBe(200);
    const started = await api('POST', '/work_log', {
      token: supervisor.token,
      body: { guideid: guide.guideid, workorderid: 'WO-self' },
    });
    expect(started.status).toBe(201);
    return { admin, guide, skillid, supervisor, entryid: started.body.entryid as number };
  }

  it("an unqualified trainee cannot assume a qualified supervisor's suspended entry; a qualified one can", async () => {
    const { admin, skillid, supervisor, entryid } = await gated();
    expect((await api('POST', `/work_log/${entryid}/suspend`, { token: supervisor.token })).status).toBe(200);
    const trainee = await createUser();
    const refused = await api('POST', `/work_log/${entryid}/assume`, { token: trainee.token });
    expect(refused.status).toBe(403);
    expect(refused.body.skills?.[0]).toMatchObject({ level_required: 3, level_held: 0 });
    const entry = await api('GET', `/work_log/${entryid}`, { token: admin.token });
    expect(entry.body).toMatchObject({ status: 'suspended', operator_userid: supervisor.userid });
    const qualified = await createUser();
    expect((await setLevel(admin, skillid, qualified.userid, 3)).status).toBe(200);
    expect((await api('POST', `/work_log/${entryid}/assume`, { token: qualified.token })).status).toBe(200);
  });

  it('an operator who no longer passes the gate cannot finish', async () => {
    const { admin, skillid, supervisor, entryid } = await gated();
    expect((await setLevel(admin, skillid, supervisor.userid, 1)).status).toBe(200);
    const finish = await api('POST', `/work_log/${entryid}/finish`, { token: supervisor.token });
    expect(finish.status).toBe(403);
    expect((await setLevel(admin, skillid, supervisor.userid, 3)).status).toBe(200);
    expect((await api('POST', `/work_log/${entryid}/finish`, { token: supervisor.token })).status).toBe(200);
  });
});
