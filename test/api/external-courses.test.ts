/**
 * The external-courses API over HTTP (issue 28 §3): only an `external-courses` token reaches it;
 * the history holds completion events of disabled users and of documents no longer a stage.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, loginAdmin, site } from '../support/api.ts';
import { assignedTrainee, stageGuide } from '../support/courses.ts';

let admin: string;
let token: string;

beforeAll(async () => {
  admin = await loginAdmin();
  const minted = await api('POST', '/admin/api_tokens', {
    token: admin,
    body: { name: 'LMS mirror', scopes: ['external-courses', 'scim'] },
  });
  token = minted.body.token;
});

const bearer = () => ({ headers: { authorization: `Bearer ${token}` } });

describe('external courses', () => {
  it('health answers the scoped token only', async () => {
    const health = await api('GET', '/courses/external/health', bearer());
    expect(health.status).toBe(200);
    expect(health.body.status).toBe('ok');
    expect((await api('GET', '/courses/external/health', { token: admin })).status).toBe(403);
    const read = await api('POST', '/admin/api_tokens', { token: admin, body: { name: 'r', scopes: ['read-only'] } });
    expect((await api('GET', '/courses/external/health', { token: read.body.token })).status).toBe(403);
    expect((await api('GET', '/courses/external/health')).status).toBe(401);
  });

  it('pages the completion history, keeping a disabled trainee and a removed stage', async () => {
    const since = Math.floor(Date.now() / 1000) - 1;
    const { guide, course, trainee } = await assignedTrainee();
    const done = await api('PATCH', `/course_assignments/complete/guide/${guide.guideid}`, {
      token: trainee.token,
      body: {},
    });
    expect(done.status).toBe(200);
    const second = await assignedTrainee();
    await api('PATCH', `/course_assignments/complete/guide/${second.guide.guideid}`, {
      token: second.trainee.token,
      body: {},
    });
    // The trainee leaves the company; the stage leaves the course.
    const disabled = await site('DELETE', `/scim/v2/Users/${trainee.userid}`, bearer());
    expect(disabled.status).toBe(204);
    const replacement = await stageGuide();
    const replaced = await api('PATCH', `/courses/${course.wikiid}`, {
      token: admin,
      query: { revisionid: course.revisionid },
      body: { stages: [{ doctype: 'guide', docid: replacement.guideid }] },
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body.stages.map((stage: { docid: number }) => stage.docid)).toEqual([replacement.guideid]);

    const history = await api('GET', '/courses/external/course_stage_completions/history', {
      ...bearer(),
      query: { since, limit: 1000 },
    });
    expect(history.status).toBe(200);
    const mine = history.body.events.find((event: { userid: number }) => event.userid === trainee.userid);
    expect(mine).toMatchObject({
      event: 'completed',
      user_active: false,
      doctype: 'guide',
      docid: guide.guideid,
      actor_userid: trainee.userid,
    });
    expect(mine.end_date).toBeGreaterThanOrEqual(since);
    const theirs = history.body.events.filter((event: { userid: number }) => event.userid === second.trainee.userid);
    expect(theirs).toHaveLength(1);

    const first = await api('GET', '/courses/external/course_stage_completions/history', {
      ...bearer(),
      query: { since, limit: 1 },
    });
    expect(first.body).toMatchObject({ limit: 1, offset: 0, next_offset: 1 });
    expect(first.body.total).toBe(history.body.total);
    const next = await api('GET', '/courses/external/course_stage_completions/history', {
      ...bearer(),
      query: { since, limit: 1, offset: 1 },
    });
    expect(next.body.events[0].eventid).not.toBe(first.body.events[0].eventid);
    const later = await api('GET', '/courses/external/course_stage_completions/history', {
      ...bearer(),
      query: { since: Math.floor(Date.now() / 1000) + 3600 },
    });
    expect(later.body).toMatchObject({ events: [], total: 0, next_offset: null });
  });
});
