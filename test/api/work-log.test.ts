/**
 * Work log over HTTP: every transition (legal and illegal), timing, step data rules, second
 * devices, lists and their filters, access, and delete. Elapsed time is simulated by moving an
 * entry's stored moments back (no sleeps).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { api, createUser, loginAdmin, uniqueSuffix, type TestUser } from '../support/api.ts';
import { addStep, createGuide, ownSteps } from './guide-fixtures.ts';
import { assignedTrainee, entryOf, getAssignment } from '../support/courses.ts';
import { localDb } from '../support/local-db.ts';

let admin: string;
let writer: TestUser;
let operator: TestUser;
let colleague: TestUser;
let outsider: TestUser;
let prerequisite: any;
let guide: any;
let otherGuide: any;
let stepids: number[];
let prereqStepid: number;
/** field_revisionid by field type. */
const fieldOf: Record<string, number> = {};
let prereqField: number;
let foreignField: number;

/** Simulates `seconds` passing since the entry's last event: every stored moment moves back. */
async function age(entryid: number, seconds: number): Promise<void> {
  const key = { pk: `WORKLOG#${entryid}`, sk: 'ENTRY' };
  const { Item } = await localDb().send(new GetCommand({ TableName: 'stepwise', Key: key, ConsistentRead: true }));
  const moved: Record<string, number> = {};
  for (const field of ['starttime', 'last_event', 'idle_since', 'step_since', 'endtime']) {
    if (typeof Item![field] === 'number') moved[field] = Item![field] - seconds;
  }
  const names = Object.keys(moved);
  await localDb().send(
    new UpdateCommand({
      TableName: 'stepwise',
      Key: key,
      UpdateExpression: `SET ${names.map((_, index) => `#f${index} = :v${index}`).join(', ')}`,
      ExpressionAttributeNames: Object.fromEntries(names.map((name, index) => [`#f${index}`, name])),
      ExpressionAttributeValues: Object.fromEntries(names.map((name, index) => [`:v${index}`, moved[name]])),
    }),
  );
}

async function start(token = operator.token, body: Record<string, unknown> = {}) {
  const response = await api('POST', '/work_log', {
    token,
    body: { guideid: guide.guideid, workorderid: `WO-${uniqueSuffix()}`, ...body },
  });
  if (response.status !== 201) throw new Error(`start: ${response.status} ${response.text}`);
  return response.body;
}

const move = (entryid: number, operation: string, token = operator.token) =>
  api('POST', `/work_log/${entryid}/${operation}`, { token });
const stepData = (entryid: number, body: unknown, token = operator.token) =>
  api('PUT', `/work_log/${entryid}/stepData`, { token, body });
const read = (entryid: number, token = operator.token) => api('GET', `/work_log/${entryid}`, { token });

async function form(stepid: number, fields: unknown[]) {
  const response = await api('POST', `/step_forms/${stepid}`, { token: writer.token, body: { fields } });
  if (response.status !== 201) throw new Error(`form: ${response.status} ${response.text}`);
  return response.body;
}

async function uploadDocument(user: TestUser): Promise<number> {
  const response = await api('POST', '/user/media/uploads', {
    token: user.token,
    query: { file: 'report.txt' },
    rawBody: Buffer.from('measured values'),
    headers: { 'content-type': 'application/octet-stream' },
  });
  if (response.status !== 200) throw new Error(`upload: ${response.status} ${response.text}`);
  return response.body.id;
}

