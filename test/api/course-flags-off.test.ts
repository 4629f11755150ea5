/**
 * `stage_status` only when both feature flags are on: a second, short-lived stack runs with one
 * flag only (the shared test stack has both on), and stage entries there carry the legacy
 * `status` alone — decided by the same stage rule.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStackProcess, type RunningStack } from '../support/local-stack-process.ts';
import { apiAt } from '../support/api.ts';

let stack: RunningStack;

beforeAll(async () => {
  stack = await startStackProcess({
    STEPWISE_ADMIN_EMAIL: 'admin@example.com',
    STEPWISE_ADMIN_PASSWORD: 'stepwise-admin',
    STEPWISE_FEATURE_FLAGS: 'dev-unify-completion-status-logic',
  });
}, 60_000);

afterAll(() => stack?.stop());

const call = (method: string, path: string, token?: string, body?: unknown) =>
  apiAt(stack.url, method, path, { token, body });

describe('feature flags off', () => {
  it('stage entries and course stages have status but no stage_status', async () => {
    const admin = (
      await call('POST', '/user/token', undefined, { email: 'admin@example.com', password: 'stepwise-admin' })
    ).body.authToken;
    const category = await call('POST', '/wikis', admin, { namespace: 'CATEGORY', title: 'Flags', contents: 'x' });
    expect(category.status).toBe(201);
    const guide = await call('POST', '/guides', admin, { category: 'Flags', type: 'how-to', title: 'Flag guide' });
    expect(guide.status).toBe(201);
    const course = await call('POST', '/courses', admin, {
      title: 'Flag course',
      contents: 'x',
      stages: [{ doctype: 'guide', docid: guide.body.guideid }],
    });
    expect(course.status).toBe(201);
    const trainee = await call('POST', '/users', admin, {
      email: 'flags@example.com',
      username: 'Flag trainee',
      password: 'Flag-pass-1234',
    });
    const traineeToken = trainee.body.authToken;
    const assignment = await call('POST', '/course_assignments', admin, {
      wikiid: course.body.wikiid,
      userid: trainee.body.userid,
    });
    expect(assignment.status).toBe(201);
    expect(
      (await call('PATCH', `/course_assignments/start/guide/${guide.body.guideid}`, traineeToken)).body.stages[0],
    ).not.toHaveProperty('stage_status');

    const record = (await call('GET', `/course_assignments/${assignment.body.course_assignmentid}`, admin)).body;
    const entry = record.completion_status[0].stages[0];
    expect(entry.status).toBe('started');
    expect(entry).not.toHaveProperty('stage_status');
    expect(record.course.stages[0].status).toBe('started');
    expect(record.course.stages[0]).not.toHaveProperty('stage_status');
  });
});
