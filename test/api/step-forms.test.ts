/** Step forms over HTTP: revisions, field identity, type rules, lookups and access. */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, type TestUser } from '../support/api.ts';
import { addStep, createGuide, ownSteps, publish } from './guide-fixtures.ts';

let writer: TestUser;
let reader: TestUser;
let outsider: TestUser;
let guide: any;
let stepids: number[];

const post = (stepid: number, body: unknown, token = writer.token, query?: Record<string, string | number>) =>
  api('POST', `/step_forms/${stepid}`, { token, body, query });

const BASE_FIELDS = [
  { field_type: 'Text Input', label: 'Serial number', placeholder: 'SN-0000', textarea: 'ignored by Text Input' },
  { field_type: 'Text Area', label: 'Notes', placeholder: 'ignored by Text Area', textarea: 'Line one\nLine two' },
  { field_type: 'Checkbox', label: 'Torque checked', placeholder: 1 },
  { field_type: 'Select', label: 'Result', options: '["pass","fail"]' },
];

async function aGuideWithSteps(count: number, body: Record<string, unknown> = {}) {
  let current = await createGuide(writer.token, body);
  for (let index = 0; index < count; index++) current = await addStep(writer.token, current.guideid);
  return current;
}

beforeAll(async () => {
  [writer, reader, outsider] = await Promise.all([createUser({ privileges: ['Author'] }), createUser(), createUser()]);
  guide = await aGuideWithSteps(3);
  stepids = ownSteps(guide).map((step) => step.stepid);
  expect((await api('PUT', `/guides/${guide.guideid}/users/${reader.userid}`, { token: writer.token })).status).toBe(
    200,
  );
});