beforeAll(async () => {
  admin = await loginAdmin();
  [writer, operator, colleague, outsider] = await Promise.all([
    createUser({ privileges: ['Author'] }),
    createUser(),
    createUser(),
    createUser(),
  ]);
  prerequisite = await addStep(writer.token, (await createGuide(writer.token)).guideid);
  prereqStepid = ownSteps(prerequisite)[0].stepid;
  let current = await createGuide(writer.token, { prerequisites: [prerequisite.guideid] });
  current = await addStep(writer.token, current.guideid);
  guide = await addStep(writer.token, current.guideid);
  stepids = ownSteps(guide).map((step) => step.stepid);
  otherGuide = await addStep(writer.token, (await createGuide(writer.token)).guideid);
  for (const user of [operator, colleague]) {
    for (const each of [guide, prerequisite, otherGuide]) {
      expect((await api('PUT', `/guides/${each.guideid}/users/${user.userid}`, { token: writer.token })).status).toBe(
        200,
      );
    }
  }
  const first = await form(stepids[0], [
    { field_type: 'Text Input', label: 'Serial number' },
    { field_type: 'Text Area', label: 'Notes' },
    { field_type: 'Numeric Input', label: 'Pressure' },
    { field_type: 'Checkbox', label: 'Torque checked' },
  ]);
  const second = await form(stepids[1], [
    { field_type: 'Radios', label: 'Shift', options: '["early","late"]' },
    { field_type: 'Select', label: 'Result', options: '["pass","fail"]' },
    { field_type: 'Image', label: 'Photo' },
    { field_type: 'Document', label: 'Report' },
  ]);
  for (const field of [...first.fields, ...second.fields]) fieldOf[field.field_type] = field.field_revisionid;
  prereqField = (await form(prereqStepid, [{ field_type: 'Text Input', label: 'Prerequisite check' }])).fields[0]
    .field_revisionid;
  foreignField = (await form(ownSteps(otherGuide)[0].stepid, [{ field_type: 'Text Input', label: 'Elsewhere' }]))
    .fields[0].field_revisionid;
});

describe('POST /work_log', () => {
  it('starts an entry for the caller in the real shape: started, empty work_data, timingid null', async () => {
    const entry = await start(operator.token, { workorderid: 'sh-003' });
    expect(entry).toMatchObject({
      guideid: guide.guideid,
      userid: operator.userid,
      workorderid: 'sh-003',
      endtime: null,
      cancelled: 0,
      duration: 0,
      status: 'started',
      work_data: [],
      timingid: null,
      guide_revisionid: guide.revisionid,
      operator_userid: operator.userid,
    });
    expect(Object.keys(entry).slice(0, 13)).toEqual([
      'entryid',
      'guideid',
      'userid',
      'workorderid',
      'starttime',
      'endtime',
      'max_form_revisionid',
      'cancelled',
      'guide_revisionid',
      'duration',
      'status',
      'work_data',
      'timingid',
    ]);
    // The newest form revision among the guide's and its prerequisite's forms.
    const forms = await api('GET', `/step_forms/guideid/${guide.guideid}`, { token: writer.token });
    expect(entry.max_form_revisionid).toBe(Math.max(...forms.body.map((each: any) => each.form_revisionid)));
    expect(Math.abs(entry.starttime - Date.now() / 1000)).toBeLessThan(30);
  });

  it('takes guideid and workorderid from the query string too, ids as strings and work orders as numbers', async () => {
    const viaQuery = await api('POST', '/work_log', {
      token: operator.token,
      query: { guideid: guide.guideid, workorderid: 'Q-1' },
    });
    expect(viaQuery.status).toBe(201);
    expect(viaQuery.body).toMatchObject({ guideid: guide.guideid, workorderid: 'Q-1' });
    const asStrings = await api('POST', '/work_log', {
      token: operator.token,
      body: { guideid: String(guide.guideid), workorderid: 1234 },
    });
    expect(asStrings.status).toBe(201);
    expect(asStrings.body.workorderid).toBe('1234');
  });

  it('422 without guideid or workorderid, 404 for an unknown guide, 403 without access, 401 anonymous', async () => {
    const noGuide = await api('POST', '/work_log', { token: operator.token, body: { workorderid: 'x' } });
    expect(noGuide.status).toBe(422);
    expect(noGuide.body.errors[0]).toMatchObject({ field: 'guideid', code: 'missing_field' });
    const noOrder = await api('POST', '/work_log', {
      token: operator.token,
      body: { guideid: guide.guideid, workorderid: '  ' },
    });
    expect(noOrder.body.errors[0]).toMatchObject({ field: 'workorderid', code: 'missing_field' });
    expect(
      (await api('POST', '/work_log', { token: operator.token, body: { guideid: 999999999, workorderid: 'x' } }))
        .status,
    ).toBe(404);
    expect(
      (await api('POST', '/work_log', { token: outsider.token, body: { guideid: guide.guideid, workorderid: 'x' } }))
        .status,
    ).toBe(403);
    expect((await api('POST', '/work_log', { body: { guideid: guide.guideid, workorderid: 'x' } })).status).toBe(401);
  });
});

