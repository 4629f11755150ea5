/**
 * Trainer authority, one rule (docs/competency.md "Trainer authority", decision 303): a trainer
 * whose level 4 does not count — outdated by a newer major release they have not acknowledged,
 * or expired — is refused (403 naming why) when they certify, override the gate or countersign,
 * and allowed again once it counts. One guide, one skill, one trainer through all three.
 */
import { describe, expect, it } from 'vitest';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { api, createUser, type TestUser } from '../support/api.ts';
import { releaseGuide } from '../support/courses.ts';
import { localDb } from '../support/local-db.ts';
import { addStep, createGuide, publish } from './guide-fixtures.ts';

const setLevel = (signer: TestUser, skillid: number, userid: number, level: number) =>
  api('PUT', `/qualifications/skills/${skillid}/levels/${userid}`, {
    token: signer.token,
    body: { level, password: signer.password },
  });

const signAck = (who: TestUser, releaseid: number) =>
  api('POST', `/acknowledgements/${releaseid}/sign`, { token: who.token, body: { password: who.password } });

describe('trainer authority', () => {
  it('certify, override and countersign need a current level 4: outdated and expired are refused', async () => {
    const admin = await createUser({ privileges: ['Admin'] });
    const trainer = await createUser();
    const operator = await createUser();
    const trainee = await createUser();
    const guide = await createGuide(admin.token);
    await publish(admin.token, guide);
    const skill = await api('POST', '/qualifications/skills', {
      token: admin.token,
      body: { name: `Authority ${guide.guideid}`, guideids: [guide.guideid], recertification_days: 90 },
    });
    const { skillid } = skill.body;
    expect(
      (
        await api('PUT', `/qualifications/gating/guides/${guide.guideid}`, {
          token: admin.token,
          body: { gate_mode: 'warn', min_level: 3 },
        })
      ).status,
    ).toBe(200);
    await releaseGuide(guide.guideid, 'major');
    expect((await setLevel(admin, skillid, trainer.userid, 4)).status).toBe(200);
    expect((await setLevel(admin, skillid, operator.userid, 1)).status).toBe(200);
    // Allowed: a current trainer certifies.
    expect((await setLevel(trainer, skillid, trainee.userid, 2)).status).toBe(200);

    // A new major release outdates the trainer's level until they acknowledge it.
    // POST steps answers the whole guide: its last step is the one added.
    const step = (
      await addStep(admin.token, guide.guideid, { lines: [{ text: 'Torque to 12 Nm.', bullet: 'black', level: 0 }] })
    ).steps.at(-1);
    const release = await releaseGuide(guide.guideid, 'major');
    const certify = await setLevel(trainer, skillid, trainee.userid, 3);
    expect(certify.status).toBe(403);
    expect(certify.body.message).toMatch(/current level 4.*sets levels.*outdated/);
    expect(certify.body.skills).toEqual([
      { skillid, name: skill.body.name, guideid: guide.guideid, level_held: 4, standing: 'outdated' },
    ]);
    const started = await api('POST', '/work_log', {
      token: operator.token,
      body: { guideid: guide.guideid, workorderid: 'WO-authority' },
    });
    expect(started.status).toBe(201);
    const override = () =>
      api('POST', `/work_log/${started.body.entryid}/qualification/override`, {
        token: trainer.token,
        body: { password: trainer.password, comment: 'Watched it' },
      });
    const refusedOverride = await override();
    expect(refusedOverride.status).toBe(403);
    expect(refusedOverride.body.message).toMatch(/overrides the gate.*outdated/);

    // Acknowledged: the level counts again; certify and override are allowed.
    expect((await signAck(trainer, release.releaseid)).status).toBe(200);
    expect((await setLevel(trainer, skillid, trainee.userid, 3)).status).toBe(200);
    expect((await override()).status).toBe(200);

    // Countersignature: the operator's signature on a marked step awaits it.
    const marked = await api('PUT', `/acknowledgements/${release.releaseid}/countersign-steps`, {
      token: admin.token,
      body: { stepids: [step.stepid] },
    });
    expect(marked.status, marked.text).toBe(200);
    expect((await signAck(operator, release.releaseid)).status).toBe(200);
    const countersign = () =>
      api('POST', `/acknowledgements/${release.releaseid}/countersign/${operator.userid}`, {
        token: trainer.token,
        body: { password: trainer.password },
      });
    // An expired trainer does not countersign.
    await localDb().send(
      new UpdateCommand({
        TableName: 'stepwise',
        Key: { pk: `USER#${trainer.userid}`, sk: `LEVEL#${String(skillid).padStart(12, '0')}` },
        UpdateExpression: 'SET expires_at = :past',
        ExpressionAttributeValues: { ':past': Math.floor(Date.now() / 1000) - 10 },
      }),
    );
    const refusedCountersign = await countersign();
    expect(refusedCountersign.status).toBe(403);
    expect(refusedCountersign.body.message).toMatch(/countersigns.*expired/);
    expect(refusedCountersign.body.skills[0]).toMatchObject({ skillid, standing: 'expired' });
    expect((await setLevel(trainer, skillid, trainee.userid, 1)).status).toBe(403);
    // Recertified by an Admin: allowed again.
    expect((await setLevel(admin, skillid, trainer.userid, 4)).status).toBe(200);
    expect((await countersign()).status).toBe(200);
  });
});
