/**
 * The gate on work over HTTP (docs/competency.md): POST /work_log and step data check the
 * operator's level in every skill of the guide for its current major release; `block` is a 403
 * naming skill, level required and level held; `warn` creates the entry flagged until a qualified
 * supervisor signs an override; the entry records the levels as they were at the start.
 */
import { describe, expect, it } from 'vitest';
import { api, createUser, loginAdmin, type TestUser } from '../support/api.ts';
import { releaseGuide } from '../support/courses.ts';
import { createGuide, publish } from './guide-fixtures.ts';

interface Setup {
  admin: TestUser;
  guide: { guideid: number };
  skillids: number[];
}

/** A guide in `skills` skills, gated with `mode` at minimum 3, released 1.0. */
async function gatedGuide(mode: 'block' | 'warn' | 'off', skills = 1): Promise<Setup> {
  const admin = await createUser({ privileges: ['Admin'] });
  const guide = await createGuide(admin.token);
  await publish(admin.token, guide);
  const skillids: number[] = [];
  for (let index = 0; index < skills; index++) {
    const skill = await api('POST', '/qualifications/skills', {
      token: admin.token,
      body: { name: `Gate skill ${guide.guideid}.${index}`, guideids: [guide.guideid], recertification_days: 90 },
    });
    expect(skill.status).toBe(201);
    skillids.push(skill.body.skillid);
  }
  const gate = await api('PUT', `/qualifications/gating/guides/${guide.guideid}`, {
    token: admin.token,
    body: { gate_mode: mode, min_level: 3 },
  });
  expect(gate.status).toBe(200);
  await releaseGuide(guide.guideid, 'major');
  return { admin, guide, skillids };
}

async function setLevel(setup: Setup, skillid: number, userid: number, level: number) {
  const response = await api('PUT', `/qualifications/skills/${skillid}/levels/${userid}`, {
    token: setup.admin.token,
    body: { level, password: setup.admin.password },
  });
  expect(response.status).toBe(200);
}

const start = (token: string, guideid: number) =>
  api('POST', '/work_log', { token, body: { guideid, workorderid: 'WO-gate' } });