/** Brings a new entry to a status through legal moves. */
async function entryIn(status: string): Promise<number> {
  const { entryid } = await start();
  const path: Record<string, string[]> = {
    started: [],
    paused: ['pause'],
    suspended: ['suspend'],
    complete: ['finish'],
    cancelled: ['cancel'],
  };
  for (const operation of path[status]) expect((await move(entryid, operation)).status).toBe(200);
  return entryid;
}

const TABLE: Record<string, Record<string, string>> = {
  started: {
    pause: 'paused',
    resume: 409,
    suspend: 'suspended',
    assume: 409,
    finish: 'complete',
    cancel: 'cancelled',
  } as any,
  paused: { pause: 409, resume: 'started', suspend: 409, assume: 409, finish: 'complete', cancel: 'cancelled' } as any,
  suspended: {
    pause: 409,
    resume: 409,
    suspend: 409,
    assume: 'started',
    finish: 'complete',
    cancel: 'cancelled',
  } as any,
  complete: { pause: 409, resume: 409, suspend: 409, assume: 409, finish: 409, cancel: 409 } as any,
  cancelled: { pause: 409, resume: 409, suspend: 409, assume: 409, finish: 409, cancel: 409 } as any,
};

describe('transitions over HTTP (docs/work-log.md table)', () => {
  for (const [status, moves] of Object.entries(TABLE)) {
    for (const [operation, expected] of Object.entries(moves)) {
      it(`${operation} from ${status}: ${expected === (409 as any) ? '409, nothing changes' : expected}`, async () => {
        const entryid = await entryIn(status);
        const before = (await read(entryid)).body;
        const response = await move(entryid, operation);
        if (expected === (409 as any)) {
          expect(response.status).toBe(409);
          expect(response.body.message).toMatch(/\w+ \w+/);
          expect(response.body).toMatchObject({ entryid, status });
          const after = (await read(entryid)).body;
          expect({ ...after, duration: 0, paused_duration: 0 }).toEqual({ ...before, duration: 0, paused_duration: 0 });
        } else {
          expect(response.status).toBe(200);
          expect(response.body).toMatchObject({
            entryid,
            status: expected,
            cancelled: expected === 'cancelled' ? 1 : 0,
          });
          expect(response.body.timingid).toBeGreaterThan(before.timingid ?? 0);
          if (expected === 'complete' || expected === 'cancelled')
            expect(response.body.endtime).toBeGreaterThanOrEqual(before.starttime);
          else expect(response.body.endtime).toBeNull();
          expect((await read(entryid)).body.status).toBe(expected);
        }
      });
    }
  }

  it('404 for an unknown entry; 403 for anyone but the user working it (cancel: also Admins)', async () => {
    for (const operation of ['pause', 'resume', 'suspend', 'assume', 'finish', 'cancel']) {
      expect((await move(999999999, operation)).status).toBe(404);
    }
    const entryid = await entryIn('started');
    for (const operation of ['pause', 'suspend', 'finish', 'cancel'])
      expect((await move(entryid, operation, colleague.token)).status).toBe(403);
    expect((await move(entryid, 'pause', admin)).status).toBe(403);
    expect((await move(entryid, 'cancel', admin)).status).toBe(200);
  });
});

