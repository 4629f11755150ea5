/** Quiz sessions: save, submit (grading, attempts, lock), cancel, results, visibility, bulk cancel, invalidation. */
import { describe, expect, it } from 'vitest';
import {
  api,
  createUser,
  loginAdmin,
  uniqueSuffix,
  type TestUser,
  createTeam as createTeamWith,
} from '../support/api.ts';
import { createWiki } from '../support/wikis.ts';
import { ALL_RIGHT, ALL_WRONG, HALF_RIGHT, importQuiz, safetyQuiz } from './quiz-fixtures.ts';

const createTeam = (owner: TestUser, members: TestUser[]) =>
  createTeamWith({ owner: owner.userid, members: members.map((m) => m.userid) });

/** A fresh login: the token's caller carries the teams joined since the last one. */
async function relogin(user: TestUser): Promise<TestUser> {
  const login = await api('POST', '/user/token', { body: { email: user.email, password: user.password } });
  return { ...user, token: login.body.authToken };
}

const save = (user: TestUser, quizid: number, response_json?: unknown) =>
  api('POST', '/quizzes/sessions/save', { token: user.token, body: { quizid, response_json } });
const submit = (user: TestUser, quizid: number, response_json?: unknown) =>
  api('POST', '/quizzes/sessions/submit', { token: user.token, body: { quizid, response_json } });
const sessionIds = (response: { body: { quizSessions: Array<{ quiz_sessionid: number }> } }) =>
  response.body.quizSessions.map((session) => session.quiz_sessionid);

describe('POST /quizzes/sessions/save', () => {
  it('creates the session (201), then updates its response_json (200)', async () => {
    const { quizid, quiz_revisionid } = await importQuiz();
    const user = await createUser();
    const created = await save(user, quizid, { first_step: 'Test' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      quizid,
      quiz_revisionid,
      userid: user.userid,
      submitted: 0,
      cancelled: 0,
      end_date: null,
      response_json: { first_step: 'Test' },
    });
    const updated = await save(user, quizid, JSON.stringify({ first_step: 'Notify' }));
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      quiz_sessionid: created.body.quiz_sessionid,
      response_json: { first_step: 'Notify' },
    });
  });

  it('refuses a response that is not an object (422), an unknown quiz (404), a disabled quiz (403)', async () => {
    const { quizid } = await importQuiz();
    const user = await createUser();
    expect((await save(user, quizid, [1, 2])).status).toBe(422);
    expect((await save(user, quizid, '{oops')).status).toBe(422);
    expect((await save(user, 999999999, {})).status).toBe(404);
    const disabled = await importQuiz({ enabled: false });
    expect((await save(user, disabled.quizid, {})).status).toBe(403);
  });

  it('concurrent saves of one user and quiz open exactly one session', async () => {
    const { quizid } = await importQuiz();
    const user = await createUser();
    const responses = await Promise.all(
      Array.from({ length: 12 }, (_, index) => save(user, quizid, { device: `try ${index}` })),
    );
    expect(responses.filter((response) => response.status === 201)).toHaveLength(1);
    expect(responses.filter((response) => response.status === 200)).toHaveLength(11);
    expect(new Set(responses.map((response) => response.body.quiz_sessionid)).size).toBe(1);
    const mine = await api('GET', '/quizzes/sessions', { token: user.token });
    expect(mine.body.quizSessions.filter((session: { quizid: number }) => session.quizid === quizid)).toHaveLength(1);
  });
});

