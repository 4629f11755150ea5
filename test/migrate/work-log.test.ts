/**
 * The work-log crawler against the test stack: crawled entries, list links and step data equal
 * the stored items attribute by attribute (minus WORK_LOG_UNEXPOSED); an open entry read back
 * from the crawled items answers the same totals; a source refusing the list is reported.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { api, createUser, loginAdmin, uniqueSuffix, type TestUser } from '../support/api.ts';
import { addStep, createGuide, ownSteps } from '../api/guide-fixtures.ts';
import { workLogCrawler, WORK_LOG_UNEXPOSED } from '../../infra/ops/migrate/resources/work-log.ts';
import { entryView } from '../../shared/views/work-log-views.ts';
import type { WorkLogEntryRecord } from '../../shared/db/entities/work-log.ts';
import { crawledAndStored, httpSource, runCrawler, storedPartition, type CrawlRun } from './support/crawl-harness.ts';
import { localDb } from '../support/local-db.ts';

let admin: string;
let operator: TestUser;
let stepids: number[];
let fields: Record<string, number>;
const entryids: Record<'complete' | 'cancelled' | 'open' | 'paused', number> = {} as never;
let run: CrawlRun;

/** Moves an entry's stored moments `seconds` back, as if that much time had passed. */
async function age(entryid: number, seconds: number): Promise<void> {
  const names = ['starttime', 'last_event', 'idle_since', 'step_since', 'endtime'];
  const stored = (await storedPartition(`WORKLOG#${entryid}`, 'ENTRY'))[0]!;
  const moved = names.filter((name) => typeof stored[name] === 'number');
  await localDb().send(
    new UpdateCommand({
      TableName: 'stepwise',
      Key: { pk: `WORKLOG#${entryid}`, sk: 'ENTRY' },
      UpdateExpression: `SET ${moved.map((_, index) => `#f${index} = :v${index}`).join(', ')}`,
      ExpressionAttributeNames: Object.fromEntries(moved.map((name, index) => [`#f${index}`, name])),
      ExpressionAttributeValues: Object.fromEntries(
        moved.map((name, index) => [`:v${index}`, (stored[name] as number) - seconds]),
      ),
    }),
  );
}

async function ok(promise: Promise<{ status: number; text: string; body: any }>) {
  const response = await promise;
  if (response.status >= 300) throw new Error(`${response.status} ${response.text}`);
  return response.body;
}

const start = (guideid: number) =>
  ok(api('POST', '/work_log', { token: operator.token, body: { guideid, workorderid: `WO-${uniqueSuffix()}` } }));
const move = (entryid: number, operation: string) =>
  ok(api('POST', `/work_log/${entryid}/${operation}`, { token: operator.token }));
const stepData = (entryid: number, body: unknown) =>
  ok(api('PUT', `/work_log/${entryid}/stepData`, { token: operator.token, body }));

beforeAll(async () => {
  admin = await loginAdmin();
  const writer = await createUser({ privileges: ['Author'] });
  operator = await createUser();
  let guide = await addStep(writer.token, (await createGuide(writer.token)).guideid);
  guide = await addStep(writer.token, guide.guideid);
  stepids = ownSteps(guide).map((step) => step.stepid);
  await ok(api('PUT', `/guides/${guide.guideid}/users/${operator.userid}`, { token: writer.token }));
  const form = await ok(
    api('POST', `/step_forms/${stepids[0]}`, {
      token: writer.token,
      body: {
        fields: [
          { field_type: 'Text Input', label: 'Serial number' },
          { field_type: 'Checkbox', label: 'Torque checked' },
        ],
      },
    }),
  );
  fields = Object.fromEntries(form.fields.map((field: any) => [field.field_type, field.field_revisionid]));

  const complete = await start(guide.guideid);
  entryids.complete = complete.entryid;
  await stepData(complete.entryid, {
    stepid: stepids[0],
    fields: { [fields['Text Input']]: 'SN-42', [fields.Checkbox]: 'true' },
  });
  await age(complete.entryid, 60);
  await stepData(complete.entryid, { stepid: stepids[1] });
  await age(complete.entryid, 40);
  await move(complete.entryid, 'pause');
  await age(complete.entryid, 100);
  await move(complete.entryid, 'resume');
  await age(complete.entryid, 20);
  await move(complete.entryid, 'finish');

  entryids.cancelled = (await start(guide.guideid)).entryid;
  await move(entryids.cancelled, 'cancel');

  entryids.open = (await start(guide.guideid)).entryid;
  await stepData(entryids.open, { stepid: stepids[0], fields: { [fields['Text Input']]: 'SN-43' } });
  await age(entryids.open, 30);
  await stepData(entryids.open, { stepid: stepids[1] });
  await age(entryids.open, 15);

  entryids.paused = (await start(guide.guideid)).entryid;
  await stepData(entryids.paused, { stepid: stepids[0] });
  await age(entryids.paused, 25);
  await move(entryids.paused, 'pause');
  await age(entryids.paused, 35);

  const ours = new Set(Object.values(entryids).map((entryid) => `work_log:${entryid}`));
  run = await runCrawler(workLogCrawler, httpSource(admin), { onlyUnits: (unit) => ours.has(unit) });
});

