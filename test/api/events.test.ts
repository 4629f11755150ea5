/**
 * The catalogue over HTTP: each change emits its event (seen by a webhook receiver), and the
 * time-driven events are emitted once however often the state is observed (counted in the
 * outbox itself, which the request writes synchronously).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { api, createUser, loginAdmin, uniqueSuffix } from '../support/api.ts';
import { ageRow, assignedTrainee } from '../support/courses.ts';
import { attach, createCategory, createGuide, createProcess, createTeam } from '../support/compliance.ts';
import { createWiki } from '../support/wikis.ts';
import { startReceiver, type Receiver } from '../support/webhook-receiver.ts';
import { importPackage } from '../support/modules.ts';
import { scorm12Package } from '../support/module-packages.ts';
import { ALL_RIGHT, importQuiz } from './quiz-fixtures.ts';
import { localDb } from '../support/local-db.ts';

let admin: string;
let hook: Receiver;
let webhookid: number;

beforeAll(async () => {
  admin = await loginAdmin();
  hook = await startReceiver();
  const created = await api('POST', '/webhooks', {
    token: admin,
    body: {
      url: hook.url,
      events: [
        'course_assignment.created',
        'course_stage.completed',
        'course_assignment.completed',
        'course_stage.invalidated',
        'course_assignment.overdue',
        'approval.requested',
        'approval.signed',
        'approval.approved',
        'periodic_review.due',
        'wiki.released',
        'work_log.finished',
        'quiz_session.submitted',
        'module_import.finished',
        'module_import.failed',
      ],
    },
  });
  expect(created.status).toBe(201);
  webhookid = created.body.webhookid;
});

afterAll(async () => {
  await api('DELETE', `/webhooks/${webhookid}`, { token: admin });
  await hook.close();
});

/** The received events (name and data) matching, once all `names` are there. */
async function eventsWhere(match: (data: any) => boolean, names: string[]) {
  const received = await hook.waitFor((all) =>
    names.every((name) =>
      all.some((delivery) => delivery.headers['x-stepwise-event'] === name && match(delivery.json.data)),
    ),
  );
  return received
    .filter((delivery) => match(delivery.json.data))
    .map((delivery) => ({ name: String(delivery.headers['x-stepwise-event']), data: delivery.json.data }));
}

/** Events of one entity in the outbox, by name. */
async function outboxEvents(entity: string, name: string): Promise<number> {
  const result = await localDb().send(
    new QueryCommand({
      TableName: 'stepwise',
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': `OUTBOX#${entity}` },
    }),
  );
  return (result.Items ?? []).filter((item) => item.name === name).length;
}

describe('training events', () => {
  it('assignment created, stage and assignment completed, stage invalidated', async () => {
    const { guide, course, trainee, assignment } = await assignedTrainee();
    expect(
      (await api('PATCH', `/course_assignments/complete/guide/${guide.guideid}`, { token: trainee.token, body: {} }))
        .status,
    ).toBe(200);
    expect(
      (
        await api('PATCH', `/course_assignments/invalidate/guide/${guide.guideid}/${trainee.userid}`, {
          token: admin,
          body: {},
        })
      ).status,
    ).toBe(200);
    const events = await eventsWhere(
      (data) => data.userid === trainee.userid,
      [
        'course_assignment.created',
        'course_stage.completed',
        'course_assignment.completed',
        'course_stage.invalidated',
      ],
    );
    expect(events.find((event) => event.name === 'course_assignment.created')!.data).toMatchObject({
      course_assignmentid: assignment.course_assignmentid,
      wikiid: course.wikiid,
      teamid: null,
    });
    expect(events.find((event) => event.name === 'course_assignment.completed')!.data).toMatchObject({
      course_assignmentid: assignment.course_assignmentid,
      course_completion_date: expect.any(Number),
    });
    expect(events.find((event) => event.name === 'course_stage.invalidated')!.data).toMatchObject({
      docid: guide.guideid,
      wikiid: course.wikiid,
      invalidated_by: 1,
    });
    // Per-entity order: the completion's events arrive as they happened.
    const ofCompletion = events.filter((event) => event.name.startsWith('course_stage.')).map((event) => event.name);
    expect(ofCompletion).toEqual(['course_stage.completed', 'course_stage.invalidated']);
  });

  it('course_assignment.overdue is emitted once, when a report first sees the row past its due date', async () => {
    const { trainee, assignment } = await assignedTrainee({}, { due_within: 3600 });
    await ageRow(assignment.course_assignmentid, trainee.userid, 7200);
    const entity = `ASSIGNMENT#${assignment.course_assignmentid}#USER#${trainee.userid}`;
    expect(await outboxEvents(entity, 'course_assignment.overdue')).toBe(0);
    for (let read = 0; read < 3; read++)
      expect((await api('GET', `/course_assignments/completion/user/${trainee.userid}`, { token: admin })).status).toBe(
        200,
      );
    expect(await outboxEvents(entity, 'course_assignment.overdue')).toBe(1);
    const events = await eventsWhere(
      (data) => data.userid === trainee.userid && data.course_assignmentid === assignment.course_assignmentid,
      ['course_assignment.overdue'],
    );
    const overdue = events.find((event) => event.name === 'course_assignment.overdue')!;
    expect(overdue.data.due_date).toBeLessThan(Math.floor(Date.now() / 1000));
  });
});

