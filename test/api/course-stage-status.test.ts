/**
 * Lifecycle over HTTP: every {status, reason} the stage rule can produce (STAGE_STATE_PAIRS),
 * each reached through the API — starts, completions, manager overrides and invalidations,
 * releases (POST /guides/releases), quizzes, signoffs — and recurrence by moving a stored
 * completion into the past. The legacy `status` always equals `stage_status.status`.
 */
import { describe, expect, it } from 'vitest';
import { STAGE_STATE_PAIRS } from '../../shared/domain/stage-status.ts';
import { api, createUser, loginAdmin } from '../support/api.ts';
import { createWiki } from '../support/wikis.ts';
import { ALL_RIGHT, ALL_WRONG, importQuiz } from './quiz-fixtures.ts';
import {
  ageCompletion,
  assign,
  assignedTrainee,
  createCourse,
  createTeam,
  entryOf,
  getAssignment,
  releaseGuide,
} from '../support/courses.ts';

const seen = new Set<string>();

/** The trainee's stage state as GET /course_assignments/{id} shows it (recorded for the coverage check). */
async function stateOf(assignmentid: number, userid: number, index = 0) {
  const response = await getAssignment(assignmentid);
  expect(response.status).toBe(200);
  const entry = entryOf(response.body, userid, index);
  expect(entry.status).toBe(entry.stage_status.status);
  seen.add(`${entry.stage_status.status}/${entry.stage_status.reason}`);
  return entry.stage_status as { status: string; reason: string };
}

const complete = (token: string, doctype: string, docid: number, body: Record<string, unknown> = {}) =>
  api('PATCH', `/course_assignments/complete/${doctype}/${docid}`, { token, body });
const start = (token: string, doctype: string, docid: number) =>
  api('PATCH', `/course_assignments/start/${doctype}/${docid}`, { token });

describe('documents: pending → started → completed', () => {
  it('pending/not_started, started/doc_in_progress, completed/completed', async () => {
    const { guide, trainee, assignment } = await assignedTrainee();
    const id = assignment.course_assignmentid;
    expect(await stateOf(id, trainee.userid)).toEqual({ status: 'pending', reason: 'not_started' });
    const started = await start(trainee.token, 'guide', guide.guideid);
    expect(started.status).toBe(200);
    expect(started.body.stages[0].stage_status).toEqual({ status: 'started', reason: 'doc_in_progress' });
    expect(started.body.last_completion.end_date).toBeNull();
    expect(await stateOf(id, trainee.userid)).toEqual({ status: 'started', reason: 'doc_in_progress' });
    // Starting again while in progress keeps the same attempt.
    const again = await start(trainee.token, 'guide', guide.guideid);
    expect(again.body.last_completion.course_assignment_stage_completionid).toBe(
      started.body.last_completion.course_assignment_stage_completionid,
    );
    const done = await complete(trainee.token, 'guide', guide.guideid, { work_log_entryid: 77 });
    expect(done.status).toBe(200);
    expect(done.body.last_completion).toMatchObject({
      course_assignment_stage_completionid: started.body.last_completion.course_assignment_stage_completionid,
      work_log_entryid: 77,
    });
    expect(await stateOf(id, trainee.userid)).toEqual({ status: 'completed', reason: 'completed' });
  });

  it('404 for an unknown document or doctype; 422 when no assignment of the caller has a stage on it', async () => {
    const user = await createUser();
    const { guide } = await assignedTrainee();
    expect((await start(user.token, 'guide', 99999999)).status).toBe(404);
    expect((await start(user.token, 'recipe', guide.guideid)).status).toBe(404);
    const notMine = await start(user.token, 'guide', guide.guideid);
    expect(notMine.status).toBe(422);
    expect(notMine.body.errors[0]).toMatchObject({ field: 'docid', code: 'not_assigned' });
    expect((await api('PATCH', `/course_assignments/start/guide/${guide.guideid}`)).status).toBe(401);
  });
});

