/**
 * The qualification-lapse conflict of POST /user/sync (docs/offline.md, issue 29's gate): the
 * gate is checked when the journal arrives, so a level lowered while the device was offline
 * is a `qualification` conflict naming skill, level required and level held under `block`,
 * and an applied, flagged start under `warn`.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { api, createUser, type TestUser } from '../support/api.ts';
import { releaseGuide } from '../support/courses.ts';
import { createGuide, publish } from './guide-fixtures.ts';

async function gatedGuide(mode: 'block' | 'warn') {
  const admin = await createUser({ privileges: ['Admin'] });
  const guide = await createGuide(admin.token);
  await publish(admin.token, guide);
  const skill = await api('POST', '/qualifications/skills', {
    token: admin.token,
    body: { name: `Sync gate ${guide.guideid}`, guideids: [guide.guideid], recertification_days: 90 },
  });
  expect(skill.status).toBe(201);
  const gate = await api('PUT', `/qualifications/gating/guides/${guide.guideid}`, {
    token: admin.token,
    body: { gate_mode: mode, min_level: 3 },
  });
  expect(gate.status).toBe(200);
  await releaseGuide(guide.guideid, 'major');
  return { admin, guideid: guide.guideid as number, skillid: skill.body.skillid as number };
}

async function setLevel(admin: TestUser, skillid: number, userid: number, level: number) {
  const response = await api('PUT', `/qualifications/skills/${skillid}/levels/${userid}`, {
    token: admin.token,
    body: { level, password: admin.password },
  });
  expect(response.status).toBe(200);
}

const now = () => Math.floor(Date.now() / 1000);
const startAction = (guideid: number, client_guid = randomUUID()) => ({
  client_guid,
  type: 'work_log.start',
  device_time: now() - 600,
  data: { guideid, workorderid: `WO-${client_guid.slice(0, 8)}` },
});
const sync = (token: string, actions: unknown[]) => api('POST', '/user/sync', { token, body: { actions } });

describe('POST /user/sync: the qualification gate', () => {
  it('block: a level lowered while offline is a conflict naming the skill; nothing is made', async () => {
    const { admin, guideid, skillid } = await gatedGuide('block');
    const operator = await createUser();
    await setLevel(admin, skillid, operator.userid, 3);
    // Qualified when the device went offline, lowered to 2 before it synced.
    await setLevel(admin, skillid, operator.userid, 2);
    const start = startAction(guideid);
    const pause = {
      client_guid: randomUUID(),
      type: 'work_log.pause',
      device_time: now() - 500,
      entry: start.client_guid,
    };
    const answer = await sync(operator.token, [start, pause]);
    expect(answer.status).toBe(200);
    const [started, paused] = answer.body.results;
    expect(started).toMatchObject({ status: 'conflict', http_status: 403, conflict: { reason: 'qualification' } });
    expect(started.conflict.message).toContain('requires level 3, level held 2');
    expect(started.conflict.current.skills).toEqual([
      { skillid, name: `Sync gate ${guideid}`, level_required: 3, level_held: 2, standing: 'current' },
    ]);
    expect(paused).toMatchObject({ status: 'skipped', conflict: { reason: 'depends_on_failed' } });
    const listed = await api('GET', '/work_log', { token: operator.token, query: { client_guid: start.client_guid } });
    expect(listed.body.results).toEqual([]);

    // Requalified, the same journal sent again is applied (the conflict made nothing).
    await setLevel(admin, skillid, operator.userid, 3);
    const again = await sync(operator.token, [start, pause]);
    expect(again.body.results.map((result: { status: string }) => result.status)).toEqual(['applied', 'applied']);
  });

  it('block: step data of an entry begun while qualified is a conflict once the level lapsed', async () => {
    const { admin, guideid, skillid } = await gatedGuide('block');
    const operator = await createUser();
    await setLevel(admin, skillid, operator.userid, 3);
    const start = startAction(guideid);
    expect((await sync(operator.token, [start])).body.results[0].status).toBe('applied');
    await setLevel(admin, skillid, operator.userid, 1);
    const step = {
      client_guid: randomUUID(),
      type: 'work_log.step_data',
      device_time: now() - 100,
      entry: start.client_guid,
      data: { fields: {} },
    };
    const [result] = (await sync(operator.token, [step])).body.results;
    expect(result).toMatchObject({ status: 'conflict', conflict: { reason: 'qualification' } });
    expect(result.conflict.current.skills[0]).toMatchObject({ skillid, level_required: 3, level_held: 1 });
  });

  it('warn: the start is applied flagged and says so, on the first delivery and on a resend', async () => {
    const { guideid, skillid } = await gatedGuide('warn');
    const operator = await createUser();
    const start = startAction(guideid);
    for (const expected of ['applied', 'already_applied']) {
      const [result] = (await sync(operator.token, [start])).body.results;
      expect(result).toMatchObject({ status: expected, conflict: { reason: 'qualification' } });
      expect(result.conflict.current).toMatchObject({
        flagged: true,
        skills: [expect.objectContaining({ skillid, level_required: 3, level_held: 0, standing: 'none' })],
      });
      const record = await api('GET', `/work_log/${result.entryid}/qualification`, { token: operator.token });
      expect(record.body).toMatchObject({ outcome: 'warn', flagged: true });
    }
  });
});
