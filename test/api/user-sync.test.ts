/**
 * POST /user/sync (issue 30 §3, decision 225): a journal applied in order, each action once,
 * resent whole or after a cut with the effect of one delivery; conflicts reported per action.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, type TestUser, uniqueSuffix } from '../support/api.ts';
import { addStep, createGuide, ownSteps } from './guide-fixtures.ts';

let writer: TestUser;
let operator: TestUser;
let guide: { guideid: number; revisionid: number; steps: any[] };
let fieldid: string;

beforeAll(async () => {
  [writer, operator] = await Promise.all([createUser({ privileges: ['Author'] }), createUser()]);
  guide = await addStep(writer.token, (await createGuide(writer.token)).guideid);
  expect((await api('PUT', `/guides/${guide.guideid}/users/${operator.userid}`, { token: writer.token })).status).toBe(
    200,
  );
  const form = await api('POST', `/step_forms/${ownSteps(guide)[0].stepid}`, {
    token: writer.token,
    body: { fields: [{ field_type: 'Text Input', label: 'Serial number' }] },
  });
  fieldid = String(form.body.fields[0].field_revisionid);
});

const sync = (actions: unknown[], token = operator.token) => api('POST', '/user/sync', { token, body: { actions } });

/** start -> step data -> finish of one entry, as a device records them. */
function journal(workorderid = `WO-${uniqueSuffix()}`) {
  const start = randomUUID();
  const now = Math.floor(Date.now() / 1000);
  return {
    workorderid,
    actions: [
      {
        client_guid: start,
        type: 'work_log.start',
        device_time: now - 300,
        revisionid: guide.revisionid,
        data: { guideid: guide.guideid, workorderid },
      },
      {
        client_guid: randomUUID(),
        type: 'work_log.step_data',
        device_time: now - 200,
        entry: start,
        data: { fields: { [fieldid]: 'SN-7' } },
      },
      { client_guid: randomUUID(), type: 'work_log.finish', device_time: now - 100, entry: start },
    ],
  };
}

const entriesOf = async (workorderid: string) =>
  (await api('GET', '/work_log', { token: operator.token, query: { workorderid } })).body.results;

describe('POST /user/sync', () => {
  it('applies a journal in order, and a resend of it whole changes nothing', async () => {
    const { workorderid, actions } = journal();
    const first = await sync(actions);
    expect(first.status).toBe(200);
    expect(first.body.results.map((result: { status: string }) => result.status)).toEqual([
      'applied',
      'applied',
      'applied',
    ]);
    for (const result of first.body.results) {
      expect(result.server_time).toBeGreaterThanOrEqual(result.device_time);
    }
    const again = await sync(actions);
    expect(again.body.results.map((result: { status: string }) => result.status)).toEqual([
      'already_applied',
      'already_applied',
      'already_applied',
    ]);
    const [entry] = await entriesOf(workorderid);
    expect(await entriesOf(workorderid)).toHaveLength(1);
    expect(entry.status).toBe('complete');
    expect(entry.work_data.map((value: { value: string }) => value.value)).toEqual(['SN-7']);
    expect(first.body.results.every((result: { entryid: number }) => result.entryid === entry.entryid)).toBe(true);
  });

  it('takes a journal cut anywhere and sent again whole: one delivery', async () => {
    const { workorderid, actions } = journal();
    expect((await sync(actions.slice(0, 2))).status).toBe(200);
    const whole = await sync(actions);
    expect(whole.body.results.map((result: { status: string }) => result.status)).toEqual([
      'already_applied',
      'already_applied',
      'applied',
    ]);
    expect(await entriesOf(workorderid)).toHaveLength(1);
  });

  it('reports conflicts per action: a new release, an entry ended online, a lost access, a failed start', async () => {
    const { actions } = journal();
    actions[0].revisionid = guide.revisionid - 1 || 999_999;
    const stale = await sync(actions.slice(0, 1));
    expect(stale.body.results[0]).toMatchObject({ status: 'applied', conflict: { reason: 'new_release' } });
    // Cancelled online while the device was away: its finish is a conflict with the entry as it is.
    const entryid = stale.body.results[0].entryid;
    expect((await api('POST', `/work_log/${entryid}/cancel`, { token: operator.token })).status).toBe(200);
    const late = await sync(actions);
    expect(late.body.results[2]).toMatchObject({
      status: 'conflict',
      http_status: 409,
      conflict: { reason: 'state_changed', current: { entryid, status: 'cancelled' } },
    });
    // No access to the guide: the start is a conflict, and what depends on it is skipped.
    const other = await createUser();
    const refused = await sync(journal().actions, other.token);
    expect(refused.body.results.map((result: { status: string }) => result.status)).toEqual([
      'conflict',
      'skipped',
      'skipped',
    ]);
    expect(refused.body.results[0].conflict.reason).toBe('access_lost');
    expect(refused.body.results[1].conflict.reason).toBe('depends_on_failed');
  });

  it('applies the same journal sent from two connections at once exactly once', async () => {
    const { workorderid, actions } = journal();
    const [a, b] = await Promise.all([sync(actions), sync(actions)]);
    expect([a.status, b.status]).toEqual([200, 200]);
    const statuses = [...a.body.results, ...b.body.results].map((result: { status: string }) => result.status);
    expect(statuses.filter((status) => status === 'applied')).toHaveLength(3);
    expect(statuses.every((status) => ['applied', 'already_applied'].includes(status))).toBe(true);
    const entries = await entriesOf(workorderid);
    expect(entries).toHaveLength(1);
    expect(entries[0].status).toBe('complete');
  });

  it('refuses a journal over 500 actions (422) or 1 MB (413)', async () => {
    const action = journal().actions[0];
    const many = Array.from({ length: 501 }, () => ({ ...action, client_guid: randomUUID() }));
    expect((await sync(many)).status).toBe(422);
    const big = [{ ...action, data: { ...action.data, padding: 'x'.repeat(1_000_001) } }];
    expect((await sync(big)).status).toBe(413);
  });
});