describe('timing', () => {
  it('one step active at a time; pause time counts up and is not working time; resume returns to the step', async () => {
    const { entryid } = await start();
    expect((await stepData(entryid, { stepid: stepids[0] })).status).toBe(200);
    let entry = (await read(entryid)).body;
    expect(entry.active_stepid).toBe(stepids[0]);
    const firstTiming = entry.timingid;
    expect(firstTiming).toBeGreaterThan(0);
    await age(entryid, 60);
    expect((await stepData(entryid, { stepid: stepids[1], lasttimingid: firstTiming })).status).toBe(200);
    await age(entryid, 40);
    const paused = await move(entryid, 'pause');
    expect(paused.body).toMatchObject({ status: 'paused', active_stepid: null });
    await age(entryid, 100);
    entry = (await read(entryid)).body;
    expect(entry.paused_duration).toBeGreaterThanOrEqual(100);
    expect(entry.duration).toBeLessThan(110);
    await age(entryid, 50);
    // Pause time keeps counting up while paused.
    expect((await read(entryid)).body.paused_duration).toBeGreaterThanOrEqual(150);
    const resumed = await move(entryid, 'resume');
    expect(resumed.body).toMatchObject({ status: 'started', active_stepid: stepids[1] });
    await age(entryid, 20);
    const finished = await move(entryid, 'finish');
    expect(finished.body.status).toBe('complete');
    expect(finished.body.duration).toBeGreaterThanOrEqual(120);
    expect(finished.body.duration).toBeLessThan(125);
    expect(finished.body.paused_duration).toBeGreaterThanOrEqual(150);
    expect(finished.body.paused_duration).toBeLessThan(155);
    expect(finished.body.duration + finished.body.paused_duration).toBe(
      finished.body.endtime - finished.body.starttime,
    );
    const perStep = Object.fromEntries(finished.body.step_durations.map((step: any) => [step.stepid, step.duration]));
    expect(perStep[stepids[0]]).toBeGreaterThanOrEqual(60);
    expect(perStep[stepids[1]]).toBeGreaterThanOrEqual(60);
    // An ended entry's totals no longer move.
    await age(entryid, 500);
    const later = (await read(entryid)).body;
    expect(later.duration + later.paused_duration).toBe(later.endtime - later.starttime);
    expect(later.duration).toBe(finished.body.duration);
  });

  it('finishing records the guide revision at the end', async () => {
    const { entryid, guide_revisionid } = await start();
    const current = (await api('GET', `/guides/${guide.guideid}`, { token: writer.token })).body;
    const edited = await api('PATCH', `/guides/${guide.guideid}`, {
      token: writer.token,
      query: { revisionid: current.revisionid },
      body: { summary: `Edited ${uniqueSuffix()}` },
    });
    expect(edited.status).toBe(200);
    guide = edited.body;
    const finished = await move(entryid, 'finish');
    expect(finished.body.guide_revisionid).toBe(edited.body.revisionid);
    expect(finished.body.guide_revisionid).not.toBe(guide_revisionid);
  });
});

