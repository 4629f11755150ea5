/**
 * Failures a service must not hide or loop on (issue 23 item 12), run in this process against
 * the test stack's table with one dependency made to fail:
 * - comment delete: its step-counter correction failing for any reason but "the step is gone"
 *   (throttling here) is an error, not a silent 204;
 * - course delete: an assignment that will not cancel ends in a 409 after a bounded number of
 *   pages, the course kept, instead of an endless loop.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { api, loginAdmin, uniqueSuffix } from '../support/api.ts';
import { addStep, createGuide } from './guide-fixtures.ts';
import { assignedTrainee } from '../support/courses.ts';
import { runServicesOnStackTable } from '../support/local-db.ts';

const hooks = vi.hoisted(() => ({
  failStepCounter: false,
  stuckCancels: 0,
  /** Pretend the course has this many active assignments (a list answers up to its limit). */
  activeAssignments: 0,
  cancels: 0,
}));

vi.mock('../../shared/db/entities/course-assignment.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../shared/db/entities/course-assignment.ts')>();
  return {
    ...actual,
    listCourseAssignments: async (...args: Parameters<typeof actual.listCourseAssignments>) => {
      if (hooks.activeAssignments === 0) return actual.listCourseAssignments(...args);
      const real = await actual.listCourseAssignments(...args);
      const count = Math.min(hooks.activeAssignments, args[2].limit);
      return Array.from({ length: count }, (_, index) => real[index % real.length]!);
    },
  };
});

vi.mock('../../shared/db/transactions.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../shared/db/transactions.ts')>();
  return {
    ...actual,
    transactWrite: async (...args: Parameters<typeof actual.transactWrite>) => {
      const [writes] = args;
      if (hooks.failStepCounter && writes.length === 1 && writes[0]!.label === 'document') {
        throw Object.assign(new Error('Rate of requests exceeds the allowed throughput'), {
          name: 'ThrottlingException',
        });
      }
      return actual.transactWrite(...args);
    },
  };
});

vi.mock('../../shared/training/assignments.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../shared/training/assignments.ts')>();
  const { ConflictError } = await import('../../shared/domain/errors.ts');
  return {
    ...actual,
    cancelAssignment: async (...args: Parameters<typeof actual.cancelAssignment>) => {
      hooks.cancels++;
      if (hooks.stuckCancels > 0) {
        hooks.stuckCancels++;
        if (hooks.stuckCancels > 500) throw new Error('endless cancel loop');
        throw new ConflictError('stuck');
      }
      return actual.cancelAssignment(...args);
    },
  };
});

runServicesOnStackTable();
const admin = { userid: 1, username: 'Admin', privileges: ['Admin' as const], teams: [] };
let comments: typeof import('../../functions/comments/comments.service.ts');
let courses: typeof import('../../functions/courses/courses.service.ts');

beforeAll(async () => {
  comments = await import('../../functions/comments/comments.service.ts');
  courses = await import('../../functions/courses/courses.service.ts');
});

afterAll(() => {
  hooks.failStepCounter = false;
  hooks.stuckCancels = 0;
});

describe('comment delete', () => {
  it('does not swallow a throttled step-counter write', async () => {
    const token = await loginAdmin();
    const guide = await createGuide(token);
    const withStep = await addStep(token, guide.guideid);
    const stepid = withStep.steps[0].stepid as number;
    const post = (body: Record<string, unknown>) =>
      api('POST', `/comments/step/${stepid}`, { token, body: { text: `Comment ${uniqueSuffix()}`, ...body } });
    const thread = (await post({})).body;
    expect((await post({ parentid: thread.commentid })).status).toBe(201);
    hooks.failStepCounter = true;
    try {
      await expect(comments.remove(admin, thread.commentid)).rejects.toMatchObject({ name: 'ThrottlingException' });
    } finally {
      hooks.failStepCounter = false;
    }
  });
});

describe('course delete', () => {
  it('gives up with 409 after bounded pages when an assignment will not cancel, keeping the course', async () => {
    const { course } = await assignedTrainee();
    hooks.stuckCancels = 1;
    try {
      await expect(courses.remove(admin, course.wikiid, undefined)).rejects.toMatchObject({
        name: 'ConflictError',
        message: expect.stringMatching(/kept changing/),
      });
    } finally {
      hooks.stuckCancels = 0;
    }
    expect((await api('GET', `/courses/${course.wikiid}`, { token: await loginAdmin() })).status).toBe(200);
  }, 30_000);

  it('past the ceiling of 1,000 active assignments is refused (409) before anything is cancelled', async () => {
    const { course, assignment } = await assignedTrainee();
    hooks.activeAssignments = courses.MAX_ASSIGNMENTS_CANCELLED_ON_DELETE + 1;
    hooks.cancels = 0;
    try {
      await expect(courses.remove(admin, course.wikiid, undefined)).rejects.toMatchObject({
        name: 'ConflictError',
        message: expect.stringMatching(/more than 1000 active assignments/),
      });
    } finally {
      hooks.activeAssignments = 0;
    }
    expect(hooks.cancels).toBe(0);
    const token = await loginAdmin();
    expect((await api('GET', `/courses/${course.wikiid}`, { token })).status).toBe(200);
    const kept = await api('GET', `/course_assignments/${assignment.course_assignmentid}`, { token });
    expect(kept.status).toBe(200);
    expect(kept.body.cancelled).toBeFalsy();
    expect(kept.body.cancelled_at).toBeNull();
  }, 30_000);
});