describe('managers: override and invalidation', () => {
  it('completed/manager_override with manager_override_userid; invalidated/manager_override; restart after it', async () => {
    const owner = await createUser();
    const trainee = await createUser();
    const stranger = await createUser();
    await createTeam({ owner: owner.userid, members: [trainee.userid] });
    const { guide, course } = await assignedTrainee();
    const assignment = await assign({ wikiid: course.wikiid, userid: trainee.userid });
    const id = assignment.course_assignmentid;
    // Only a manager completes on someone's behalf.
    expect((await complete(stranger.token, 'guide', guide.guideid, { userid: trainee.userid })).status).toBe(403);
    const override = await complete(owner.token, 'guide', guide.guideid, { userid: trainee.userid });
    expect(override.status).toBe(200);
    expect(override.body.last_completion.manager_override_userid).toBe(owner.userid);
    expect(await stateOf(id, trainee.userid)).toEqual({ status: 'completed', reason: 'manager_override' });
    const entry = entryOf((await getAssignment(id)).body, trainee.userid);
    expect(entry.manager_override_userid).toBe(owner.userid);
    expect(entry.last_completion.manager_override_userid).toBe(owner.userid);

    expect(
      (
        await api('PATCH', `/course_assignments/invalidate/guide/${guide.guideid}/${trainee.userid}`, {
          token: stranger.token,
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await api('PATCH', `/course_assignments/invalidate/guide/${guide.guideid}/${trainee.userid}`, {
          token: trainee.token,
        })
      ).status,
    ).toBe(403);
    const invalidated = await api('PATCH', `/course_assignments/invalidate/guide/${guide.guideid}/${trainee.userid}`, {
      token: owner.token,
    });
    expect(invalidated.status).toBe(200);
    expect(await stateOf(id, trainee.userid)).toEqual({ status: 'invalidated', reason: 'manager_override' });
    const twice = await api('PATCH', `/course_assignments/invalidate/guide/${guide.guideid}/${trainee.userid}`, {
      token: owner.token,
    });
    expect(twice.status).toBe(422);
    expect(
      (await api('PATCH', `/course_assignments/invalidate/guide/${guide.guideid}/99999999`, { token: owner.token }))
        .status,
    ).toBe(404);
    // Starting again after an invalidation is a new attempt.
    const restarted = await start(trainee.token, 'guide', guide.guideid);
    expect(restarted.body.last_completion.course_assignment_stage_completionid).not.toBe(
      override.body.last_completion.course_assignment_stage_completionid,
    );
    expect(await stateOf(id, trainee.userid)).toEqual({ status: 'started', reason: 'doc_in_progress' });
  });
});

describe('releases (strictness)', () => {
  it('major strictness: a minor release keeps the completion, a major one invalidates it (newer_release); redoing completes it', async () => {
    const { guide, trainee, assignment } = await assignedTrainee({ strictness: 'major' });
    const id = assignment.course_assignmentid;
    await releaseGuide(guide.guideid, 'major');
    await complete(trainee.token, 'guide', guide.guideid);
    expect(await stateOf(id, trainee.userid)).toEqual({ status: 'completed', reason: 'completed' });
    await releaseGuide(guide.guideid, 'minor');
    expect(await stateOf(id, trainee.userid)).toEqual({ status: 'completed', reason: 'completed' });
    await releaseGuide(guide.guideid, 'major');
    expect(await stateOf(id, trainee.userid)).toEqual({ status: 'invalidated', reason: 'newer_release' });
    // The stored row followed the release (the release hook refreshed it).
    const report = await api('GET', `/course_assignments/completion/user/${trainee.userid}`, {
      token: await loginAdmin(),
    });
    expect(report.body.courses[0]).toMatchObject({ status: 'In Progress', completed_stages: 0 });
    await complete(trainee.token, 'guide', guide.guideid);
    expect(await stateOf(id, trainee.userid)).toEqual({ status: 'completed', reason: 'completed' });
  });

  it('minor strictness: any newer release invalidates; no strictness: releases never do', async () => {
    const strict = await assignedTrainee({ strictness: 'minor' });
    await complete(strict.trainee.token, 'guide', strict.guide.guideid);
    await releaseGuide(strict.guide.guideid, 'minor');
    expect(await stateOf(strict.assignment.course_assignmentid, strict.trainee.userid)).toEqual({
      status: 'invalidated',
      reason: 'newer_release',
    });
    const lax = await assignedTrainee({ strictness: null });
    await complete(lax.trainee.token, 'guide', lax.guide.guideid);
    await releaseGuide(lax.guide.guideid, 'major');
    expect(await stateOf(lax.assignment.course_assignmentid, lax.trainee.userid)).toEqual({
      status: 'completed',
      reason: 'completed',
    });
  });
});

describe('recurrence', () => {
  it('a completion older than the frequency is expired/recurrence_expired; completing again renews it', async () => {
    const { guide, trainee, assignment } = await assignedTrainee({ frequency_quantity: 1, frequency_unit: 'week' });
    const id = assignment.course_assignmentid;
    await complete(trainee.token, 'guide', guide.guideid);
    await ageCompletion(trainee.userid, 'guide', guide.guideid, 6 * 86400);
    expect(await stateOf(id, trainee.userid)).toEqual({ status: 'completed', reason: 'completed' });
    await ageCompletion(trainee.userid, 'guide', guide.guideid, 2 * 86400);
    expect(await stateOf(id, trainee.userid)).toEqual({ status: 'expired', reason: 'recurrence_expired' });
    await complete(trainee.token, 'guide', guide.guideid);
    expect(await stateOf(id, trainee.userid)).toEqual({ status: 'completed', reason: 'completed' });
  });
});

describe('quizzes', () => {
  it('a required quiz: started/incomplete_assessment until passed; locked attempts block (quiz_locked), even before starting', async () => {
    const admin = await loginAdmin();
    const page = await createWiki();
    const quiz = await importQuiz({ max_attempts: 1 });
    expect(
      (
        await api('POST', '/quizzes/attach/wiki', {
          token: admin,
          body: { quizid: quiz.quizid, wikiid: page.wikiid },
        })
      ).status,
    ).toBe(201);
    const course = await createCourse({ stages: [{ doctype: 'wiki', docid: page.wikiid }] });
    const passer = await createUser();
    const locked = await createUser();
    const forPasser = await assign({ wikiid: course.wikiid, userid: passer.userid });
    const forLocked = await assign({ wikiid: course.wikiid, userid: locked.userid });

    await complete(passer.token, 'wiki', page.wikiid);
    expect(await stateOf(forPasser.course_assignmentid, passer.userid)).toEqual({
      status: 'started',
      reason: 'incomplete_assessment',
    });
    expect(
      (
        await api('POST', '/quizzes/sessions/submit', {
          token: passer.token,
          body: { quizid: quiz.quizid, response_json: ALL_RIGHT },
        })
      ).status,
    ).toBe(200);
    expect(await stateOf(forPasser.course_assignmentid, passer.userid)).toEqual({
      status: 'completed',
      reason: 'completed',
    });

    expect(
      (
        await api('POST', '/quizzes/sessions/submit', {
          token: locked.token,
          body: { quizid: quiz.quizid, response_json: ALL_WRONG },
        })
      ).status,
    ).toBe(200);
    expect(await stateOf(forLocked.course_assignmentid, locked.userid)).toEqual({
      status: 'blocked',
      reason: 'quiz_locked',
    });
    await complete(locked.token, 'wiki', page.wikiid);
    expect(await stateOf(forLocked.course_assignmentid, locked.userid)).toEqual({
      status: 'blocked',
      reason: 'quiz_locked',
    });
  });
});

describe('signoffs', () => {
  it('started/incomplete_assessment → blocked/requested_signoff (requested, then answered) → completed/signoff_approved on acknowledge', async () => {
    const signer = await createUser();
    const team = await createTeam({ members: [signer.userid] });
    const { guide, trainee, assignment, course } = await assignedTrainee({ assessment: { teamid: team.teamid } });
    const id = assignment.course_assignmentid;
    await complete(trainee.token, 'guide', guide.guideid);
    expect(await stateOf(id, trainee.userid)).toEqual({ status: 'started', reason: 'incomplete_assessment' });
    const requested = await api('POST', '/stage-sign-offs/requests', {
      token: trainee.token,
      body: { stage_assessmentid: course.stages[0].stage_assessmentid },
    });
    expect(requested.status).toBe(201);
    expect(await stateOf(id, trainee.userid)).toEqual({ status: 'blocked', reason: 'requested_signoff' });
    const answered = await api('PATCH', '/stage-sign-offs/responses', {
      token: signer.token,
      body: { signoff_requestid: requested.body.signoff_requestid, approved: true },
    });
    expect(answered.status).toBe(200);
    expect(await stateOf(id, trainee.userid)).toEqual({ status: 'blocked', reason: 'requested_signoff' });
    const acknowledged = await api(
      'PATCH',
      `/stage-sign-offs/responses/${requested.body.signoff_requestid}/acknowledge`,
      { token: trainee.token },
    );
    expect(acknowledged.status).toBe(200);
    expect(await stateOf(id, trainee.userid)).toEqual({ status: 'completed', reason: 'signoff_approved' });
  });
});

it('every pair the stage rule can produce was reached over HTTP', () => {
  const expected = STAGE_STATE_PAIRS.map((pair) => `${pair.status}/${pair.reason}`).sort();
  expect([...seen].sort()).toEqual(expected);
});