describe('suspend and assume', () => {
  it('a suspended entry is listed for the guide, assumed by a colleague who works it from then on', async () => {
    const { entryid } = await start();
    await stepData(entryid, { stepid: stepids[1], fields: { [fieldOf.Radios]: 'late' } });
    expect((await move(entryid, 'suspend')).status).toBe(200);
    await age(entryid, 3600);

    const listed = await api('GET', `/work_log/${guide.guideid}/suspended`, {
      token: colleague.token,
      query: { limit: 200 },
    });
    expect(listed.status).toBe(200);
    expect(listed.body.results.map((entry: any) => entry.entryid)).toContain(entryid);
    expect(
      listed.body.results.every((entry: any) => entry.status === 'suspended' && entry.guideid === guide.guideid),
    ).toBe(true);
    expect((await read(entryid, colleague.token)).status).toBe(200);
    expect((await api('GET', `/work_log/${guide.guideid}/suspended`, { token: outsider.token })).status).toBe(403);
    expect((await api('GET', '/work_log/999999999/suspended', { token: colleague.token })).status).toBe(404);
    expect((await move(entryid, 'assume', outsider.token)).status).toBe(403);

    const assumed = await move(entryid, 'assume', colleague.token);
    expect(assumed.status).toBe(200);
    expect(assumed.body).toMatchObject({
      status: 'started',
      userid: operator.userid,
      operator_userid: colleague.userid,
      active_stepid: stepids[1],
    });
    expect(assumed.body.paused_duration).toBeGreaterThanOrEqual(3600);
    expect(assumed.body.duration).toBeLessThan(60);
    expect(assumed.body.work_data).toEqual([
      { label: 'Shift', value: 'late', field_revisionid: fieldOf.Radios, stepid: stepids[1] },
    ]);
    // The original user no longer works it.
    expect((await move(entryid, 'pause')).status).toBe(403);
    expect((await stepData(entryid, { fields: {} })).status).toBe(403);
    const after = await api('GET', `/work_log/${guide.guideid}/suspended`, {
      token: colleague.token,
      query: { limit: 200 },
    });
    expect(after.body.results.map((entry: any) => entry.entryid)).not.toContain(entryid);
    expect((await move(entryid, 'finish', colleague.token)).body.status).toBe('complete');
  });
});

