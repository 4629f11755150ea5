/**
 * The external-courses API over HTTP (issue 28 §3): only an `external-courses` token reaches it;
 * the history holds completion events of disabled users and of documents no longer a stage.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { reloadConfig } from '../../shared/config.ts';
import { db, tableName } from '../../shared/db/client.ts';
import { auditSubject, readAuditChain } from '../../shared/db/audit.ts';
import { padId } from '../../shared/db/keys.ts';
import { backfillStageCompletionListing } from '../../infra/ops/backfill/stage-completion-listing.ts';
import { api, loginAdmin, site } from '../support/api.ts';
import { assignedTrainee, stageGuide } from '../support/courses.ts';

let admin: string;
let token: string;

beforeAll(async () => {
  process.env.DDB_ENDPOINT = inject('ddbEndpoint');
  process.env.AWS_ACCESS_KEY_ID ??= 'test';
  process.env.AWS_SECRET_ACCESS_KEY ??= 'test';
  reloadConfig();
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

  it('until bounds the range; events recorded before the listing come back with the backfill', async () => {
    const since = Math.floor(Date.now() / 1000) - 1;
    const { guide, trainee } = await assignedTrainee();
    const done = await api('PATCH', `/course_assignments/complete/guide/${guide.guideid}`, {
      token: trainee.token,
      body: {},
    });
    expect(done.status).toBe(200);
    const read = (query: Record<string, number>) =>
      api('GET', '/courses/external/course_stage_completions/history', {
        ...bearer(),
        query: { limit: 1000, ...query },
      });
    const mineIn = (body: { events: Array<{ userid: number; eventid: string }> }) =>
      body.events.filter((event) => event.userid === trainee.userid).map((event) => event.eventid);
    const listed = mineIn((await read({ since })).body);
    expect(listed).toHaveLength(1);
    expect(mineIn((await read({ since, until: since })).body)).toEqual([]);
    expect(mineIn((await read({ since: since - 3600, until: since + 3600 })).body)).toEqual(listed);

    // As a record written before decision 243 was: in the chain, without the listing's keys.
    const chain = await readAuditChain(auditSubject.user(trainee.userid));
    const record = chain.find((entry) => entry.action === 'training.completed')!;
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: { pk: `AUDIT#${record.subject}`, sk: `SEQ#${padId(record.seq)}` },
        UpdateExpression: 'REMOVE gsi2pk, gsi2sk',
      }),
    );
    expect(mineIn((await read({ since })).body)).toEqual([]);
    const totals = await backfillStageCompletionListing();
    expect(totals.listed).toBeGreaterThanOrEqual(1);
    expect(mineIn((await read({ since })).body)).toEqual(listed);
    // The chain is untouched: the audit route still verifies it.
    const audit = await api('GET', `/audit/users/${trainee.userid}`, { token: admin });
    expect(audit.status).toBe(200);
    expect(audit.body.records.map((entry: { hash: string }) => entry.hash)).toEqual(chain.map((entry) => entry.hash));
  });
});
