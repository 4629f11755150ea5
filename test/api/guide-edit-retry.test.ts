/**
 * A guide change retried after a lost race checks the edit permission again on the guide the
 * retry reads (issue 23 item 12): access withdrawn between two attempts stops the write. The
 * service runs in this process against the test stack's table; its first transaction is made
 * to lose a race while an Admin revokes the writer's grant over HTTP.
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { api, createUser, loginAdmin } from '../support/api.ts';
import { createGuide, LINES } from './guide-fixtures.ts';
import { runServicesOnStackTable } from '../support/local-db.ts';

const hooks = vi.hoisted(() => ({ beforeFirstWrite: undefined as undefined | (() => Promise<void>) }));

vi.mock('../../shared/db/transactions.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../shared/db/transactions.ts')>();
  return {
    ...actual,
    transactWrite: async (...args: Parameters<typeof actual.transactWrite>) => {
      const hook = hooks.beforeFirstWrite;
      if (hook) {
        hooks.beforeFirstWrite = undefined;
        await hook();
        throw new actual.TransactionConditionFailed(['guide'], {});
      }
      return actual.transactWrite(...args);
    },
  };
});

runServicesOnStackTable();
let steps: typeof import('../../functions/guides/steps.service.ts');

beforeAll(async () => {
  steps = await import('../../functions/guides/steps.service.ts');
});

describe('a retried guide change', () => {
  it('is refused (403) when the writer lost edit access between attempts, and writes nothing', async () => {
    const admin = await loginAdmin();
    const author = await createUser({ privileges: ['Author'] });
    const guide = await createGuide(admin);
    const granted = await api('PUT', `/guides/${guide.guideid}/users/${author.userid}`, { token: admin });
    expect(granted.status).toBeLessThan(300);
    hooks.beforeFirstWrite = async () => {
      const revoked = await api('DELETE', `/guides/${guide.guideid}/users/${author.userid}`, { token: admin });
      expect(revoked.status).toBeLessThan(300);
    };
    const caller = { userid: author.userid, username: 'author', privileges: ['Author' as const], teams: [] };
    // No guide revisionid: the write is for whatever is current, retried after a lost race.
    await expect(
      steps.addStep(caller, guide.guideid, undefined, { orderby: 1, lines: LINES, title: 'late' } as never),
    ).rejects.toMatchObject({ name: 'ForbiddenError' });
    expect(hooks.beforeFirstWrite).toBeUndefined();
    const after = await api('GET', `/guides/${guide.guideid}`, { token: admin });
    expect(after.body.steps).toEqual([]);
  });
});