describe('POST /quizzes/sessions/submit', () => {
  it('grades the open session; the submission endpoint returns the results', async () => {
    const { quizid } = await importQuiz({ pass_threshold: 75 });
    const user = await createUser();
    await save(user, quizid, HALF_RIGHT);
    const submitted = await submit(user, quizid);
    expect(submitted.status).toBe(200);
    expect(submitted.body).toMatchObject({
      submitted: 1,
      attempt: 1,
      correct_count: 2,
      question_count: 4,
      score: 50,
      passed: false,
      pass_threshold: 75,
      quiz_passed: false,
      locked: false,
      attempts_remaining: null,
    });
    expect(submitted.body.end_date).toBeGreaterThan(0);
    const results = await api('GET', `/quizzes/submissions/${submitted.body.quiz_sessionid}`, { token: user.token });
    expect(results.status).toBe(200);
    expect(results.body.results).toEqual([
      { name: 'first_step', title: 'What comes first?', answered: true, correct: true },
      { name: 'energy', title: 'Energy sources?', answered: true, correct: false },
      { name: 'device', title: 'Device that holds the lock', answered: true, correct: false },
      { name: 'verify', title: 'Verify zero energy?', answered: true, correct: true },
    ]);
    // A new attempt opens a new session; a pass is kept.
    const second = await submit(user, quizid, ALL_RIGHT);
    expect(second.body).toMatchObject({ attempt: 2, score: 100, passed: true, quiz_passed: true });
    expect(second.body.quiz_sessionid).not.toBe(submitted.body.quiz_sessionid);
    const third = await submit(user, quizid, ALL_WRONG);
    expect(third.body).toMatchObject({ attempt: 3, passed: false, quiz_passed: true, locked: false });
  });

  it('grades a select answer as the choice it matches, as survey-core loads it (choices recorded at import)', async () => {
    const definition = {
      title: `Choices ${uniqueSuffix()}`,
      elements: [
        { type: 'rating', name: 'q0', correctAnswer: 1 },
        { type: 'checkbox', name: 'q1', choices: ['a', 'b', 'c', 1, 2], correctAnswer: ['b', 1] },
        { type: 'dropdown', name: 'q2', choices: ['a', 1], correctAnswer: 1 },
      ],
    };
    const { quizid } = await importQuiz({ definition });
    const user = await createUser();
    // survey-core reads true as the choice 1: ["b", true] is ["b", 1] and true is 1.
    const submitted = await submit(user, quizid, { q1: ['b', true], q2: true });
    expect(submitted.status).toBe(200);
    expect(submitted.body).toMatchObject({ correct_count: 2, question_count: 3 });
  });

  it('locks the quiz for the user after max_attempts failed attempts (403 on save and submit)', async () => {
    const { quizid } = await importQuiz({ max_attempts: 2 });
    const user = await createUser();
    expect((await submit(user, quizid, ALL_WRONG)).body).toMatchObject({
      attempt: 1,
      locked: false,
      attempts_remaining: 1,
    });
    expect((await submit(user, quizid, HALF_RIGHT)).body).toMatchObject({
      attempt: 2,
      locked: true,
      attempts_remaining: 0,
    });
    expect((await submit(user, quizid, ALL_RIGHT)).status).toBe(403);
    expect((await save(user, quizid, ALL_RIGHT)).status).toBe(403);
    // Someone else is not locked.
    expect((await submit(await createUser(), quizid, ALL_RIGHT)).body.passed).toBe(true);
  });

  it('422 without an open session and without a response; 422 for answers of the wrong shape', async () => {
    const { quizid } = await importQuiz();
    const user = await createUser();
    const nothing = await submit(user, quizid);
    expect(nothing.status).toBe(422);
    expect(nothing.body.errors[0]).toMatchObject({ field: 'response_json', code: 'missing_field' });
    const malformed = await submit(user, quizid, { device: ['Hasp'], first_step: { a: 1 } });
    expect(malformed.status).toBe(422);
    expect(malformed.body.errors.map((error: { field: string }) => error.field).sort()).toEqual(
      ['response_json.first_step', 'response_json.device'].sort(),
    );
    expect((await submit(user, 999999999, ALL_RIGHT)).status).toBe(404);
  });

  it('counts submissions on the quiz (quizzes_submitted)', async () => {
    const category = `Count ${uniqueSuffix()}`;
    const { quizid } = await importQuiz({ category });
    await submit(await createUser(), quizid, ALL_RIGHT);
    await submit(await createUser(), quizid, ALL_WRONG);
    const list = await api('GET', '/quizzes', { token: await loginAdmin(), query: { category } });
    expect(list.body[0]).toMatchObject({ quizid, quizzes_submitted: 2 });
  });
});

describe('POST /quizzes/sessions/cancel', () => {
  it('cancels the open session (cancelled, end_date); a plain ok when there is none', async () => {
    const { quizid } = await importQuiz();
    const user = await createUser();
    const none = await api('POST', '/quizzes/sessions/cancel', { token: user.token, body: { quizid } });
    expect(none.status).toBe(200);
    expect(none.body).toEqual({ message: 'ok', quizSession: null });
    const opened = await save(user, quizid, {});
    const cancelled = await api('POST', '/quizzes/sessions/cancel', { token: user.token, body: { quizid } });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.quizSession).toMatchObject({
      quiz_sessionid: opened.body.quiz_sessionid,
      cancelled: 1,
      submitted: 0,
    });
    expect(cancelled.body.quizSession.end_date).toBeGreaterThan(0);
    // The next save opens a new session.
    expect((await save(user, quizid, {})).status).toBe(201);
    expect(
      (await api('POST', '/quizzes/sessions/cancel', { token: user.token, body: { quizid: 999999999 } })).status,
    ).toBe(404);
  });
});