describe('PUT /work_log/{entryid}/stepData', () => {
  it('checks every value against its field, answers exactly 200 without a body, and outputs strings', async () => {
    const { entryid } = await start();
    const documentid = await uploadDocument(operator);
    const saved = await stepData(entryid, {
      fields: {
        [fieldOf['Text Input']]: 'SN-42',
        [fieldOf['Text Area']]: 'first line\nsecond line',
        [fieldOf['Numeric Input']]: 3.5,
        [fieldOf.Checkbox]: true,
        [fieldOf.Radios]: 'early',
        [fieldOf.Select]: 'fail',
        [fieldOf.Document]: documentid,
        [prereqField]: 'done',
      },
    });
    expect(saved.status).toBe(200);
    expect(saved.text).toBe('');
    const entry = (await read(entryid)).body;
    const values = Object.fromEntries(entry.work_data.map((row: any) => [row.field_revisionid, row.value]));
    expect(values).toEqual({
      [fieldOf['Text Input']]: 'SN-42',
      [fieldOf['Text Area']]: 'first line\nsecond line',
      [fieldOf['Numeric Input']]: '3.5',
      [fieldOf.Checkbox]: '1',
      [fieldOf.Radios]: 'early',
      [fieldOf.Select]: 'fail',
      [fieldOf.Document]: String(documentid),
      [prereqField]: 'done',
    });
    expect(entry.work_data.map((row: any) => row.field_revisionid)).toEqual(
      [...entry.work_data.map((row: any) => row.field_revisionid)].sort((a, b) => a - b),
    );
    expect(entry.work_data.find((row: any) => row.field_revisionid === prereqField)).toMatchObject({
      label: 'Prerequisite check',
      stepid: prereqStepid,
    });

    // Merged per field; a checkbox false is "0"; null removes a value.
    expect((await stepData(entryid, { fields: { [fieldOf.Checkbox]: 0, [fieldOf['Text Area']]: null } })).status).toBe(
      200,
    );
    const merged = (await read(entryid)).body.work_data;
    expect(merged.find((row: any) => row.field_revisionid === fieldOf.Checkbox).value).toBe('0');
    expect(merged.find((row: any) => row.field_revisionid === fieldOf['Text Area'])).toBeUndefined();
    expect(merged.find((row: any) => row.field_revisionid === fieldOf['Text Input']).value).toBe('SN-42');
  });

  it('422 names every bad value and saves none of them', async () => {
    const { entryid } = await start();
    const othersDocument = await uploadDocument(colleague);
    const ownDocument = await uploadDocument(operator);
    const response = await stepData(entryid, {
      fields: {
        [fieldOf['Text Input']]: 'two\nlines',
        [fieldOf['Numeric Input']]: 'twelve',
        [fieldOf.Checkbox]: 'yes',
        [fieldOf.Select]: 'maybe',
        [fieldOf.Document]: othersDocument,
        [fieldOf.Image]: ownDocument,
        [foreignField]: 'x',
        '999999999': 'x',
        abc: 'x',
        [fieldOf['Text Area']]: 'would be fine',
      },
    });
    expect(response.status).toBe(422);
    const byField = Object.fromEntries(response.body.errors.map((error: any) => [error.field, error.code]));
    expect(byField).toEqual({
      [`fields.${fieldOf['Text Input']}`]: 'line_breaks',
      [`fields.${fieldOf['Numeric Input']}`]: 'not_numeric',
      [`fields.${fieldOf.Checkbox}`]: 'not_boolean',
      [`fields.${fieldOf.Select}`]: 'not_an_option',
      [`fields.${fieldOf.Document}`]: 'not_owned_media',
      [`fields.${fieldOf.Image}`]: 'not_owned_media',
      [`fields.${foreignField}`]: 'not_in_guide',
      'fields.999999999': 'unknown_field',
      'fields.abc': 'invalid_field_revisionid',
    });
    expect((await read(entryid)).body.work_data).toEqual([]);
    expect((await stepData(entryid, { stepid: ownSteps(otherGuide)[0].stepid })).body.errors[0]).toMatchObject({
      field: 'stepid',
      code: 'not_in_guide',
    });
    expect((await stepData(entryid, {})).body.errors[0]).toMatchObject({ field: 'fields', code: 'missing_field' });
  });

  it('refuses data on suspended and ended entries and step moves while paused (409 with the entry)', async () => {
    const paused = await entryIn('paused');
    expect((await stepData(paused, { fields: { [fieldOf['Text Input']]: 'while paused' } })).status).toBe(200);
    const move409 = await stepData(paused, { stepid: stepids[0] });
    expect(move409.status).toBe(409);
    expect(move409.body).toMatchObject({ entryid: paused, status: 'paused', active_stepid: null });
    for (const status of ['suspended', 'complete', 'cancelled']) {
      const entryid = await entryIn(status);
      const response = await stepData(entryid, { fields: { [fieldOf['Text Input']]: 'late' } });
      expect(response.status).toBe(409);
      expect(response.body).toMatchObject({ entryid, status, work_data: [] });
    }
    expect((await stepData(999999999, { fields: {} })).status).toBe(404);
  });

  it('a second device with a stale lasttimingid gets 409 with the current state; no step data is lost', async () => {
    const { entryid } = await start();
    // Device A moves to a step and saves a value.
    expect(
      (
        await stepData(entryid, {
          stepid: stepids[0],
          lasttimingid: null,
          fields: { [fieldOf['Text Input']]: 'from A' },
        })
      ).status,
    ).toBe(200);
    const afterA = (await read(entryid)).body;
    // Device B still believes nothing happened.
    const stale = await stepData(entryid, { lasttimingid: null, fields: { [fieldOf['Text Input']]: 'from B' } });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ entryid, timingid: afterA.timingid, active_stepid: stepids[0] });
    expect(stale.body.work_data).toEqual(afterA.work_data);
    expect(stale.body.message).toMatch(/stale/);
    expect((await read(entryid)).body.work_data).toEqual(afterA.work_data);
    // B catches up and saves another field; A saves concurrently: both values land.
    const [fromB, fromA] = await Promise.all([
      stepData(entryid, { lasttimingid: afterA.timingid, fields: { [fieldOf['Numeric Input']]: '7' } }),
      stepData(entryid, { lasttimingid: afterA.timingid, fields: { [fieldOf.Checkbox]: false } }),
    ]);
    expect([fromB.status, fromA.status]).toEqual([200, 200]);
    const values = Object.fromEntries(
      (await read(entryid)).body.work_data.map((row: any) => [row.field_revisionid, row.value]),
    );
    expect(values).toEqual({
      [fieldOf['Text Input']]: 'from A',
      [fieldOf['Numeric Input']]: '7',
      [fieldOf.Checkbox]: '0',
    });
    // A pause from A makes B's timingid stale again.
    await move(entryid, 'pause');
    expect(
      (await stepData(entryid, { lasttimingid: afterA.timingid, fields: { [fieldOf['Numeric Input']]: '8' } })).status,
    ).toBe(409);
  });
});