const ofEntry = (entryid: number) => (item: Record<string, unknown>) =>
  item.pk === `WORKLOG#${entryid}` || (item.entity === 'WorkLogLink' && item.entryid === entryid);

describe('work-log crawler', () => {
  it('carries ended entries, their list links and step data exactly (version and value authorship aside)', async () => {
    for (const entryid of [entryids.complete, entryids.cancelled]) {
      const { crawled, stored } = await crawledAndStored(run, ofEntry(entryid), {
        WorkLogEntry: ['version'],
        WorkLogValue: ['userid', 'date'],
      });
      // The entry, 8 list links, and (for the finished one) two values.
      expect(crawled.length).toBe(entryid === entryids.complete ? 11 : 9);
      expect(crawled).toEqual(stored);
    }
    const values = [...run.items.values()].filter(
      (item) => item.pk === `WORKLOG#${entryids.complete}` && String(item.sk).startsWith('DATA#'),
    );
    expect(values.map((item) => item.field_type).sort()).toEqual(['Checkbox', 'Text Input']);
  });

  it('rebuilds open entries so that every total reads as on the source', async () => {
    for (const entryid of [entryids.open, entryids.paused]) {
      const { crawled, stored } = await crawledAndStored(run, ofEntry(entryid), {
        WorkLogEntry: Object.keys(WORK_LOG_UNEXPOSED.WorkLogEntry),
        WorkLogValue: Object.keys(WORK_LOG_UNEXPOSED.WorkLogValue),
      });
      expect(crawled).toEqual(stored);
      const entry = run.items.get(`WORKLOG#${entryid}|ENTRY`) as unknown as WorkLogEntryRecord;
      const values = [...run.items.values()].filter(
        (item) => item.pk === `WORKLOG#${entryid}` && item.sk !== 'ENTRY',
      ) as never[];
      const source = await ok(api('GET', `/work_log/${entryid}`, { token: admin }));
      const now = Math.floor(Date.now() / 1000);
      const rebuilt = entryView({ entry, values }, now);
      // Both read at about the same moment: the totals agree within the second that may lie between.
      expect({ ...rebuilt, duration: 0, step_durations: [] }).toEqual({ ...source, duration: 0, step_durations: [] });
      expect(Math.abs(rebuilt.duration - source.duration)).toBeLessThanOrEqual(1);
      expect(rebuilt.step_durations.map((step) => step.stepid)).toEqual(
        source.step_durations.map((step: any) => step.stepid),
      );
    }
    expect(run.unexposed.map((entry) => entry.what)).toEqual(
      expect.arrayContaining(['work-log step data authorship', 'open work-log entries: timing moments']),
    );
  });

  it('moves the entry and timing counters past the ids it carried, and completes one unit per entry', () => {
    expect(run.ids.get('work_log_entry')).toBeGreaterThanOrEqual(Math.max(...Object.values(entryids)));
    expect(run.ids.get('work_log_timing')).toBeGreaterThan(0);
    expect(run.completed.sort()).toEqual(
      Object.values(entryids)
        .map((entryid) => `work_log:${entryid}`)
        .sort(),
    );
  });

  it('reports a source that refuses the work log as unexposed, without failing', async () => {
    const denied = await runCrawler(workLogCrawler, httpSource(admin, { deny: ['/work_log'] }));
    expect(denied.items.size).toBe(0);
    expect(denied.unexposed).toEqual([expect.objectContaining({ what: 'work-log entries' })]);
  });
});