describe('POST /step_forms/{stepid}', () => {
  it('saves a form revision; attributes a type does not use are dropped', async () => {
    const saved = await post(stepids[0], { fields: BASE_FIELDS });
    expect(saved.status).toBe(201);
    expect(saved.body).toMatchObject({
      stepid: stepids[0],
      guideid: guide.guideid,
      userid: writer.userid,
      previous_form_revisionid: null,
    });
    expect(saved.body.form_revisionid).toBeGreaterThan(0);
    expect(saved.body.fields).toEqual([
      expect.objectContaining({
        field_type: 'Text Input',
        label: 'Serial number',
        placeholder: 'SN-0000',
        textarea: '',
        options: null,
        orderby: 0,
      }),
      expect.objectContaining({ field_type: 'Text Area', placeholder: '', textarea: 'Line one\nLine two', orderby: 1 }),
      expect.objectContaining({ field_type: 'Checkbox', placeholder: '1', orderby: 2 }),
      expect.objectContaining({ field_type: 'Select', options: '["pass","fail"]', placeholder: '' }),
    ]);
    const ids = saved.body.fields.map((field: any) => field.field_revisionid);
    expect(new Set(ids).size).toBe(4);
    expect(new Set(saved.body.fields.map((field: any) => field.field_guid)).size).toBe(4);

    const read = await api('GET', `/step_forms/stepid/${stepids[0]}`, { token: reader.token });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(saved.body);
  });

  it('keeps field_guid across revisions and changes field_revisionid only for a changed field', async () => {
    const first = (await post(stepids[1], { fields: BASE_FIELDS })).body;
    const [serial, notes, checkbox, select] = first.fields;
    // The client posts back what it read: unchanged, changed, omitted attributes, a removal and a new field.
    const second = await post(stepids[1], {
      fields: [
        select,
        { ...serial },
        { field_guid: checkbox.field_guid, label: 'Torque checked twice' },
        { field_type: 'Radios', label: 'Shift', options: ['early', 'late'] },
      ],
    });
    expect(second.status).toBe(201);
    const fields = second.body.fields;
    expect(second.body.form_revisionid).toBeGreaterThan(first.form_revisionid);
    expect(second.body.previous_form_revisionid).toBe(first.form_revisionid);
    expect(fields[0]).toMatchObject({
      field_guid: select.field_guid,
      field_revisionid: select.field_revisionid,
      orderby: 0,
    });
    expect(fields[1]).toMatchObject({
      field_guid: serial.field_guid,
      field_revisionid: serial.field_revisionid,
      orderby: 1,
    });
    expect(fields[2]).toMatchObject({
      field_guid: checkbox.field_guid,
      field_type: 'Checkbox',
      placeholder: '1',
      label: 'Torque checked twice',
    });
    expect(fields[2].field_revisionid).not.toBe(checkbox.field_revisionid);
    expect(fields[3]).toMatchObject({ field_type: 'Radios', options: '["early","late"]' });
    expect([serial, notes, checkbox, select].map((field: any) => field.field_guid)).not.toContain(fields[3].field_guid);
    expect(fields.map((field: any) => field.field_guid)).not.toContain(notes.field_guid);

    // Old revisions stay readable, by form revision and by any of their field revisions.
    const old = await api('GET', `/step_forms/form_revisionid/${first.form_revisionid}`, { token: reader.token });
    expect(old.status).toBe(200);
    expect(old.body).toEqual(first);
    const byOldCheckbox = await api('GET', `/step_forms/field_revisionid/${checkbox.field_revisionid}`, {
      token: reader.token,
    });
    expect(byOldCheckbox.body.form_revisionid).toBe(first.form_revisionid);
    const byRemoved = await api('GET', `/step_forms/field_revisionid/${notes.field_revisionid}`, {
      token: reader.token,
    });
    expect(byRemoved.body.form_revisionid).toBe(first.form_revisionid);
    // A field kept by the second save resolves to the newest form containing it: the same answer for both kept fields.
    const byKept = await api('GET', `/step_forms/field_revisionid/${serial.field_revisionid}`, { token: reader.token });
    const byOtherKept = await api('GET', `/step_forms/field_revisionid/${select.field_revisionid}`, {
      token: reader.token,
    });
    expect(byKept.body).toEqual(second.body);
    expect(byOtherKept.body).toEqual(second.body);
  });

  it('422 names every missing or invalid field attribute', async () => {
    const before = await api('GET', `/step_forms/stepid/${stepids[0]}`, { token: writer.token });
    const response = await post(stepids[0], {
      fields: [
        { label: 'No type' },
        { field_type: 'Text Input' },
        { field_type: 'Radios', label: 'No options' },
        { field_type: 'Select', label: 'Bad JSON', options: '[pass' },
        { field_type: 'Select', label: 'Empty', options: '[]' },
        { field_type: 'Checkbox', label: 'Odd default', placeholder: '2' },
        { field_type: 'Text Input', label: 'Two lines', placeholder: 'a\nb' },
        { field_type: 'Text Input', label: 'Line\nbreak' },
      ],
    });
    expect(response.status).toBe(422);
    const named = response.body.errors.map((error: any) => `${error.field}:${error.code}`);
    expect(named).toEqual([
      'fields.0.field_type:missing_field',
      'fields.1.label:missing_field',
      'fields.2.options:missing_field',
      'fields.3.options:invalid_options',
      'fields.4.options:invalid_options',
      'fields.5.placeholder:invalid_placeholder',
      'fields.6.placeholder:invalid_placeholder',
      'fields.7.label:invalid_label',
    ]);
    expect((await post(stepids[0], { fields: [{ field_type: 'Dropdown', label: 'x' }] })).body.errors[0]).toMatchObject(
      { field: 'fields.0.field_type' },
    );
    expect((await post(stepids[0], {})).body.errors[0]).toMatchObject({ field: 'fields', code: 'missing_field' });
    const twice = await post(stepids[0], {
      fields: [
        { field_guid: 'same', field_type: 'Checkbox', label: 'a' },
        { field_guid: 'same', field_type: 'Checkbox', label: 'b' },
      ],
    });
    expect(twice.body.errors[0]).toMatchObject({ field: 'fields.1.field_guid', code: 'duplicate_field' });
    // Nothing was saved.
    expect((await api('GET', `/step_forms/stepid/${stepids[0]}`, { token: writer.token })).body).toEqual(before.body);
  });

  it('?revisionid= is checked when given: 409 with the current form when stale', async () => {
    const first = (await post(stepids[2], { fields: [{ field_type: 'Numeric Input', label: 'Pressure' }] })).body;
    const second = await post(stepids[2], { fields: first.fields }, writer.token, {
      revisionid: first.form_revisionid,
    });
    expect(second.status).toBe(201);
    expect(second.body.fields[0].field_revisionid).toBe(first.fields[0].field_revisionid);
    const stale = await post(stepids[2], { fields: [] }, writer.token, { revisionid: first.form_revisionid });
    expect(stale.status).toBe(409);
    expect(stale.body).toEqual(second.body);
  });

  it('of concurrent saves naming one revision exactly one wins; without revisionid every save lands in a chain', async () => {
    const target = await aGuideWithSteps(1);
    const stepid = ownSteps(target)[0].stepid;
    const base = (await post(stepid, { fields: [{ field_type: 'Checkbox', label: 'Base' }] })).body;
    const guarded = await Promise.all(
      Array.from({ length: 6 }, (_, index) =>
        post(
          stepid,
          { fields: [...base.fields, { field_type: 'Checkbox', label: `Guarded ${index}` }] },
          writer.token,
          { revisionid: base.form_revisionid },
        ),
      ),
    );
    expect(guarded.map((response) => response.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);

    const unguarded = await Promise.all(
      Array.from({ length: 5 }, (_, index) =>
        post(stepid, { fields: [{ ...base.fields[0] }, { field_type: 'Text Input', label: `Free ${index}` }] }),
      ),
    );
    expect(unguarded.every((response) => response.status === 201)).toBe(true);
    // Each save replaced exactly the form before it, and the kept field kept its identity throughout.
    const revisions = unguarded.map((response) => response.body);
    const previous = new Set(revisions.map((form) => form.previous_form_revisionid));
    expect(previous.size).toBe(5);
    for (const form of revisions) expect(form.fields[0].field_revisionid).toBe(base.fields[0].field_revisionid);
  });

  it('404 for an unknown step; 403 for someone who may not edit the guide; 401 anonymous', async () => {
    expect((await post(999999999, { fields: [] })).status).toBe(404);
    expect((await post(stepids[0], { fields: [] }, reader.token)).status).toBe(403);
    expect((await post(stepids[0], { fields: [] }, outsider.token)).status).toBe(403);
    expect((await api('POST', `/step_forms/${stepids[0]}`, { body: { fields: [] } })).status).toBe(401);
  });
});

describe('GET /step_forms lookups', () => {
  it('a step without a form is 404; unknown ids are 404', async () => {
    const bare = await aGuideWithSteps(1);
    expect((await api('GET', `/step_forms/stepid/${ownSteps(bare)[0].stepid}`, { token: writer.token })).status).toBe(
      404,
    );
    for (const path of ['stepid', 'form_revisionid', 'field_revisionid', 'guideid']) {
      expect((await api('GET', `/step_forms/${path}/999999999`, { token: writer.token })).status).toBe(404);
    }
  });

  it('by guide: the forms of its steps and of its prerequisite guides, steps without a form left out', async () => {
    const prerequisite = await aGuideWithSteps(2);
    const prereqStep = ownSteps(prerequisite)[0].stepid;
    const prereqForm = (await post(prereqStep, { fields: [{ field_type: 'Image', label: 'Photo of the part' }] })).body;
    const main = await aGuideWithSteps(2, { prerequisites: [prerequisite.guideid] });
    const mainStep = ownSteps(main)[1].stepid;
    const mainForm = (await post(mainStep, { fields: [{ field_type: 'Document', label: 'Test report' }] })).body;

    const listed = await api('GET', `/step_forms/guideid/${main.guideid}`, { token: writer.token });
    expect(listed.status).toBe(200);
    expect(listed.body.map((form: any) => form.form_revisionid).sort()).toEqual(
      [prereqForm.form_revisionid, mainForm.form_revisionid].sort(),
    );
    expect((await api('GET', `/step_forms/guideid/${prerequisite.guideid}`, { token: writer.token })).body).toEqual([
      prereqForm,
    ]);
  });

  it('follows the guide: private forms 401 anonymous and 403 to outsiders; public guides readable by any signed-in user', async () => {
    const paths = [`/step_forms/stepid/${stepids[0]}`, `/step_forms/guideid/${guide.guideid}`];
    const form = (await api('GET', paths[0], { token: writer.token })).body;
    paths.push(
      `/step_forms/form_revisionid/${form.form_revisionid}`,
      `/step_forms/field_revisionid/${form.fields[0].field_revisionid}`,
    );
    for (const path of paths) {
      expect((await api('GET', path)).status, path).toBe(401);
      expect((await api('GET', path, { token: outsider.token })).status, path).toBe(403);
      expect((await api('GET', path, { token: reader.token })).status, path).toBe(200);
    }
    const open = await aGuideWithSteps(1);
    const openStep = ownSteps(open)[0].stepid;
    await post(openStep, { fields: [{ field_type: 'Video', label: 'Clip' }] });
    await publish(writer.token, (await api('GET', `/guides/${open.guideid}`, { token: writer.token })).body);
    // A private site (the default) wants a token even here: anonymous readers are shown in site-access.test.ts.
    expect((await api('GET', `/step_forms/stepid/${openStep}`)).status).toBe(401);
    expect((await api('GET', `/step_forms/stepid/${openStep}`, { token: outsider.token })).status).toBe(200);
  });
});