describe('compliance and content events', () => {
  it('approval requested, signed and approved', async () => {
    const [author, approver] = await Promise.all([createUser({ privileges: ['Author'] }), createUser()]);
    const teamid = await createTeam(approver, []);
    const process = await createProcess([{ teamid, quorum: 1 }]);
    const category = await createCategory();
    await attach(category.wikiid, process.approval_processid);
    const guide = await createGuide(author.token, category.title);
    const requested = await api('POST', '/approvals/requests', {
      token: author.token,
      query: { revisionid: guide.revisionid },
      body: { doctype: 'guide', docid: guide.guideid },
    });
    expect(requested.status).toBe(201);
    const id = requested.body.approval_requestid;
    const signed = await api('POST', `/approvals/request/sign/${id}`, {
      token: approver.token,
      body: { meaning: 'approve', reason: 'Checked', password: approver.password },
    });
    expect(signed.status).toBeLessThan(300);
    const events = await eventsWhere(
      (data) => data.approval_requestid === id,
      ['approval.requested', 'approval.signed', 'approval.approved'],
    );
    expect(events.map((event) => event.name)).toEqual(['approval.requested', 'approval.signed', 'approval.approved']);
    expect(events[1].data).toMatchObject({
      userid: approver.userid,
      decision: 'approve',
      doctype: 'guide',
      docid: guide.guideid,
    });
  });

  it('periodic_review.due is emitted once for a document listed past its due date', async () => {
    const reviewer = await createUser();
    const schedule = await api('POST', '/periodic_review', {
      token: admin,
      body: {
        name: `Review ${uniqueSuffix()}`,
        frequency_quantity: 12,
        frequency_unit: 'month',
        reviewer_userid: reviewer.userid,
      },
    });
    expect(schedule.status).toBe(201);
    const category = await createCategory();
    const guide = await createGuide(admin, category.title);
    const due = Math.floor(Date.now() / 1000) - 86400;
    expect(
      (
        await api('POST', '/periodic_review/documents', {
          token: admin,
          body: { prsid: schedule.body.prsid, documents: [{ doctype: 'guide', docid: guide.guideid, due_date: due }] },
        })
      ).status,
    ).toBe(201);
    for (let read = 0; read < 2; read++)
      expect(
        (await api('GET', `/periodic_review/documents/${reviewer.userid}`, { token: reviewer.token })).status,
      ).toBe(200);
    expect((await api('GET', `/periodic_review/${schedule.body.prsid}`, { token: admin })).status).toBe(200);
    expect(await outboxEvents(`DOCUMENT#guide#${guide.guideid}`, 'periodic_review.due')).toBe(1);
    const [event] = await eventsWhere(
      (data) => data.docid === guide.guideid && data.due_date === due,
      ['periodic_review.due'],
    );
    expect(event.data).toMatchObject({ doctype: 'guide', reviewer_userid: reviewer.userid });
  });

  it('wiki.released', async () => {
    const wiki = await createWiki();
    const released = await api('POST', `/wikis/${wiki.wikiid}/releases`, {
      token: admin,
      body: { release_type: 'major' },
    });
    expect(released.status).toBe(201);
    const [event] = await eventsWhere((data) => data.wikiid === wiki.wikiid, ['wiki.released']);
    expect(event.data).toMatchObject({ releaseid: released.body.releaseid, version: released.body.version });
  });

  it('work_log.finished and quiz_session.submitted', async () => {
    const category = await createCategory();
    const guide = await createGuide(admin, category.title);
    const started = await api('POST', '/work_log', {
      token: admin,
      body: { guideid: guide.guideid, workorderid: `WO-${uniqueSuffix()}` },
    });
    expect(started.status).toBe(201);
    expect((await api('POST', `/work_log/${started.body.entryid}/finish`, { token: admin })).status).toBe(200);
    const [finished] = await eventsWhere(
      (data) => data.work_log_entryid === started.body.entryid,
      ['work_log.finished'],
    );
    expect(finished.data).toMatchObject({ guideid: guide.guideid, userid: 1, end_date: expect.any(Number) });

    const { quizid } = await importQuiz();
    const user = await createUser();
    const submitted = await api('POST', '/quizzes/sessions/submit', {
      token: user.token,
      body: { quizid, response_json: ALL_RIGHT },
    });
    expect(submitted.status).toBeLessThan(300);
    const [quiz] = await eventsWhere(
      (data) => data.quizid === quizid && data.userid === user.userid,
      ['quiz_session.submitted'],
    );
    expect(quiz.data).toMatchObject({
      quiz_sessionid: submitted.body.quiz_sessionid,
      attempt: 1,
      score: 100,
      passed: true,
    });
  });

  it('module_import.finished and module_import.failed', async () => {
    const good = await importPackage(admin, await scorm12Package(`Events ${uniqueSuffix()}`));
    expect(good.result.status).toBe('complete');
    const bad = await importPackage(admin, Buffer.from('just text, no zip at all'));
    expect(bad.result.status).toBe('failed');
    const [finished] = await eventsWhere((data) => data.importid === good.importid, ['module_import.finished']);
    expect(finished.data).toMatchObject({
      moduleid: good.moduleid,
      provider_version_number: good.provider_version_number,
      userid: 1,
    });
    const [failed] = await eventsWhere((data) => data.importid === bad.importid, ['module_import.failed']);
    expect(failed.data).toMatchObject({ moduleid: bad.moduleid, code: expect.any(String), error: expect.any(String) });
  });
});
