/**
 * The step-forms crawler against the test stack: current forms, every form revision and every
 * field revision (with the newest form holding it) equal the stored items attribute by
 * attribute; a prerequisite's forms stay with their own guide; a refusing source is reported.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, loginAdmin } from '../support/api.ts';
import { addStep, createGuide, ownSteps } from '../api/guide-fixtures.ts';
import { stepFormsCrawler } from '../../infra/ops/migrate/resources/step-forms.ts';
import { crawledAndStored, httpSource, runCrawler, storedPartition, type CrawlRun } from './support/crawl-harness.ts';

let admin: string;
let guideid: number;
let prerequisiteid: number;
let first: any;
let second: any;
let other: any;
let run: CrawlRun;

async function form(token: string, stepid: number, fields: unknown[], revisionid?: number) {
  const response = await api('POST', `/step_forms/${stepid}`, {
    token,
    body: { fields },
    query: revisionid ? { revisionid } : undefined,
  });
  if (response.status !== 201) throw new Error(`form: ${response.status} ${response.text}`);
  return response.body;
}

beforeAll(async () => {
  admin = await loginAdmin();
  const writer = await createUser({ privileges: ['Author'] });
  const prerequisite = await addStep(writer.token, (await createGuide(writer.token)).guideid);
  prerequisiteid = prerequisite.guideid;
  await form(writer.token, ownSteps(prerequisite)[0].stepid, [{ field_type: 'Text Input', label: 'Before' }]);
  let guide = await createGuide(writer.token, { prerequisites: [prerequisiteid] });
  guide = await addStep(writer.token, guide.guideid);
  guide = await addStep(writer.token, guide.guideid);
  guideid = guide.guideid;
  const [stepA, stepB] = ownSteps(guide).map((step) => step.stepid);
  first = await form(writer.token, stepA, [
    { field_type: 'Text Input', label: 'Serial number' },
    { field_type: 'Radios', label: 'Shift', options: '["early","late"]' },
  ]);
  // The serial field is kept as it is (same field revision); the shift field changes (a new one).
  second = await form(
    writer.token,
    stepA,
    [
      { field_guid: first.fields[0].field_guid },
      { field_guid: first.fields[1].field_guid, label: 'Shift worked' },
      { field_type: 'Checkbox', label: 'Torque checked' },
    ],
    first.form_revisionid,
  );
  other = await form(writer.token, stepB, [{ field_type: 'Text Area', label: 'Notes' }]);
  run = await runCrawler(stepFormsCrawler, httpSource(admin), {
    known: { guide: [guideid] },
  });
});

describe('step-forms crawler', () => {
  it('carries current forms, form revisions and field revisions exactly as stored', async () => {
    const { crawled, stored } = await crawledAndStored(run, () => true);
    expect(crawled).toEqual(stored);
    const count = (entity: string) => crawled.filter((item) => item.entity === entity).length;
    expect(count('StepForm')).toBe(2);
    expect(count('StepFormRevision')).toBe(3);
    // Serial (kept), shift and shift worked, torque, notes.
    expect(count('StepFormField')).toBe(5);
    expect(run.items.get(`FIELDREV#${first.fields[0].field_revisionid}|FIELD`)).toMatchObject({
      form_revisionid: second.form_revisionid,
    });
    expect(run.items.get(`FIELDREV#${first.fields[1].field_revisionid}|FIELD`)).toMatchObject({
      form_revisionid: first.form_revisionid,
    });
  });

  it("leaves the prerequisite's forms to their own guide and carries every stored form of the guide", async () => {
    expect([...run.items.values()].every((item) => item.guideid === guideid)).toBe(true);
    const current = await storedPartition(`STEPFORMS#GUIDE#${guideid}`);
    expect(current.map((item) => item.form_revisionid).sort()).toEqual(
      [second.form_revisionid, other.form_revisionid].sort(),
    );
    expect(run.ids.get('form_revision')).toBe(Math.max(second.form_revisionid, other.form_revisionid));
    expect(run.completed).toEqual([`step_forms:guide:${guideid}`]);
  });

  it('reports a source that refuses step forms as unexposed, without failing', async () => {
    const denied = await runCrawler(stepFormsCrawler, httpSource(admin, { deny: ['/step_forms'] }), {
      known: { guide: [guideid, prerequisiteid] },
    });
    expect(denied.items.size).toBe(0);
    expect(denied.unexposed).toEqual([expect.objectContaining({ what: 'step forms' })]);
  });
});
