/**
 * Revision snapshots and createGuideRevision (what quizzes call), driven through the shared
 * module against the stack's DynamoDB, with the guide made and read through the API.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { reloadConfig } from '../../shared/config.ts';
import { createGuideRevision, getGuideRevision } from '../../shared/content/guide-revisions.ts';
import { getStep } from '../../shared/db/entities/step.ts';
import { latestRelease, listReleases } from '../../shared/db/entities/release.ts';
import { api, createUser } from '../support/api.ts';
import { addStep, createGuide } from './guide-fixtures.ts';

beforeAll(() => {
  process.env.DDB_ENDPOINT = inject('ddbEndpoint');
  process.env.AWS_ACCESS_KEY_ID ??= 'test';
  process.env.AWS_SECRET_ACCESS_KEY ??= 'test';
  reloadConfig();
});

describe('guide revisions', () => {
  it('every revision can be rebuilt with the step contents it had', async () => {
    const writer = await createUser({ privileges: ['Author'] });
    const created = await createGuide(writer.token, { summary: 'first' });
    const withStep = await addStep(writer.token, created.guideid, { title: 'Original step' });
    const step = withStep.steps[0];
    const edited = await api('PATCH', `/guides/${created.guideid}/steps/${step.stepid}`, {
      token: writer.token,
      query: { revisionid: step.revisionid },
      body: { title: 'Edited step' },
    });
    expect(edited.status).toBe(200);

    const atCreation = await getGuideRevision(created.guideid, created.revisionid);
    expect(atCreation?.guide).toMatchObject({
      summary: 'first',
      steps: [],
      reason: 'guide.create',
      changed_by: writer.userid,
    });
    const atStepAdded = await getGuideRevision(created.guideid, withStep.revisionid);
    expect(atStepAdded?.guide.reason).toBe('step.add');
    expect(atStepAdded?.steps.map((entry) => entry.title)).toEqual(['Original step']);
    const now = await api('GET', `/guides/${created.guideid}`, { token: writer.token });
    const latest = await getGuideRevision(created.guideid, now.body.revisionid);
    expect(latest?.steps.map((entry) => entry.title)).toEqual(['Edited step']);
    expect(await getGuideRevision(created.guideid, 999999999)).toBeUndefined();
  });

  it('createGuideRevision makes a new revision with the same content', async () => {
    const writer = await createUser({ privileges: ['Author'] });
    const guide = await addStep(writer.token, (await createGuide(writer.token)).guideid);
    const revisionid = await createGuideRevision(guide.guideid, 'quiz.attach');
    expect(revisionid).toBeGreaterThan(guide.revisionid);
    const after = await api('GET', `/guides/${guide.guideid}`, { token: writer.token });
    expect(after.body.revisionid).toBe(revisionid);
    expect({ ...after.body, revisionid: 0, guide_revisionid: 0, modified_date: 0 }).toEqual({
      ...guide,
      revisionid: 0,
      guide_revisionid: 0,
      modified_date: 0,
    });
    expect((await getGuideRevision(guide.guideid, revisionid))?.guide.reason).toBe('quiz.attach');
    // A client holding the old revisionid now gets 409.
    const stale = await api('PATCH', `/guides/${guide.guideid}`, {
      token: writer.token,
      query: { revisionid: guide.revisionid },
      body: { summary: 'x' },
    });
    expect(stale.status).toBe(409);
  });

  it('getStep finds a step by its id alone; latestRelease and listReleases follow the releases', async () => {
    const writer = await createUser({ privileges: ['Author'] });
    const guide = await addStep(writer.token, (await createGuide(writer.token)).guideid);
    expect(await getStep(guide.steps[0].stepid)).toMatchObject({
      guideid: guide.guideid,
      stepid: guide.steps[0].stepid,
    });
    expect(await getStep(999999999)).toBeUndefined();
    expect(await latestRelease('guide', guide.guideid)).toBeUndefined();
    for (const release_type of ['minor', 'major', 'minor']) {
      await api('POST', '/guides/releases', { token: writer.token, body: { guideid: guide.guideid, release_type } });
    }
    expect(await latestRelease('guide', guide.guideid)).toMatchObject({
      version: '1.1',
      major: 1,
      minor: 1,
      revisionid: guide.revisionid,
    });
    expect((await listReleases('guide', guide.guideid)).map((release) => release.version)).toEqual([
      '1.1',
      '1.0',
      '0.1',
    ]);
  });
});