describe('GET /work_log', () => {
  it('filters by guideid, userid and workorderid in any combination, newest first, paged, in {"results": [...]}', async () => {
    const order = `WO-${uniqueSuffix()}`;
    const a = await start(operator.token, { workorderid: order });
    const b = await start(colleague.token, { workorderid: order });
    const c = await start(operator.token, { workorderid: order, guideid: otherGuide.guideid });
    const d = await start(operator.token, { workorderid: `${order}-other` });
    const ids = async (query: Record<string, string | number>, token = admin) => {
      const response = await api('GET', '/work_log', { token, query: { limit: 200, ...query } });
      expect(response.status).toBe(200);
      expect(Object.keys(response.body)).toEqual(['results']);
      return response.body.results.map((entry: any) => entry.entryid);
    };
    expect(await ids({ workorderid: order })).toEqual([c.entryid, b.entryid, a.entryid]);
    expect(await ids({ workorderid: order, guideid: guide.guideid })).toEqual([b.entryid, a.entryid]);
    expect(await ids({ workorderid: order, userid: operator.userid })).toEqual([c.entryid, a.entryid]);
    expect(await ids({ workorderid: order, userid: operator.userid, guideid: guide.guideid })).toEqual([a.entryid]);
    expect((await ids({ userid: operator.userid, guideid: guide.guideid })).slice(0, 2)).toEqual([
      d.entryid,
      a.entryid,
    ]);
    const allOfGuide = await ids({ guideid: otherGuide.guideid });
    expect(allOfGuide[0]).toBe(c.entryid);
    expect((await ids({}))[0]).toBe(d.entryid);
    // Pages: offset advances by the page size.
    expect(await ids({ workorderid: order, limit: 2 })).toEqual([c.entryid, b.entryid]);
    expect(await ids({ workorderid: order, limit: 2, offset: 2 })).toEqual([a.entryid]);
    expect(await ids({ workorderid: order, limit: 2, offset: 4 })).toEqual([]);
    const listed = await api('GET', '/work_log', {
      token: admin,
      query: { workorderid: order, guideid: guide.guideid, userid: operator.userid },
    });
    expect(listed.body.results[0]).toMatchObject({
      entryid: a.entryid,
      workorderid: order,
      status: 'started',
      work_data: [],
    });
  });

  it("users see the entries they started; the guide's editors see everyone's on that guide; another userid is 403", async () => {
    const order = `WO-${uniqueSuffix()}`;
    const mine = await start(operator.token, { workorderid: order });
    const theirs = await start(colleague.token, { workorderid: order });
    const asOperator = await api('GET', '/work_log', { token: operator.token, query: { workorderid: order } });
    expect(asOperator.body.results.map((entry: any) => entry.entryid)).toEqual([mine.entryid]);
    expect((await api('GET', '/work_log', { token: operator.token, query: { userid: colleague.userid } })).status).toBe(
      403,
    );
    const asEditor = await api('GET', '/work_log', {
      token: writer.token,
      query: { workorderid: order, guideid: guide.guideid },
    });
    expect(asEditor.body.results.map((entry: any) => entry.entryid)).toEqual([theirs.entryid, mine.entryid]);
    expect(
      (await api('GET', '/work_log', { token: writer.token, query: { workorderid: order } })).body.results,
    ).toEqual([]);
    expect((await api('GET', '/work_log')).status).toBe(401);
  });
});

