/**
 * The quiz facts of course stages (quizStateFor, the courses contract) driven through the API
 * and read with the shared module against the stack's DynamoDB, fed to the stage rule:
 * a locked quiz blocks the stage (quiz_locked), an unpassed required quiz leaves it
 * incomplete_assessment until passed. Also: the invalidation's audit record.
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { reloadConfig } from '../../shared/config.ts';
import { quizStateFor } from '../../shared/training/quiz-state.ts';
import { stageStatus, type StageFacts } from '../../shared/domain/stage-status.ts';
import { readAuditChain } from '../../shared/db/audit.ts';
import { api, createUser, loginAdmin, uniqueSuffix } from '../support/api.ts';
import { createWiki } from '../support/wikis.ts';
import { createGuide } from './guide-fixtures.ts';
import { ALL_RIGHT, ALL_WRONG, importQuiz } from './quiz-fixtures.ts';

beforeAll(() => {
  process.env.DDB_ENDPOINT = inject('ddbEndpoint');
  process.env.AWS_ACCESS_KEY_ID ??= 'test';
  process.env.AWS_SECRET_ACCESS_KEY ??= 'test';
  reloadConfig();
});

/** A finished document on a stage that needs its quiz (if the document has one). */
async function stageOf(userid: number, guideid: number) {
  const quiz = await quizStateFor(userid, 'guide', guideid);
  const facts: StageFacts = {
    rule: {
      strictness: null,
      frequency_quantity: null,
      frequency_unit: null,
      requires_signoff: false,
      requires_quiz: quiz.required,
    },
    latestRelease: null,
    completion: { init_date: 1, end_date: 2, manager_override_userid: null, release: null, invalidated_at: null },
    signoff: 'none',
    quiz: quiz.state,
    now: 3,
  };
  return { quiz, stage: stageStatus(facts) };
}

async function guideWithQuiz(quizBody: Record<string, unknown> = {}) {
  const token = await loginAdmin();
  const guide = await createGuide(token);
  const quiz = await importQuiz(quizBody);
  const attached = await api('POST', '/quizzes/attach/guide', {
    token,
    query: { revisionid: guide.revisionid },
    body: { quizid: quiz.quizid, guideid: guide.guideid },
  });
  expect(attached.status).toBe(201);
  return { guide, quiz };
}

const submit = (token: string, quizid: number, response_json: unknown) =>
  api('POST', '/quizzes/sessions/submit', { token, body: { quizid, response_json } });

describe('quizStateFor and the stage status', () => {
  it('a document without a quiz requires none', async () => {
    const guide = await createGuide(await loginAdmin());
    const user = await createUser();
    expect(await stageOf(user.userid, guide.guideid)).toEqual({
      quiz: { required: false, state: 'not_started' },
      stage: { status: 'completed', reason: 'completed' },
    });
  });

  it('not_started → in_progress → failed (incomplete_assessment) → passed (completed)', async () => {
    const { guide, quiz } = await guideWithQuiz();
    const user = await createUser();
    expect(await stageOf(user.userid, guide.guideid)).toEqual({
      quiz: { required: true, state: 'not_started' },
      stage: { status: 'started', reason: 'incomplete_assessment' },
    });
    await api('POST', '/quizzes/sessions/save', {
      token: user.token,
      body: { quizid: quiz.quizid, response_json: {} },
    });
    expect((await stageOf(user.userid, guide.guideid)).quiz.state).toBe('in_progress');
    await submit(user.token, quiz.quizid, ALL_WRONG);
    expect(await stageOf(user.userid, guide.guideid)).toMatchObject({
      quiz: { state: 'failed' },
      stage: { reason: 'incomplete_assessment' },
    });
    await submit(user.token, quiz.quizid, ALL_RIGHT);
    expect(await stageOf(user.userid, guide.guideid)).toMatchObject({
      quiz: { state: 'passed' },
      stage: { status: 'completed', reason: 'completed' },
    });
  });

  it('used-up attempts lock the quiz: blocked / quiz_locked, until an Admin invalidates (audited)', async () => {
    const { guide, quiz } = await guideWithQuiz({ max_attempts: 1 });
    const user = await createUser();
    await submit(user.token, quiz.quizid, ALL_WRONG);
    expect(await stageOf(user.userid, guide.guideid)).toEqual({
      quiz: { required: true, state: 'locked' },
      stage: { status: 'blocked', reason: 'quiz_locked' },
    });
    const invalidated = await api('PATCH', `/quizzes/sessions/userInvalidateAll/${user.userid}`, {
      token: await loginAdmin(),
      body: { documents: [{ doctype: 'guide', docid: guide.guideid }] },
    });
    expect(invalidated.body.documents).toEqual([{ doctype: 'guide', docid: guide.guideid }]);
    expect(await stageOf(user.userid, guide.guideid)).toMatchObject({
      quiz: { state: 'not_started' },
      stage: { reason: 'incomplete_assessment' },
    });
    const chain = await readAuditChain(`USER#${user.userid}`);
    const record = chain.find((entry) => entry.action === 'quiz.results_invalidated');
    expect(record).toMatchObject({ details: { quizids: [quiz.quizid] } });
    expect(record?.actor_userid).toBeGreaterThan(0);
  });

  it('a disabled or deleted quiz is not required; a wiki (course) quiz counts for the wiki', async () => {
    const disabled = await guideWithQuiz({ enabled: false });
    const user = await createUser();
    expect((await stageOf(user.userid, disabled.guide.guideid)).quiz.required).toBe(false);
    const deleted = await guideWithQuiz();
    await api('POST', '/quizzes/delete', { token: await loginAdmin(), body: { quizids: [deleted.quiz.quizid] } });
    expect((await stageOf(user.userid, deleted.guide.guideid)).quiz.required).toBe(false);
    const course = await createWiki({ title: `Course ${uniqueSuffix()}` });
    const quiz = await importQuiz();
    await api('POST', '/quizzes/attach/wiki', {
      token: await loginAdmin(),
      body: { quizid: quiz.quizid, wikiid: course.wikiid },
    });
    expect(await quizStateFor(user.userid, 'wiki', course.wikiid)).toEqual({ required: true, state: 'not_started' });
  });

  it('attaching another quiz to the guide replaces it (in force, and in the lists)', async () => {
    const token = await loginAdmin();
    const category = `Swap ${uniqueSuffix()}`;
    const { guide, quiz: first } = await guideWithQuiz({ category });
    const second = await importQuiz({ category });
    const current = await api('GET', `/guides/${guide.guideid}`, { token });
    await api('POST', '/quizzes/attach/guide', {
      token,
      query: { revisionid: current.body.revisionid },
      body: { quizid: second.quizid, guideid: guide.guideid },
    });
    const user = await createUser();
    await submit(user.token, second.quizid, ALL_RIGHT);
    expect((await stageOf(user.userid, guide.guideid)).quiz.state).toBe('passed');
    const list = await api('GET', '/quizzes', { token, query: { category, orderby: 'guideid' } });
    const byId = new Map(
      list.body.map((entry: { quizid: number; guideid: number | null }) => [entry.quizid, entry.guideid]),
    );
    expect(byId.get(second.quizid)).toBe(guide.guideid);
    expect(byId.get(first.quizid)).toBeNull();
  });
});
