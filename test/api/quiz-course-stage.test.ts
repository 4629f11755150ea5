/**
 * A quiz attached to a guide that is a course stage drives the stage, end to end over HTTP:
 * import (pass threshold, 2 attempts) → attach to the guide → course → assignments; completing
 * the document leaves the stage started/incomplete_assessment, two failed attempts block it
 * (quiz_locked), a pass at the threshold completes it, and an Admin's invalidation of the
 * trainee's results makes the quiz required again (audited). Each step is checked both live
 * (GET /course_assignments/{id}) and in the stored row the quiz code refreshes (the trainee's
 * completion report), so a missed refreshDocumentProgress would show.
 */
import { describe, expect, it } from 'vitest';
import { api, createUser, type TestUser } from '../support/api.ts';
import { createGuide } from './guide-fixtures.ts';
import { ALL_RIGHT, ALL_WRONG, HALF_RIGHT, importQuiz } from './quiz-fixtures.ts';
import { assign, createCourse, entryOf, getAssignment } from '../support/courses.ts';

/** Three of the four graded questions right: 75 %, exactly the pass threshold below. */
const AT_THRESHOLD = { ...ALL_RIGHT, verify: false };

type Trainee = TestUser & { assignmentid: number };

async function stageOf(trainee: Trainee, admin: string) {
  const response = await getAssignment(trainee.assignmentid, admin);
  expect(response.status).toBe(200);
  const entry = entryOf(response.body, trainee.userid);
  // The legacy field always carries the rule's status.
  expect(entry.status).toBe(entry.stage_status.status);
  return entry.stage_status as { status: string; reason: string };
}

/** The trainee's stored row on the course (not recomputed on read) and their stored totals. */
async function storedRowOf(trainee: Trainee, admin: string) {
  const report = await api('GET', `/course_assignments/completion/user/${trainee.userid}`, { token: admin });
  expect(report.status).toBe(200);
  expect(report.body.courses).toHaveLength(1);
  const [row] = report.body.courses;
  expect(row.course_assignmentid).toBe(trainee.assignmentid);
  return { status: row.status_code, completed_stages: row.completed_stages, completed: report.body.progress.completed };
}

const save = (trainee: Trainee, quizid: number, response_json: unknown) =>
  api('POST', '/quizzes/sessions/save', { token: trainee.token, body: { quizid, response_json } });
const submit = (trainee: Trainee, quizid: number, response_json?: unknown) =>
  api('POST', '/quizzes/sessions/submit', { token: trainee.token, body: { quizid, response_json } });
const completeGuide = (trainee: Trainee, guideid: number) =>
  api('PATCH', `/course_assignments/complete/guide/${guideid}`, { token: trainee.token, body: {} });