describe('block', () => {
  it('403 names skill, level required and held; a qualified operator starts; the record stands', async () => {
    const setup = await gatedGuide('block');
    const [skillid] = setup.skillids;
    const operator = await createUser();

    const none = await start(operator.token, setup.guide.guideid);
    expect(none.status).toBe(403);
    expect(none.body.message).toContain(`requires level 3, level held 0`);
    expect(none.body.skills).toEqual([
      { skillid, name: `Gate skill ${setup.guide.guideid}.0`, level_required: 3, level_held: 0, standing: 'none' },
    ]);
    // Authorization before validation: still 403 with a bad work order.
    const badOrder = await api('POST', '/work_log', { token: operator.token, body: { guideid: setup.guide.guideid } });
    expect(badOrder.status).toBe(403);

    await setLevel(setup, skillid, operator.userid, 2);
    const two = await start(operator.token, setup.guide.guideid);
    expect(two.status).toBe(403);
    expect(two.body.skills[0]).toMatchObject({ level_required: 3, level_held: 2 });

    await setLevel(setup, skillid, operator.userid, 3);
    const started = await start(operator.token, setup.guide.guideid);
    expect(started.status).toBe(201);
    const entryid = started.body.entryid;
    const record = await api('GET', `/work_log/${entryid}/qualification`, { token: operator.token });
    expect(record.status).toBe(200);
    expect(record.body).toMatchObject({
      gate_mode: 'block',
      min_level: 3,
      outcome: 'allow',
      flagged: false,
      override: null,
    });
    expect(record.body.skills).toEqual([
      expect.objectContaining({
        skillid,
        required: 3,
        held: 3,
        level: 3,
        standing: 'current',
        source: 'trainer_signature',
      }),
    ]);
    expect(record.body.skills[0].expires_at).toBeGreaterThan(record.body.date);

    // The level drops: step data is refused now, and the entry's record still says 3.
    await setLevel(setup, skillid, operator.userid, 1);
    const data = await api('PUT', `/work_log/${entryid}/stepData`, { token: operator.token, body: { fields: {} } });
    expect(data.status).toBe(403);
    expect(data.body.skills[0]).toMatchObject({ level_required: 3, level_held: 1 });
    expect(
      (await api('GET', `/work_log/${entryid}/qualification`, { token: operator.token })).body.skills[0].level,
    ).toBe(3);
    expect((await api('GET', `/work_log/${entryid}/qualification`, { token: (await createUser()).token })).status).toBe(
      403,
    );
  });

  it('several skills: the operator must hold the minimum in each', async () => {
    const setup = await gatedGuide('block', 2);
    const operator = await createUser();
    await setLevel(setup, setup.skillids[0], operator.userid, 4);
    const refused = await start(operator.token, setup.guide.guideid);
    expect(refused.status).toBe(403);
    expect(refused.body.skills.map((skill: { skillid: number }) => skill.skillid)).toEqual([setup.skillids[1]]);
    await setLevel(setup, setup.skillids[1], operator.userid, 3);
    expect((await start(operator.token, setup.guide.guideid)).status).toBe(201);
  });

  it('a new major release outdates the level until the operator acknowledges it', async () => {
    const setup = await gatedGuide('block');
    const operator = await createUser();
    await setLevel(setup, setup.skillids[0], operator.userid, 3);
    expect((await start(operator.token, setup.guide.guideid)).status).toBe(201);
    const release = await releaseGuide(setup.guide.guideid, 'major');
    const outdated = await start(operator.token, setup.guide.guideid);
    expect(outdated.status).toBe(403);
    expect(outdated.body.skills[0]).toMatchObject({ level_held: 0, standing: 'outdated' });
    // Asked as a holder of the skill; the signature carries the level over.
    const pending = await api('GET', '/acknowledgements', { token: operator.token });
    expect(pending.body).toEqual([expect.objectContaining({ releaseid: release.releaseid, reasons: ['skill'] })]);
    const signed = await api('POST', `/acknowledgements/${release.releaseid}/sign`, {
      token: operator.token,
      body: { password: operator.password },
    });
    expect(signed.status).toBe(200);
    expect((await start(operator.token, setup.guide.guideid)).status).toBe(201);
  });
});

describe('warn', () => {
  it('creates the entry flagged; only a qualified supervisor overrides it, by signature, once', async () => {
    const setup = await gatedGuide('warn');
    const [skillid] = setup.skillids;
    const operator = await createUser();
    const supervisor = await createUser();
    const bystander = await createUser();
    await setLevel(setup, skillid, operator.userid, 1);
    await setLevel(setup, skillid, supervisor.userid, 4);

    const started = await start(operator.token, setup.guide.guideid);
    expect(started.status).toBe(201);
    const entryid = started.body.entryid;
    const record = await api('GET', `/work_log/${entryid}/qualification`, { token: operator.token });
    expect(record.body).toMatchObject({ outcome: 'warn', flagged: true, override: null });
    expect(record.body.skills[0]).toMatchObject({ required: 3, held: 1 });
    // Step data goes on under warn.
    expect(
      (await api('PUT', `/work_log/${entryid}/stepData`, { token: operator.token, body: { fields: {} } })).status,
    ).toBe(200);

    const override = (user: TestUser, password = user.password) =>
      api('POST', `/work_log/${entryid}/qualification/override`, {
        token: user.token,
        body: { password, comment: 'Supervised on the line' },
      });
    expect((await override(operator)).status).toBe(403);
    expect((await override(bystander)).status).toBe(403);
    const wrong = await override(supervisor, 'wrong');
    expect(wrong.status).toBe(422);
    const signed = await override(supervisor);
    expect(signed.status).toBe(200);
    expect(signed.body.override).toMatchObject({
      userid: supervisor.userid,
      meaning: 'override',
      comment: 'Supervised on the line',
    });
    expect((await override(supervisor)).status).toBe(409);
    expect(
      (
        await api('POST', '/work_log/99999999/qualification/override', {
          token: supervisor.token,
          body: { password: 'x' },
        })
      ).status,
    ).toBe(404);

    for (const userid of [operator.userid, supervisor.userid]) {
      const verified = await api('GET', `/audit/users/${userid}/verify`, { token: setup.admin.token });
      expect(verified.body).toMatchObject({ valid: true, first_broken_seq: null });
    }
    const history = await api('GET', `/audit/users/${operator.userid}`, { token: setup.admin.token });
    const actions = JSON.stringify(history.body);
    expect(actions).toContain('work_log.qualification_flagged');
    expect(actions).toContain('work_log.qualification_overridden');
  });

  it('an entry that was not flagged has nothing to override (409)', async () => {
    const setup = await gatedGuide('off');
    const operator = await createUser();
    const started = await start(operator.token, setup.guide.guideid);
    expect(started.status).toBe(201);
    const record = await api('GET', `/work_log/${started.body.entryid}/qualification`, { token: operator.token });
    expect(record.body).toMatchObject({ gate_mode: 'off', outcome: 'allow', flagged: false });
    const override = await api('POST', `/work_log/${started.body.entryid}/qualification/override`, {
      token: setup.admin.token,
      body: { password: setup.admin.password },
    });
    expect(override.status).toBe(409);
  });
});

