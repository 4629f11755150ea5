/**
 * xAPI: with an LRS configured (the test run's own, test/support/lrs.ts) the same machinery
 * sends completed / passed / failed statements for guides, course stages and quizzes.
 */
import { describe, expect, it, inject } from 'vitest';
import { api, createUser, loginAdmin, uniqueSuffix } from '../support/api.ts';
import { assignedTrainee } from '../support/courses.ts';
import { createGuide } from './guide-fixtures.ts';
import { ALL_RIGHT, HALF_RIGHT, importQuiz } from './quiz-fixtures.ts';

type Statement = {
  id: string;
  actor: { account: { name: string; homePage: string } };
  verb: { id: string };
  object: { id: string };
  result?: any;
  context?: any;
};

/** Statements the LRS holds that match, once there are `count` of them. */
async function statementsWhere(match: (statement: Statement) => boolean, count = 1): Promise<Statement[]> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const response = await fetch(`${inject('lrsEndpoint')}statements`);
    const found = ((await response.json()) as { statements: Statement[] }).statements.filter(match);
    if (found.length >= count) return found;
    if (Date.now() > deadline) throw new Error(`The LRS has ${found.length} matching statements, expected ${count}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const verb = (name: string) => `http://adlnet.gov/expapi/verbs/${name}`;

describe('xAPI statements', () => {
  it('passed and failed for quiz submissions, with the scaled score', async () => {
    const { quizid } = await importQuiz();
    const user = await createUser();
    const submit = (response_json: unknown) =>
      api('POST', '/quizzes/sessions/submit', { token: user.token, body: { quizid, response_json } });
    expect((await submit(HALF_RIGHT)).body.passed).toBe(false);
    expect((await submit(ALL_RIGHT)).body.passed).toBe(true);
    const statements = await statementsWhere(
      (statement) => statement.object.id.endsWith(`/api/2.0/quizzes/${quizid}`),
      2,
    );
    const failed = statements.find((statement) => statement.verb.id === verb('failed'))!;
    const passed = statements.find((statement) => statement.verb.id === verb('passed'))!;
    expect(failed.actor.account.name).toBe(String(user.userid));
    expect(failed.result).toMatchObject({ success: false, completion: true, score: { scaled: 0.5, raw: 50 } });
    expect(passed.result).toMatchObject({ success: true, score: { scaled: 1 } });
    expect(failed.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('completed for a course stage, with its course as parent', async () => {
    const { guide, course, trainee } = await assignedTrainee();
    expect(
      (await api('PATCH', `/course_assignments/complete/guide/${guide.guideid}`, { token: trainee.token, body: {} }))
        .status,
    ).toBe(200);
    const stageid = course.stages[0].course_stageid;
    const [statement] = await statementsWhere((candidate) =>
      candidate.object.id.endsWith(`/courses/${course.wikiid}/stages/${stageid}`),
    );
    expect(statement.verb.id).toBe(verb('completed'));
    expect(statement.actor.account.name).toBe(String(trainee.userid));
    expect(statement.context.contextActivities.parent[0].id).toMatch(new RegExp(`/courses/${course.wikiid}$`));
  });

  it('completed for a guide whose work log entry is finished', async () => {
    const admin = await loginAdmin();
    const guide = await createGuide(admin);
    const started = await api('POST', '/work_log', {
      token: admin,
      body: { guideid: guide.guideid, workorderid: `WO-${uniqueSuffix()}` },
    });
    expect(started.status).toBe(201);
    expect((await api('POST', `/work_log/${started.body.entryid}/finish`, { token: admin })).status).toBe(200);
    const [statement] = await statementsWhere(
      (candidate) =>
        candidate.object.id.endsWith(`/api/2.0/guides/${guide.guideid}`) && candidate.verb.id === verb('completed'),
    );
    expect(statement.actor.account.homePage).toMatch(/^http/);
  });
});
