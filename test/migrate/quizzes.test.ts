/**
 * The quizzes crawler against the test stack: quizzes, current revisions (graded questions found
 * again from the definition), categories, sessions with their graded results and the users'
 * progress equal the stored items attribute by attribute (minus QUIZ_UNEXPOSED); a refusing
 * source is reported, not fatal.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, loginAdmin, uniqueSuffix, type TestUser } from '../support/api.ts';
import { ALL_RIGHT, ALL_WRONG, HALF_RIGHT, importQuiz } from '../api/quiz-fixtures.ts';
import { quizzesCrawler, QUIZ_UNEXPOSED } from '../../infra/ops/migrate/resources/quizzes.ts';
import { crawledAndStored, httpSource, runCrawler, type CrawlRun } from './support/crawl-harness.ts';

let admin: string;
let quizids: number[];
let users: TestUser[];
let category: string;
let run: CrawlRun;

async function ok(promise: Promise<{ status: number; text: string; body: any }>) {
  const response = await promise;
  if (response.status >= 300) throw new Error(`${response.status} ${response.text}`);
  return response.body;
}

const save = (user: TestUser, quizid: number, response_json: unknown) =>
  ok(api('POST', '/quizzes/sessions/save', { token: user.token, body: { quizid, response_json } }));
const submit = (user: TestUser, quizid: number, response_json: unknown) =>
  ok(api('POST', '/quizzes/sessions/submit', { token: user.token, body: { quizid, response_json } }));

beforeAll(async () => {
  admin = await loginAdmin();
  category = `Safety ${uniqueSuffix()}`;
  const limited = await importQuiz({ category, pass_threshold: 75, max_attempts: 2 });
  const plain = await importQuiz({ enabled: false });
  quizids = [limited.quizid, plain.quizid];
  users = await Promise.all([createUser(), createUser(), createUser()]);
  // Locked after two failed attempts; passed on the second; one open and one cancelled session.
  await submit(users[0]!, limited.quizid, ALL_WRONG);
  await submit(users[0]!, limited.quizid, HALF_RIGHT);
  await submit(users[1]!, limited.quizid, HALF_RIGHT);
  await submit(users[1]!, limited.quizid, ALL_RIGHT);
  await save(users[2]!, limited.quizid, { first_step: 'Notify' });
  await save(users[1]!, limited.quizid, {});
  await ok(api('POST', '/quizzes/sessions/cancel', { token: users[1]!.token, body: { quizid: limited.quizid } }));
  const ours = new Set([
    ...quizids.map((quizid) => `quiz:${quizid}`),
    'quiz-categories',
    'quiz-count',
    'quiz-sessions',
  ]);
  run = await runCrawler(quizzesCrawler, httpSource(admin), { onlyUnits: (unit) => ours.has(unit) });
});

const ignored = {
  Quiz: Object.keys(QUIZ_UNEXPOSED.Quiz),
  QuizRevision: Object.keys(QUIZ_UNEXPOSED.QuizRevision),
  QuizProgress: Object.keys(QUIZ_UNEXPOSED.QuizProgress),
};

/** Items of this file's quizzes and users (other test files change theirs meanwhile). */
function isOurs(item: Record<string, unknown>): boolean {
  const pk = String(item.pk);
  if (pk === 'QUIZCATEGORIES') return item.name === category;
  if (pk.startsWith('QUIZ#') || pk.startsWith('QUIZSESSIONS#QUIZ#'))
    return quizids.includes(Number(pk.split('#').at(-1)));
  if (pk.startsWith('QUIZSESSION#') || pk.startsWith('USER#')) return users.some((user) => user.userid === item.userid);
  return false;
}

describe('quizzes crawler', () => {
  it('carries quizzes, revisions, the category, sessions and progress as stored', async () => {
    const { crawled, stored } = await crawledAndStored(run, isOurs, ignored);
    expect(crawled).toEqual(stored);
    const count = (entity: string) => crawled.filter((item) => item.entity === entity).length;
    expect(count('Quiz')).toBe(2);
    expect(count('QuizRevision')).toBe(2);
    expect(count('QuizCategory')).toBe(1);
    expect(count('QuizSession')).toBe(6);
    expect(count('QuizSessionLink')).toBe(6);
    expect(count('QuizProgress')).toBe(3);
    const locked = crawled.find((item) => item.entity === 'QuizProgress' && item.userid === users[0]!.userid);
    expect(locked).toMatchObject({ attempts: 2, passed: false, locked: true });
    const revision = crawled.find((item) => item.entity === 'QuizRevision' && item.quizid === quizids[0]);
    expect((revision!.questions as unknown[]).length).toBeGreaterThan(0);
  });

  it('counts the quizzes, moves the counters past the ids it carried, and names what it could not carry', () => {
    expect(Number(run.items.get('QUIZCOUNT|COUNT')?.count)).toBeGreaterThanOrEqual(2);
    expect(run.ids.get('quiz')).toBeGreaterThanOrEqual(Math.max(...quizids));
    expect(run.ids.get('quiz_session')).toBeGreaterThan(0);
    expect(run.unexposed.map((entry) => entry.what)).toContain('quiz attachments to guide and wiki revisions');
  });

  it('reports a source that refuses quizzes as unexposed, without failing', async () => {
    const denied = await runCrawler(quizzesCrawler, httpSource(admin, { deny: ['/quizzes'] }));
    expect(denied.items.size).toBe(0);
    expect(denied.unexposed).toEqual([expect.objectContaining({ what: 'quizzes' })]);
  });
});
