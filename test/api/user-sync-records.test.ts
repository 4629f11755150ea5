/**
 * POST /user/sync with the actions that make records of other areas (docs/offline.md): a
 * comment, a quiz's submitted answers, a trainee's signoff request. Each is made once by its
 * client_guid through the route's own code, so the journal and the route agree on it, and its
 * conflicts are reported per action.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, loginAdmin, type TestUser } from '../support/api.ts';
import { assignedTrainee, createTeam } from '../support/courses.ts';
import { addStep, createGuide, publish } from './guide-fixtures.ts';
import { ALL_RIGHT, ALL_WRONG, importQuiz } from './quiz-fixtures.ts';

const now = () => Math.floor(Date.now() / 1000);
const sync = (token: string, actions: unknown[]) => api('POST', '/user/sync', { token, body: { actions } });
const statuses = (answer: { body: { results: Array<{ status: string }> } }) =>
  answer.body.results.map((result) => result.status);

describe('comment.create', () => {
  let writer: TestUser;
  let guideid: number;
  beforeAll(async () => {
    writer = await createUser({ privileges: ['Author'] });
    const guide = await addStep(writer.token, (await createGuide(writer.token)).guideid);
    await publish(writer.token, guide);
    guideid = guide.guideid;
  });

  it('makes the comment once; the route with the same guid answers that comment (200)', async () => {
    const action = {
      client_guid: randomUUID(),
      type: 'comment.create',
      device_time: now() - 60,
      data: { context: 'guide', contextid: guideid, text: 'Torque spec looks off on step 1' },
    };
    const first = await sync(writer.token, [action]);
    expect(first.status).toBe(200);
    expect(first.body.results[0]).toMatchObject({ status: 'applied', http_status: 201 });
    const { commentid } = first.body.results[0];
    expect(commentid).toBeGreaterThan(0);
    const again = await sync(writer.token, [action, action]);
    expect(statuses(again)).toEqual(['already_applied', 'already_applied']);
    expect(again.body.results[0].commentid).toBe(commentid);

    const found = await api('GET', '/comments', { token: writer.token, query: { client_guid: action.client_guid } });
    expect(found.body.map((comment: { commentid: number }) => comment.commentid)).toEqual([commentid]);
    const route = await api('POST', `/comments/guide/${guideid}`, {
      token: writer.token,
      body: { text: action.data.text, client_guid: action.client_guid },
    });
    expect(route.status).toBe(200);
    expect(route.body.commentid).toBe(commentid);

    // The same guid for another comment: reported, nothing made.
    const reused = await sync(writer.token, [{ ...action, data: { ...action.data, text: 'Something else' } }]);
    expect(reused.body.results[0]).toMatchObject({ status: 'conflict', conflict: { reason: 'guid_reused' } });
  });

  it('reports a guide gone or out of reach, and bad data, per action; the journal goes on', async () => {
    const stranger = await createUser();
    const privateGuide = await createGuide(writer.token);
    const actions = [
      { context: 'guide', contextid: 99_999_999, text: 'gone' },
      { context: 'guide', contextid: privateGuide.guideid, text: 'not mine to see' },
      { context: 'guide', contextid: guideid, text: '' },
      { context: 'guide', text: 'no id' },
      { context: 'guide', contextid: guideid, text: 'fine' },
    ].map((data) => ({ client_guid: randomUUID(), type: 'comment.create', device_time: now(), data }));
    const answer = await sync(stranger.token, actions);
    expect(answer.body.results.map((result: { conflict?: { reason: string } }) => result.conflict?.reason)).toEqual([
      'not_found',
      'access_lost',
      'invalid',
      'invalid',
      undefined,
    ]);
    expect(answer.body.results[3].conflict.message).toContain('data.contextid');
    expect(answer.body.results[4].status).toBe('applied');
  });
});

describe('quiz.submit', () => {
  it('grades once: a resend neither counts a second attempt nor grades again', async () => {
    const user = await createUser();
    const { quizid, quiz_revisionid } = await importQuiz({ max_attempts: 3 });
    const action = {
      client_guid: randomUUID(),
      type: 'quiz.submit',
      device_time: now() - 120,
      revisionid: quiz_revisionid,
      data: { quizid, response_json: ALL_RIGHT },
    };
    const first = await sync(user.token, [action]);
    expect(first.body.results[0]).toMatchObject({ status: 'applied', http_status: 201 });
    const sessionid = first.body.results[0].quiz_sessionid;
    const again = await sync(user.token, [action]);
    expect(again.body.results[0]).toMatchObject({ status: 'already_applied', quiz_sessionid: sessionid });
    const submission = await api('GET', `/quizzes/submissions/${sessionid}`, { token: user.token });
    expect(submission.body).toMatchObject({ attempt: 1, passed: true });
    const sessions = await api('GET', '/quizzes/sessions', { token: user.token });
    expect(sessions.body.quizSessions).toHaveLength(1);
    const byGuid = await api('GET', '/quizzes/sessions', {
      token: user.token,
      query: { client_guid: action.client_guid },
    });
    expect(byGuid.body.quizSessions.map((session: { quiz_sessionid: number }) => session.quiz_sessionid)).toEqual([
      sessionid,
    ]);
  });

  it('a quiz locked meanwhile, or answered on another revision, is a conflict; nothing is graded', async () => {
    const user = await createUser();
    const { quizid, quiz_revisionid } = await importQuiz({ max_attempts: 1 });
    // Online, the last attempt was used while the device still held answers.
    const online = await api('POST', '/quizzes/sessions/submit', {
      token: user.token,
      body: { quizid, response_json: ALL_WRONG },
    });
    expect(online.status).toBe(200);
    const locked = {
      client_guid: randomUUID(),
      type: 'quiz.submit',
      device_time: now(),
      data: { quizid, response_json: ALL_RIGHT },
    };
    const other = await importQuiz({ max_attempts: 3 });
    const stale = {
      client_guid: randomUUID(),
      type: 'quiz.submit',
      device_time: now(),
      revisionid: other.quiz_revisionid + quiz_revisionid,
      data: { quizid: other.quizid, response_json: ALL_RIGHT },
    };
    const answer = await sync(user.token, [locked, stale]);
    expect(answer.body.results[0]).toMatchObject({
      status: 'conflict',
      http_status: 403,
      conflict: { reason: 'quiz_locked' },
    });
    expect(answer.body.results[1]).toMatchObject({
      status: 'conflict',
      conflict: { reason: 'new_release', current: { quiz_revisionid: other.quiz_revisionid } },
    });
    const sessions = await api('GET', '/quizzes/sessions', { token: user.token });
    expect(sessions.body.quizSessions).toHaveLength(1);
  });
});

describe('the same journal from two connections at once', () => {
  it('makes each record once', async () => {
    const writer = await createUser({ privileges: ['Author'] });
    const guide = await addStep(writer.token, (await createGuide(writer.token)).guideid);
    const { quizid } = await importQuiz();
    const actions = [
      {
        client_guid: randomUUID(),
        type: 'comment.create',
        device_time: now(),
        data: { context: 'guide', contextid: guide.guideid, text: 'Both connections carry me' },
      },
      {
        client_guid: randomUUID(),
        type: 'quiz.submit',
        device_time: now(),
        data: { quizid, response_json: ALL_RIGHT },
      },
    ];
    const answers = await Promise.all([sync(writer.token, actions), sync(writer.token, actions)]);
    for (const index of actions.keys()) {
      const seen = answers.map((answer) => answer.body.results[index].status).sort();
      expect(seen).toEqual(['already_applied', 'applied']);
      const ids = answers.map(
        (answer) => answer.body.results[index].commentid ?? answer.body.results[index].quiz_sessionid,
      );
      expect(ids[0]).toBe(ids[1]);
    }
    const sessions = await api('GET', '/quizzes/sessions', { token: writer.token });
    expect(sessions.body.quizSessions).toHaveLength(1);
  });
});

describe('signoff.request', () => {
  it("makes the trainee's request once; a request opened online meanwhile is state_changed", async () => {
    const signer = await createUser();
    const team = await createTeam({ owner: signer.userid });
    const { trainee, course } = await assignedTrainee({ assessment: { teamid: team.teamid } });
    const stage_assessmentid = course.stages[0].stage_assessmentid as number;
    const action = {
      client_guid: randomUUID(),
      type: 'signoff.request',
      device_time: now() - 30,
      data: { stage_assessmentid, comments: 'Done offline' },
    };
    const first = await sync(trainee.token, [action]);
    expect(first.body.results[0]).toMatchObject({ status: 'applied', http_status: 201 });
    const id = first.body.results[0].signoff_requestid;
    expect((await sync(trainee.token, [action])).body.results[0]).toMatchObject({
      status: 'already_applied',
      signoff_requestid: id,
    });
    const pending = await api('GET', `/stage-sign-offs/requests/pending/${signer.userid}`, { token: signer.token });
    expect(pending.body.filter((request: { userid: number }) => request.userid === trainee.userid)).toHaveLength(1);
    expect(pending.body.find((request: { userid: number }) => request.userid === trainee.userid).comments).toBe(
      'Done offline',
    );

    // Found by its guid, under both prefixes: by the trainee, and by userid for an Admin only.
    for (const prefix of ['', '/courses']) {
      const found = await api('GET', `${prefix}/stage-sign-offs/requests`, {
        token: trainee.token,
        query: { client_guid: action.client_guid },
      });
      expect(found.status).toBe(200);
      expect(found.body.map((request: { signoff_requestid: number }) => request.signoff_requestid)).toEqual([id]);
    }
    const byUser = { client_guid: action.client_guid, userid: trainee.userid };
    const admin = await loginAdmin();
    expect((await api('GET', '/stage-sign-offs/requests', { token: admin, query: byUser })).body).toHaveLength(1);
    const peeking = await api('GET', '/stage-sign-offs/requests', { token: signer.token, query: byUser });
    expect(peeking.status).toBe(403);
    const unknown = { client_guid: randomUUID() };
    expect((await api('GET', '/stage-sign-offs/requests', { token: trainee.token, query: unknown })).body).toEqual([]);
    expect((await api('GET', '/stage-sign-offs/requests', { token: trainee.token })).status).toBe(422);

    // Another device's request for the same stage: the open one is the record as it is.
    const second = { ...action, client_guid: randomUUID() };
    const [conflict] = (await sync(trainee.token, [second])).body.results;
    expect(conflict).toMatchObject({ status: 'conflict', conflict: { reason: 'state_changed' } });
    expect(conflict.conflict.current.signoff_requestid).toBe(id);

    // Someone not assigned to the course: access lost, nothing made.
    const outsider = await createUser();
    const [refused] = (await sync(outsider.token, [{ ...action, client_guid: randomUUID() }])).body.results;
    expect(refused).toMatchObject({ status: 'conflict', conflict: { reason: 'access_lost' } });
  });
});