describe('a change of operator', () => {
  it("the record follows the entry to the new operator, checked for them; the earlier one's is kept", async () => {
    const setup = await gatedGuide('warn');
    const [skillid] = setup.skillids;
    const [first, second, supervisor] = await Promise.all([createUser(), createUser(), createUser()]);
    await setLevel(setup, skillid, first.userid, 3);
    await setLevel(setup, skillid, second.userid, 1);
    await setLevel(setup, skillid, supervisor.userid, 4);
    const started = await start(first.token, setup.guide.guideid);
    const { entryid } = started.body;
    const move = (who: TestUser, operation: string) =>
      api('POST', `/work_log/${entryid}/${operation}`, { token: who.token });
    const record = async () =>
      (await api('GET', `/work_log/${entryid}/qualification`, { token: setup.admin.token })).body;
    expect(await record()).toMatchObject({ userid: first.userid, flagged: false, previous: [] });

    // Handed to an operator who falls short: the record is theirs, flagged under warn.
    expect((await move(first, 'suspend')).status).toBe(200);
    expect((await move(second, 'assume')).status).toBe(200);
    const handed = await record();
    expect(handed).toMatchObject({ userid: second.userid, outcome: 'warn', flagged: true, override: null });
    expect(handed.skills[0]).toMatchObject({ skillid, required: 3, held: 1 });
    expect(handed.previous).toEqual([expect.objectContaining({ userid: first.userid, flagged: false })]);
    const override = await api('POST', `/work_log/${entryid}/qualification/override`, {
      token: supervisor.token,
      body: { password: supervisor.password, comment: 'Watched the hand-over' },
    });
    expect(override.status).toBe(200);

    // Back to the first operator: their record again; the overridden one is kept.
    expect((await move(second, 'suspend')).status).toBe(200);
    expect((await move(first, 'assume')).status).toBe(200);
    const back = await record();
    expect(back).toMatchObject({ userid: first.userid, flagged: false, override: null });
    expect(back.previous.map((one: { userid: number }) => one.userid)).toEqual([first.userid, second.userid]);
    expect(back.previous[1].override).toMatchObject({ userid: supervisor.userid, comment: 'Watched the hand-over' });
    const history = await api('GET', `/audit/users/${second.userid}`, { token: setup.admin.token });
    expect(JSON.stringify(history.body)).toContain('handed_over_from');
  });
});

describe('guides in no skill and the OpenAPI document', () => {
  it('a guide in no skill is not gated and records nothing; POST /work_log documents its 403', async () => {
    const admin = await loginAdmin();
    const user = await createUser();
    const guide = await createGuide(admin);
    await publish(admin, guide);
    const started = await start(user.token, guide.guideid);
    expect(started.status).toBe(201);
    expect((await api('GET', `/work_log/${started.body.entryid}/qualification`, { token: user.token })).status).toBe(
      404,
    );
    const doc = await api('GET', '/openapi.json');
    expect(doc.body.paths['/work_log'].post.responses['403'].description).toContain('Not qualified');
    expect(doc.body.paths['/work_log/{entryid}/stepData'].put.responses['403']).toBeDefined();
  });
});