describe('visibility: GET /quizzes/sessions and GET /quizzes/submissions/{sessionid}', () => {
  it("Admins see all, users their own, Team Owners their own and their members'; results likewise", async () => {
    const quiz = await importQuiz({ definition: safetyQuiz(`Visibility ${uniqueSuffix()}`) });
    const [owner, member, outsider] = [await createUser(), await createUser(), await createUser()];
    await createTeam(owner, [member]);
    const ownerNow = await relogin(owner);
    const ownSession = (await submit(ownerNow, quiz.quizid, ALL_RIGHT)).body.quiz_sessionid;
    const memberSession = (await submit(member, quiz.quizid, HALF_RIGHT)).body.quiz_sessionid;
    const outsiderSession = (await save(outsider, quiz.quizid, {})).body.quiz_sessionid;

    const admin = await api('GET', '/quizzes/sessions', {
      token: await loginAdmin(),
      query: { query: quiz.quiz_title },
    });
    expect(admin.status).toBe(200);
    expect(sessionIds(admin)).toEqual([outsiderSession, memberSession, ownSession]);
    expect(admin.body.quizSessions[0]).toMatchObject({
      userid: outsider.userid,
      quizid: quiz.quizid,
      quiz_title: quiz.quiz_title,
    });
    expect(typeof admin.body.quizSessions[0].username).toBe('string');

    const asOwner = await api('GET', '/quizzes/sessions', { token: ownerNow.token, query: { query: quiz.quiz_title } });
    expect(sessionIds(asOwner)).toEqual([memberSession, ownSession]);
    const ownerAll = await api('GET', '/quizzes/sessions', { token: ownerNow.token, query: { limit: 200 } });
    expect(sessionIds(ownerAll)).toEqual(expect.arrayContaining([memberSession, ownSession]));
    expect(sessionIds(ownerAll)).not.toContain(outsiderSession);

    const asOutsider = await api('GET', '/quizzes/sessions', { token: outsider.token });
    expect(sessionIds(asOutsider)).toEqual([outsiderSession]);
    const asMember = await api('GET', '/quizzes/sessions', { token: member.token, query: { query: quiz.quiz_title } });
    expect(sessionIds(asMember)).toEqual([memberSession]);

    expect((await api('GET', `/quizzes/submissions/${memberSession}`, { token: ownerNow.token })).status).toBe(200);
    expect((await api('GET', `/quizzes/submissions/${memberSession}`, { token: outsider.token })).status).toBe(404);
    expect((await api('GET', `/quizzes/submissions/${ownSession}`, { token: member.token })).status).toBe(404);
    expect((await api('GET', `/quizzes/submissions/${memberSession}`, { token: await loginAdmin() })).status).toBe(200);
    // An open session has no submission yet.
    expect((await api('GET', `/quizzes/submissions/${outsiderSession}`, { token: outsider.token })).status).toBe(404);
  });

  it('pages newest first and filters by the title of a course the quiz is attached to', async () => {
    const course = await createWiki({ title: `Course ${uniqueSuffix()}` });
    const quiz = await importQuiz();
    const other = await importQuiz();
    await api('POST', '/quizzes/attach/wiki', {
      token: await loginAdmin(),
      body: { quizid: quiz.quizid, wikiid: course.wikiid },
    });
    const user = await createUser();
    const first = (await submit(user, quiz.quizid, ALL_WRONG)).body.quiz_sessionid;
    const second = (await submit(user, quiz.quizid, ALL_RIGHT)).body.quiz_sessionid;
    await save(user, other.quizid, {});
    const byCourse = await api('GET', '/quizzes/sessions', {
      token: await loginAdmin(),
      query: { query: course.title },
    });
    expect(sessionIds(byCourse)).toEqual([second, first]);
    const page = await api('GET', '/quizzes/sessions', {
      token: user.token,
      query: { query: course.title, limit: 1, offset: 1 },
    });
    expect(sessionIds(page)).toEqual([first]);
    const mine = await api('GET', '/quizzes/sessions', { token: user.token, query: { limit: 2 } });
    expect(mine.body.quizSessions).toHaveLength(2);
    expect(mine.body.quizSessions[0].quizid).toBe(other.quizid);
  });
});

