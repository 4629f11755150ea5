/**
 * Client-made ids (issue 30 §2, decision 224): `client_guid` on creates makes one record however
 * often it is sent; the same request answers it (200), another is 409; lists find it by guid.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, type TestUser, uniqueSuffix } from '../support/api.ts';
import { addStep, createGuide, ownSteps } from './guide-fixtures.ts';

let writer: TestUser;
let operator: TestUser;
let guide: { guideid: number; steps: any[] };
let fieldid: string;

beforeAll(async () => {
  [writer, operator] = await Promise.all([createUser({ privileges: ['Author'] }), createUser()]);
  guide = await addStep(writer.token, (await createGuide(writer.token)).guideid);
  const granted = await api('PUT', `/guides/${guide.guideid}/users/${operator.userid}`, { token: writer.token });
  expect(granted.status).toBe(200);
  const stepid = ownSteps(guide)[0].stepid;
  const form = await api('POST', `/step_forms/${stepid}`, {
    token: writer.token,
    body: { fields: [{ field_type: 'Text Input', label: 'Serial number' }] },
  });
  expect(form.status).toBe(201);
  fieldid = String(form.body.fields[0].field_revisionid);
});

const entries = async (query: Record<string, string | number>) =>
  (await api('GET', '/work_log', { token: operator.token, query })).body.results as Array<{ entryid: number }>;

describe('client_guid on work log entries', () => {
  it('makes one entry: 201, then 200 with it for the same request, 409 for another', async () => {
    const client_guid = randomUUID();
    const workorderid = `WO-${uniqueSuffix()}`;
    const body = { guideid: guide.guideid, workorderid, client_guid };
    const first = await api('POST', '/work_log', { token: operator.token, body });
    expect(first.status).toBe(201);
    // Upper case is the same guid.
    const again = await api('POST', '/work_log', {
      token: operator.token,
      body: { ...body, client_guid: client_guid.toUpperCase() },
    });
    expect(again.status).toBe(200);
    expect(again.body.entryid).toBe(first.body.entryid);
    const other = await api('POST', '/work_log', {
      token: operator.token,
      body: { ...body, workorderid: `${workorderid}-b` },
    });
    expect(other.status).toBe(409);
    expect(other.body.entryid).toBe(first.body.entryid);
    expect((await entries({ workorderid })).map((entry) => entry.entryid)).toEqual([first.body.entryid]);
    expect((await entries({ client_guid })).map((entry) => entry.entryid)).toEqual([first.body.entryid]);
    expect(await entries({ client_guid: randomUUID() })).toEqual([]);
  });

  it('keeps guids per user: another user with the same guid makes their own entry', async () => {
    const client_guid = randomUUID();
    const body = { guideid: guide.guideid, workorderid: `WO-${uniqueSuffix()}`, client_guid };
    const mine = await api('POST', '/work_log', { token: operator.token, body });
    const theirs = await api('POST', '/work_log', { token: writer.token, body });
    expect(mine.status).toBe(201);
    expect(theirs.status).toBe(201);
    expect(theirs.body.entryid).not.toBe(mine.body.entryid);
  });

  it('makes one entry when the same create arrives many times at once', async () => {
    const client_guid = randomUUID();
    const workorderid = `WO-${uniqueSuffix()}`;
    const body = { guideid: guide.guideid, workorderid, client_guid };
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => api('POST', '/work_log', { token: operator.token, body })),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 200, 200, 200, 200, 201]);
    expect(new Set(answers.map((answer) => answer.body.entryid)).size).toBe(1);
    expect(await entries({ workorderid })).toHaveLength(1);
  });

  it('refuses a guid that is not a UUID (422)', async () => {
    const answer = await api('POST', '/work_log', {
      token: operator.token,
      body: { guideid: guide.guideid, workorderid: 'WO-x', client_guid: 'not-a-uuid' },
    });
    expect(answer.status).toBe(422);
  });
});

describe('client_guid on step data', () => {
  it('applies a save once: resent it changes nothing, another body under it is 409', async () => {
    const entry = (
      await api('POST', '/work_log', {
        token: operator.token,
        body: { guideid: guide.guideid, workorderid: `WO-${uniqueSuffix()}` },
      })
    ).body;
    const client_guid = randomUUID();
    const save = (value: string, guid = client_guid) =>
      api('PUT', `/work_log/${entry.entryid}/stepData`, {
        token: operator.token,
        body: { fields: { [fieldid]: value }, client_guid: guid },
      });
    expect((await save('SN-1')).status).toBe(200);
    // A later save of another value, then the first one resent (a retry arriving late).
    expect((await save('SN-2', randomUUID())).status).toBe(200);
    expect((await save('SN-1')).status).toBe(200);
    const read = await api('GET', `/work_log/${entry.entryid}`, { token: operator.token });
    expect(JSON.stringify(read.body.work_data)).toContain('SN-2');
    expect(JSON.stringify(read.body.work_data)).not.toContain('SN-1');
    const conflict = await save('SN-3');
    expect(conflict.status).toBe(409);
    expect(conflict.body.entryid).toBe(entry.entryid);
  });
});

describe('client_guid on comments', () => {
  it('makes one comment: 201, 200 for the same, 409 for another text; the list finds it', async () => {
    const client_guid = randomUUID();
    const text = `Torque twice ${uniqueSuffix()}`;
    const post = (body: Record<string, unknown>) =>
      api('POST', `/comments/guide/${guide.guideid}`, { token: operator.token, body });
    const first = await post({ text, client_guid });
    expect(first.status).toBe(201);
    const again = await post({ text, client_guid });
    expect(again.status).toBe(200);
    expect(again.body.commentid).toBe(first.body.commentid);
    const other = await post({ text: `${text} and more`, client_guid });
    expect(other.status).toBe(409);
    expect(other.body.commentid).toBe(first.body.commentid);
    const listed = await api('GET', '/comments', { token: operator.token, query: { client_guid } });
    expect(listed.status).toBe(200);
    expect(listed.body.map((comment: { commentid: number }) => comment.commentid)).toEqual([first.body.commentid]);
  });
});