describe('a guide quiz on a course stage', () => {
  it('incomplete_assessment until passed, quiz_locked after the attempts, required again after an invalidation', async () => {
    const adminUser = await createUser({ privileges: ['Admin'] });
    const admin = adminUser.token;
    const guide = await createGuide(admin);
    const quiz = await importQuiz({ pass_threshold: 75, max_attempts: 2 }, admin);
    expect(quiz).toMatchObject({ pass_threshold: 75, max_attempts: 2, enabled: true });
    const attached = await api('POST', '/quizzes/attach/guide', {
      token: admin,
      query: { revisionid: guide.revisionid },
      body: { quizid: quiz.quizid, guideid: guide.guideid },
    });
    expect(attached.status).toBe(201);
    expect(attached.body).toMatchObject({ quizid: quiz.quizid, doctype: 'guide', guideid: guide.guideid });

    const course = await createCourse({ stages: [{ doctype: 'guide', docid: guide.guideid }] }, admin);
    const enrol = async (): Promise<Trainee> => {
      const user = await createUser();
      const assignment = await assign({ wikiid: course.wikiid, userid: user.userid }, admin);
      return { ...user, assignmentid: assignment.course_assignmentid };
    };
    const failer = await enrol();
    const passer = await enrol();

    // Nothing done yet: the quiz alone does not move the stage.
    expect(await stageOf(failer, admin)).toEqual({ status: 'pending', reason: 'not_started' });

    // ---- the first trainee: document done, quiz not passed, then locked ----
    const completed = await completeGuide(failer, guide.guideid);
    expect(completed.status).toBe(200);
    expect(completed.body.stages).toEqual([
      expect.objectContaining({
        course_assignmentid: failer.assignmentid,
        stage_status: { status: 'started', reason: 'incomplete_assessment' },
      }),
    ]);
    expect(await stageOf(failer, admin)).toEqual({ status: 'started', reason: 'incomplete_assessment' });
    expect(await storedRowOf(failer, admin)).toEqual({ status: 'in_progress', completed_stages: 0, completed: 0 });

    expect((await save(failer, quiz.quizid, HALF_RIGHT)).status).toBe(201);
    expect(await stageOf(failer, admin)).toEqual({ status: 'started', reason: 'incomplete_assessment' });
    const first = await submit(failer, quiz.quizid);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      score: 50,
      passed: false,
      quiz_passed: false,
      attempts_used: 1,
      attempts_remaining: 1,
      locked: false,
    });
    expect(await stageOf(failer, admin)).toEqual({ status: 'started', reason: 'incomplete_assessment' });

    const second = await submit(failer, quiz.quizid, ALL_WRONG);
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({
      score: 0,
      passed: false,
      attempts_used: 2,
      attempts_remaining: 0,
      locked: true,
    });
    expect(await stageOf(failer, admin)).toEqual({ status: 'blocked', reason: 'quiz_locked' });
    expect(await storedRowOf(failer, admin)).toEqual({ status: 'in_progress', completed_stages: 0, completed: 0 });
    // Locked: no third attempt, and redoing the document does not get round the quiz.
    expect((await submit(failer, quiz.quizid, ALL_RIGHT)).status).toBe(403);
    expect((await save(failer, quiz.quizid, ALL_RIGHT)).status).toBe(403);
    expect((await completeGuide(failer, guide.guideid)).status).toBe(200);
    expect(await stageOf(failer, admin)).toEqual({ status: 'blocked', reason: 'quiz_locked' });

    // ---- the second trainee: a pass at exactly the threshold completes the stage ----
    expect((await completeGuide(passer, guide.guideid)).status).toBe(200);
    expect(await stageOf(passer, admin)).toEqual({ status: 'started', reason: 'incomplete_assessment' });
    const pass = await submit(passer, quiz.quizid, AT_THRESHOLD);
    expect(pass.status).toBe(200);
    expect(pass.body).toMatchObject({ score: 75, passed: true, quiz_passed: true, attempts_used: 1, locked: false });
    expect(await stageOf(passer, admin)).toEqual({ status: 'completed', reason: 'completed' });
    expect(await storedRowOf(passer, admin)).toEqual({ status: 'completed', completed_stages: 1, completed: 1 });
    // One trainee's results are theirs: the other stays locked.
    expect(await stageOf(failer, admin)).toEqual({ status: 'blocked', reason: 'quiz_locked' });

    // ---- an Admin invalidates the passing trainee's results ----
    const path = `/quizzes/sessions/userInvalidateAll/${passer.userid}`;
    expect((await api('PATCH', path, { token: failer.token, body: {} })).status).toBe(403);
    const invalidated = await api('PATCH', path, { token: admin, body: {} });
    expect(invalidated.status).toBe(200);
    expect(invalidated.body).toEqual({
      userid: passer.userid,
      quizids: [quiz.quizid],
      quiz_sessionids: [pass.body.quiz_sessionid],
      documents: [{ doctype: 'guide', docid: guide.guideid }],
    });
    // The document stays done; the quiz is required again.
    expect(await stageOf(passer, admin)).toEqual({ status: 'started', reason: 'incomplete_assessment' });
    expect(await storedRowOf(passer, admin)).toEqual({ status: 'in_progress', completed_stages: 0, completed: 0 });
    expect(await stageOf(failer, admin)).toEqual({ status: 'blocked', reason: 'quiz_locked' });
    const sessions = await api('GET', '/quizzes/sessions', { token: passer.token });
    expect(sessions.body.quizSessions).toEqual([
      expect.objectContaining({
        quiz_sessionid: pass.body.quiz_sessionid,
        submitted: 1,
        invalidated: 1,
        passed: true,
      }),
    ]);

    const history = await api('GET', `/audit/users/${passer.userid}`, { token: admin, query: { limit: 200 } });
    expect(history.status).toBe(200);
    const records = history.body.records.filter(
      (record: { action: string }) => record.action === 'quiz.results_invalidated',
    );
    expect(records).toEqual([
      expect.objectContaining({
        subject: `USER#${passer.userid}`,
        actor_userid: adminUser.userid,
        impersonator_userid: null,
        details: { quizids: [quiz.quizid], documents: 'all' },
      }),
    ]);
    const verified = await api('GET', `/audit/users/${passer.userid}/verify`, { token: admin });
    expect(verified.body).toMatchObject({ valid: true, first_broken_seq: null });

    // Passing again (attempts start over) completes the stage without redoing the document.
    const retake = await submit(passer, quiz.quizid, ALL_RIGHT);
    expect(retake.body).toMatchObject({ passed: true, attempts_used: 1, attempts_remaining: 1 });
    expect(await stageOf(passer, admin)).toEqual({ status: 'completed', reason: 'completed' });
    expect(await storedRowOf(passer, admin)).toEqual({ status: 'completed', completed_stages: 1, completed: 1 });

    // Invalidating the locked trainee for this guide unlocks the quiz: the assessment is open again.
    const unlocked = await api('PATCH', `/quizzes/sessions/userInvalidateAll/${failer.userid}`, {
      token: admin,
      body: { documents: [{ doctype: 'guide', docid: guide.guideid }] },
    });
    expect(unlocked.body).toMatchObject({
      quizids: [quiz.quizid],
      quiz_sessionids: expect.arrayContaining([first.body.quiz_sessionid, second.body.quiz_sessionid]),
    });
    expect(await stageOf(failer, admin)).toEqual({ status: 'started', reason: 'incomplete_assessment' });
    expect((await submit(failer, quiz.quizid, ALL_RIGHT)).body).toMatchObject({ passed: true });
    expect(await stageOf(failer, admin)).toEqual({ status: 'completed', reason: 'completed' });
    expect(await storedRowOf(failer, admin)).toEqual({ status: 'completed', completed_stages: 1, completed: 1 });
  });
});
