/**
 * kill -9 of the whole local stack in the middle of an offline journal (issue 30, "Proof"), then
 * a restart on the same data and the journal sent again whole, as a device whose answer never
 * came does: every action takes effect exactly once (one entry per start, each value saved,
 * each entry finished), and no answer is a 5xx. The harness of crash-recovery.test.ts.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, apiAt } from '../support/api.ts';
import { startStackOnDataDir, type RunningStack } from '../support/local-stack-process.ts';

const ENTRIES = 20;

let dataDir: string;
const stacks: RunningStack[] = [];

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'stepwise-sync-crash-'));
});

afterAll(async () => {
  await Promise.all(stacks.map((stack) => stack.stop()));
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function client(stack: RunningStack) {
  const call = (method: string, path: string, body?: unknown, token?: string) =>
    apiAt(stack.url, method, path, { token, body });
  const login = await call('POST', '/user/token', ADMIN);
  expect(login.status).toBe(201);
  const token = login.body.authToken as string;
  return (method: string, path: string, body?: unknown) => call(method, path, body, token);
}

describe('an offline journal cut by a crash', () => {
  it('sent again whole after the restart, takes effect exactly once', { timeout: 240_000 }, async () => {
    const first = await startStackOnDataDir(dataDir);
    stacks.push(first);
    const firstCall = await client(first);
    const category = 'Presses crash';
    expect((await firstCall('POST', '/wikis', { namespace: 'CATEGORY', title: category, contents: '.' })).status).toBe(
      201,
    );
    const guide = await firstCall('POST', '/guides', { category, type: 'how-to', title: 'Press setup' });
    expect(guide.status).toBe(201);
    const step = await firstCall('POST', `/guides/${guide.body.guideid}/steps`, {
      orderby: 1,
      lines: [{ text: 'Set the pressure.', bullet: 'black', level: 0 }],
    });
    expect(step.status).toBe(201);
    const stepid = step.body.steps.at(-1).stepid;
    const form = await firstCall('POST', `/step_forms/${stepid}`, {
      fields: [{ field_type: 'Text Input', label: 'Pressure' }],
    });
    expect(form.status).toBe(201);
    const fieldid = String(form.body.fields[0].field_revisionid);

    const now = Math.floor(Date.now() / 1000);
    const starts = Array.from({ length: ENTRIES }, () => randomUUID());
    const actions = starts.flatMap((start, index) => [
      {
        client_guid: start,
        type: 'work_log.start',
        device_time: now,
        data: { guideid: guide.body.guideid, workorderid: `WO-crash-${index}` },
      },
      {
        client_guid: randomUUID(),
        type: 'work_log.step_data',
        device_time: now,
        entry: start,
        data: { fields: { [fieldid]: `p${index}` } },
      },
      { client_guid: randomUUID(), type: 'work_log.finish', device_time: now, entry: start },
    ]);

    // The journal in flight; the stack dies once some of it has landed.
    const inFlight = firstCall('POST', '/user/sync', { actions }).catch(() => undefined);
    const deadline = Date.now() + 60_000;
    for (;;) {
      const landed = await firstCall('GET', '/work_log', undefined).catch(() => undefined);
      if ((landed?.body?.results?.length ?? 0) >= 3) break;
      if (Date.now() > deadline) throw new Error('no entry landed within a minute');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    first.child.kill('SIGKILL');
    expect(await inFlight).toBeUndefined();

    const second = await startStackOnDataDir(dataDir);
    stacks.push(second);
    const secondCall = await client(second);
    // Sent again whole until nothing is `not_applied` (the time budget of one request, 25 s, may
    // end a long journal on a slow disk: the client's contract is to send it again).
    const outcome = new Map<number, { status: string; http_status: number; type: string; conflict?: any }>();
    for (let attempt = 0; attempt < 6 && outcome.size < actions.length; attempt++) {
      const resent = await secondCall('POST', '/user/sync', { actions });
      expect(resent.status).toBe(200);
      const results = resent.body.results as Array<{ status: string; http_status: number; type: string }>;
      expect(results).toHaveLength(actions.length);
      results.forEach((result, index) => {
        if (result.status !== 'not_applied' && !outcome.has(index)) outcome.set(index, result);
      });
    }
    expect(outcome.size).toBe(actions.length);
    const results = [...outcome.values()];
    for (const result of results) {
      expect(result.http_status).toBeLessThan(500);
      // A finish that landed just before the kill, its claim not yet written, is refused by the
      // entry's own state: reported, never done twice (decision 225).
      if (result.status === 'conflict')
        expect(result).toMatchObject({ type: 'work_log.finish', conflict: { reason: 'state_changed' } });
      else expect(['applied', 'already_applied']).toContain(result.status);
    }
    expect(results.some((result) => result.status === 'already_applied')).toBe(true);
    await Promise.all(
      starts.map(async (start, index) => {
        const [found, byWorkorder] = await Promise.all([
          secondCall('GET', `/work_log?client_guid=${start}`),
          secondCall('GET', `/work_log?workorderid=WO-crash-${index}`),
        ]);
        expect(found.body.results).toHaveLength(1);
        expect(found.body.results[0]).toMatchObject({ status: 'complete', workorderid: `WO-crash-${index}` });
        expect(found.body.results[0].work_data.map((value: { value: string }) => value.value)).toEqual([`p${index}`]);
        expect(byWorkorder.body.results).toHaveLength(1);
      }),
    );
  });
});