describe('POST /quizzes/sessions/bulkCancel', () => {
  it('Admins and Team Owners only; answers the cancelled and the invalid ids', async () => {
    const { quizid } = await importQuiz();
    const [owner, member, outsider] = [await createUser(), await createUser(), await createUser()];
    await createTeam(owner, [member]);
    const ownerNow = await relogin(owner);
    const open = (await save(member, quizid, {})).body.quiz_sessionid;
    const done = (await submit(await relogin(member), (await importQuiz()).quizid, ALL_RIGHT)).body.quiz_sessionid;
    const foreign = (await save(outsider, quizid, {})).body.quiz_sessionid;

    expect(
      (
        await api('POST', '/quizzes/sessions/bulkCancel', {
          token: outsider.token,
          body: { quiz_sessionids: [foreign] },
        })
      ).status,
    ).toBe(403);
    const byOwner = await api('POST', '/quizzes/sessions/bulkCancel', {
      token: ownerNow.token,
      body: { quiz_sessionids: [open, done, foreign, 999999999] },
    });
    expect(byOwner.status).toBe(200);
    expect(byOwner.body).toEqual({ cancelled: [open], invalid: [done, foreign, 999999999] });
    const byAdmin = await api('POST', '/quizzes/sessions/bulkCancel', {
      token: await loginAdmin(),
      body: { quiz_sessionids: [foreign, open] },
    });
    expect(byAdmin.body).toEqual({ cancelled: [foreign], invalid: [open] });
    // The member's slot is free again.
    expect((await save(member, quizid, {})).status).toBe(201);
  });
});

describe('PATCH /quizzes/sessions/userInvalidateAll/{userid}', () => {
  it("resets a user's results (a locked quiz opens again), marks their submissions invalidated", async () => {
    const locked = await importQuiz({ max_attempts: 1 });
    const passed = await importQuiz();
    const user = await createUser();
    const lockedSession = (await submit(user, locked.quizid, ALL_WRONG)).body.quiz_sessionid;
    const passedSession = (await submit(user, passed.quizid, ALL_RIGHT)).body.quiz_sessionid;
    expect((await save(user, locked.quizid, {})).status).toBe(403);

    const response = await api('PATCH', `/quizzes/sessions/userInvalidateAll/${user.userid}`, {
      token: await loginAdmin(),
      body: {},
    });
    expect(response.status).toBe(200);
    expect(response.body.quizids.sort()).toEqual([locked.quizid, passed.quizid].sort());
    expect(response.body.quiz_sessionids.sort()).toEqual([lockedSession, passedSession].sort());
    const results = await api('GET', `/quizzes/submissions/${passedSession}`, { token: user.token });
    expect(results.body).toMatchObject({ invalidated: 1, passed: true });
    expect((await save(user, locked.quizid, {})).status).toBe(201);
    const retry = await submit(user, passed.quizid, ALL_WRONG);
    expect(retry.body).toMatchObject({ attempt: 1, quiz_passed: false });
  });

  it('limits itself to the quizzes of the documents given', async () => {
    const wiki = await createWiki();
    const attached = await importQuiz();
    const untouched = await importQuiz();
    await api('POST', '/quizzes/attach/wiki', {
      token: await loginAdmin(),
      body: { quizid: attached.quizid, wikiid: wiki.wikiid },
    });
    const user = await createUser();
    await submit(user, attached.quizid, ALL_RIGHT);
    await submit(user, untouched.quizid, ALL_RIGHT);
    const response = await api('PATCH', `/quizzes/sessions/userInvalidateAll/${user.userid}`, {
      token: await loginAdmin(),
      body: { documents: [{ doctype: 'wiki', docid: wiki.wikiid }] },
    });
    expect(response.body).toMatchObject({
      quizids: [attached.quizid],
      documents: [{ doctype: 'wiki', docid: wiki.wikiid }],
    });
    expect((await submit(user, untouched.quizid, ALL_WRONG)).body.quiz_passed).toBe(true);
    expect((await submit(user, attached.quizid, ALL_WRONG)).body.quiz_passed).toBe(false);
  });

  it('is for Admins (403), 404 for an unknown user, 422 for a bad document', async () => {
    const user = await createUser();
    expect(
      (await api('PATCH', `/quizzes/sessions/userInvalidateAll/${user.userid}`, { token: user.token, body: {} }))
        .status,
    ).toBe(403);
    expect(
      (await api('PATCH', '/quizzes/sessions/userInvalidateAll/999999999', { token: await loginAdmin(), body: {} }))
        .status,
    ).toBe(404);
    const bad = await api('PATCH', `/quizzes/sessions/userInvalidateAll/${user.userid}`, {
      token: await loginAdmin(),
      body: { documents: [{ doctype: 'video', docid: 1 }] },
    });
    expect(bad.status).toBe(422);
  });
});