describe('GET and DELETE /work_log/{entryid}', () => {
  it("is read by its creator, Admins and the guide's editors; others 403", async () => {
    const { entryid } = await start();
    expect((await read(entryid)).status).toBe(200);
    expect((await read(entryid, admin)).status).toBe(200);
    expect((await read(entryid, writer.token)).status).toBe(200);
    expect((await read(entryid, colleague.token)).status).toBe(403);
    expect((await read(entryid, outsider.token)).status).toBe(403);
    expect((await read(999999999)).status).toBe(404);
  });

  it('DELETE removes the entry and all its data (204); others may not', async () => {
    const order = `WO-${uniqueSuffix()}`;
    const { entryid } = await start(operator.token, { workorderid: order });
    await stepData(entryid, { fields: { [fieldOf['Text Input']]: 'gone soon', [fieldOf.Checkbox]: 1 } });
    expect((await api('DELETE', `/work_log/${entryid}`, { token: colleague.token })).status).toBe(403);
    expect((await api('DELETE', `/work_log/${entryid}`, { token: operator.token })).status).toBe(204);
    expect((await read(entryid)).status).toBe(404);
    expect((await api('DELETE', `/work_log/${entryid}`, { token: operator.token })).status).toBe(404);
    const left = await localDb().send(
      new QueryCommand({
        TableName: 'stepwise',
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': `WORKLOG#${entryid}` },
        ConsistentRead: true,
      }),
    );
    expect(left.Items).toEqual([]);
    expect((await api('GET', '/work_log', { token: admin, query: { workorderid: order } })).body.results).toEqual([]);
    for (const operation of ['pause', 'finish']) expect((await move(entryid, operation)).status).toBe(404);
    const byAdmin = await start();
    expect((await api('DELETE', `/work_log/${byAdmin.entryid}`, { token: admin })).status).toBe(204);
  });
});

describe('course stages', () => {
  it('starting a work log on a stage guide starts the stage; finishing completes it with work_log_entryid', async () => {
    const { guide: stage, trainee, assignment } = await assignedTrainee();
    expect((await api('PUT', `/guides/${stage.guideid}/users/${trainee.userid}`, { token: admin })).status).toBe(200);
    const started = await start(trainee.token, { guideid: stage.guideid });
    const during = entryOf((await getAssignment(assignment.course_assignmentid)).body, trainee.userid);
    expect(during.stage_status).toEqual({ status: 'started', reason: 'doc_in_progress' });
    expect(during.last_completion).toMatchObject({ end_date: null, work_log_entryid: null });

    // Cancelling another run completes nothing.
    const other = await start(trainee.token, { guideid: stage.guideid });
    expect((await move(other.entryid, 'cancel', trainee.token)).status).toBe(200);
    expect(
      entryOf((await getAssignment(assignment.course_assignmentid)).body, trainee.userid).stage_status.status,
    ).toBe('started');

    const finished = await move(started.entryid, 'finish', trainee.token);
    expect(finished.status).toBe(200);
    const after = entryOf((await getAssignment(assignment.course_assignmentid)).body, trainee.userid);
    expect(after.stage_status).toEqual({ status: 'completed', reason: 'completed' });
    expect(after.last_completion).toMatchObject({
      work_log_entryid: started.entryid,
      assignee_userid: trainee.userid,
      course_stage_doc_revisionid: finished.body.guide_revisionid,
    });
    expect(after.last_completion.end_date).toBe(finished.body.endtime);
  });
});
