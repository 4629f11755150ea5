/**
 * A site API token is a principal with an id of its own in what it writes (decision 260; issue
 * 35 item 4, issue 40's POST /teams): where a record names who acted, a token leaves the field
 * null (never userid 0) and `<field>_token` names it; nothing it writes makes a record fail its
 * declaration, and records stored with 0 before still read.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { api, createTeam, createUser, loginAdmin, uniqueSuffix } from '../support/api.ts';
import { localDb } from '../support/local-db.ts';
import { createGuide } from './guide-fixtures.ts';
import { assignedTrainee, createCourse } from '../support/courses.ts';
import { startReceiver } from '../support/webhook-receiver.ts';

let admin: string;
let bot: { tokenid: string; token: string; name: string };

beforeAll(async () => {
  admin = await loginAdmin();
  const minted = await api('POST', '/admin/api_tokens', {
    token: admin,
    body: { name: `Settings bot ${uniqueSuffix()}`, scopes: ['full'] },
  });
  expect(minted.status).toBe(201);
  bot = minted.body;
});

const byBot = () => ({ headers: { authorization: `api ${bot.token}` } });
const named = () => ({ tokenid: bot.tokenid, name: bot.name });

async function workLogOpens(guideid: number) {
  const entry = await api('POST', '/work_log', {
    token: admin,
    body: { guideid, workorderid: `WO-${uniqueSuffix()}` },
  });
  expect(entry.status).toBe(201);
}

describe('training settings a token changes', () => {
  it('the site settings stay readable and writable, and work can still be logged', async () => {
    const before = await api('GET', '/qualifications/settings', { token: admin });
    expect(before.status).toBe(200);
    // The value it had (other test files share the site): the probe's "default values" PUT.
    const put = await api('PUT', '/qualifications/settings', {
      ...byBot(),
      body: { acknowledgement_due_days: before.body.acknowledgement_due_days },
    });
    expect(put.status).toBe(200);
    expect((await api('GET', '/qualifications/settings', { token: admin })).status).toBe(200);
    const again = await api('PUT', '/qualifications/settings', {
      token: admin,
      body: { acknowledgement_due_days: before.body.acknowledgement_due_days },
    });
    expect(again.status).toBe(200);
    await workLogOpens((await createGuide(admin)).guideid);
  });

  it("a guide's gate and acknowledgement settings the same", async () => {
    const guide = await createGuide(admin);
    const gating = `/qualifications/gating/guides/${guide.guideid}`;
    expect((await api('PUT', gating, { ...byBot(), body: { gate_mode: 'warn', min_level: 1 } })).status).toBe(200);
    const acks = `/acknowledgements/settings/guides/${guide.guideid}`;
    expect((await api('PUT', acks, { ...byBot(), body: { strictness: 'major' } })).status).toBe(200);
    expect((await api('GET', gating, { token: admin })).body).toEqual({ gate_mode: 'warn', min_level: 1 });
    expect((await api('GET', acks, { token: admin })).status).toBe(200);
    expect((await api('PUT', gating, { token: admin, body: { gate_mode: 'off' } })).status).toBe(200);
    await workLogOpens(guide.guideid);
  });

  it('a record stored with modified_by 0 before decision 260 still reads', async () => {
    const guide = await createGuide(admin);
    await localDb().send(
      new PutCommand({
        TableName: 'stepwise',
        Item: {
          pk: `TRAINSET#GUIDE#${guide.guideid}`,
          sk: 'SETTINGS',
          entity: 'TrainingSettings',
          gate_mode: 'off',
          min_level: null,
          acknowledgement_strictness: null,
          acknowledgement_due_days: null,
          audience_userids: [],
          level_names: null,
          modified_date: 1700000000,
          modified_by: 0,
        },
      }),
    );
    const gating = `/qualifications/gating/guides/${guide.guideid}`;
    expect((await api('GET', gating, { token: admin })).status).toBe(200);
    expect((await api('PUT', gating, { token: admin, body: { gate_mode: 'warn' } })).status).toBe(200);
    await workLogOpens(guide.guideid);
  });
});

describe('records that name who acted', () => {
  it('an approval process: created_by null and created_by_token; a person changing it is named instead', async () => {
    const team = await createTeam();
    const created = await api('POST', '/approvals/process', {
      ...byBot(),
      body: { name: `Bot process ${uniqueSuffix()}`, stages: [{ name: 'QA', teamid: team.teamid, quorum: 1 }] },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      created_by: null,
      created_by_token: named(),
      modified_by: null,
      modified_by_token: named(),
    });
    const id = created.body.approval_processid;
    const changed = await api('PATCH', `/approvals/process/${id}`, { token: admin, body: { description: 'Now' } });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ created_by: null, created_by_token: named(), modified_by: 1 });
    expect(changed.body.modified_by_token).toBeUndefined();
  });

  it('a periodic review schedule: the token names a reviewer (422 without), and is named as creator', async () => {
    const body = { name: `Bot review ${uniqueSuffix()}`, frequency_quantity: 12, frequency_unit: 'month' };
    const bare = await api('POST', '/periodic_review', { ...byBot(), body });
    expect(bare.status).toBe(422);
    expect(JSON.stringify(bare.body)).toContain('reviewer_userid');
    const reviewer = await createUser({ privileges: ['Author'] });
    const created = await api('POST', '/periodic_review', {
      ...byBot(),
      body: { ...body, reviewer_userid: reviewer.userid },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      reviewer_userid: reviewer.userid,
      created_by: null,
      created_by_token: named(),
    });
    const read = await api('GET', `/periodic_review/${created.body.prsid}`, { token: admin });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ created_by: null, created_by_token: named() });
  });

  it('POST /teams without owner: a team no person owns, named by the token (issue 40)', async () => {
    const member = await createUser();
    const created = await api('POST', '/teams', {
      ...byBot(),
      body: { name: `Bot team ${uniqueSuffix()}`, members: [member.userid] },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ owner: null, owner_token: named() });
    const members = await api('GET', `/teams/${created.body.teamid}`, { token: admin });
    expect(members.status).toBe(200);
    expect(JSON.stringify(members.body)).toContain(`"userid":${member.userid}`);
    expect(JSON.stringify(members.body)).not.toContain('"userid":0');
    const owned = await api('POST', '/teams', {
      ...byBot(),
      body: { name: `Owned team ${uniqueSuffix()}`, owner: member.userid },
    });
    expect(owned.status).toBe(201);
    expect(owned.body.owner).toBe(member.userid);
    expect(owned.body.owner_token).toBeUndefined();
  });
});

/** Sets a stored attribute to 0 as a token's write left it before decision 260. */
async function storeZero(key: { pk: string; sk: string }, attribute: string) {
  await localDb().send(
    new UpdateCommand({
      TableName: 'stepwise',
      Key: key,
      UpdateExpression: 'SET #a = :zero',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#a': attribute },
      ExpressionAttributeValues: { ':zero': 0 },
    }),
  );
}

describe('the rest that named userid 0 (issue 35, round three)', () => {
  it('a webhook: created_by null and created_by_token, in the create answer and the read', async () => {
    const hook = await startReceiver();
    try {
      const created = await api('POST', '/webhooks', { ...byBot(), body: { url: hook.url, events: ['user.created'] } });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ created_by: null, created_by_token: named() });
      const path = `/webhooks/${created.body.webhookid}`;
      const read = await api('GET', path, { token: admin });
      expect(read.status).toBe(200);
      expect(read.body).toMatchObject({ created_by: null, created_by_token: named() });
      const byPerson = await api('POST', '/webhooks', {
        token: admin,
        body: { url: hook.url, events: ['user.created'] },
      });
      expect(byPerson.body.created_by).toBe(1);
      expect(byPerson.body.created_by_token).toBeUndefined();
      for (const id of [created.body.webhookid, byPerson.body.webhookid])
        expect((await api('DELETE', `/webhooks/${id}`, { token: admin })).status).toBe(204);
    } finally {
      await hook.close();
    }
  });

  it('a module import and its module: created_by null and created_by_token; a stored 0 reads as null', async () => {
    const created = await api('POST', '/external_training_modules/imports', {
      ...byBot(),
      body: { title: `Bot module ${uniqueSuffix()}` },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ created_by: null, created_by_token: named() });
    const listed = await api('GET', `/external_training_modules/${created.body.moduleid}/imports`, { token: admin });
    expect(listed.status).toBe(200);
    expect(JSON.stringify(listed.body)).toContain(JSON.stringify({ tokenid: bot.tokenid, name: bot.name }));
    expect(JSON.stringify(listed.body)).not.toContain('"created_by":0');
    await storeZero({ pk: `IMPORT#${created.body.importid}`, sk: 'IMPORT' }, 'created_by');
    const old = await api('GET', `/external_training_modules/${created.body.moduleid}/imports`, { token: admin });
    expect(old.status).toBe(200);
    expect(JSON.stringify(old.body)).not.toContain('"created_by":0');
  });

  it('a course assignment a token makes and cancels: created_by and cancelled_by null, the token named', async () => {
    const course = await createCourse();
    const trainee = await createUser();
    const made = await api('POST', '/course_assignments', {
      ...byBot(),
      body: { wikiid: course.wikiid, userid: trainee.userid },
    });
    expect(made.status).toBe(201);
    const id = made.body.course_assignmentid;
    const cancelled = await api('DELETE', `/course_assignments/${id}`, { ...byBot(), body: {} });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ cancelled: 1, cancelled_by: null, cancelled_by_token: named() });
    const details = await api('GET', `/course_assignments/courseAssignmentDetails/${id}`, { token: admin });
    expect(details.status).toBe(200);
    expect(details.body).toMatchObject({
      created_by: null,
      created_by_token: named(),
      cancelled_by: null,
      cancelled_by_token: named(),
    });
  });

  it('a course assignment cancelled with by 0 before decision 260 still reads, the 0 shown as null', async () => {
    const { assignment } = await assignedTrainee();
    const id = assignment.course_assignmentid;
    expect((await api('DELETE', `/course_assignments/${id}`, { token: admin, body: {} })).status).toBe(200);
    await storeZero({ pk: `ASSIGNMENT#${id}`, sk: 'ASSIGNMENT' }, 'cancelled_by');
    await storeZero({ pk: `ASSIGNMENT#${id}`, sk: 'ASSIGNMENT' }, 'created_by');
    const read = await api('GET', `/course_assignments/${id}`, { token: admin });
    expect(read.status).toBe(200);
    expect(read.body.cancelled_by).toBeNull();
    const details = await api('GET', `/course_assignments/courseAssignmentDetails/${id}`, { token: admin });
    expect(details.status).toBe(200);
    expect(details.body).toMatchObject({ created_by: null, cancelled_by: null });
  });

  it('a tag a token puts on a guide is stored with userid null and the token, and the guide still lists it', async () => {
    const guide = await createGuide(admin);
    const word = `bot-${uniqueSuffix()}`.toLowerCase();
    const tagged = await api('PUT', `/guides/${guide.guideid}/tag`, { ...byBot(), body: { tag: word } });
    expect(tagged.status).toBe(200);
    const stored = await localDb().send(
      new GetCommand({ TableName: 'stepwise', Key: { pk: `TAGGED#GUIDE#${guide.guideid}`, sk: `TAG#${word}` } }),
    );
    expect(stored.Item).toMatchObject({ userid: null, userid_token: named() });
    const listed = await api('GET', `/guides/${guide.guideid}/tags`, { token: admin });
    expect(listed.status).toBe(200);
    expect(listed.body).toContain(word);
  });

  it('a collection a token creates is stored with created_by null and the token, and reads and changes as any', async () => {
    const created = await api('POST', '/collections', { ...byBot(), body: { title: `Bot picks ${uniqueSuffix()}` } });
    expect(created.status, created.text).toBe(201);
    const key = { pk: `COLLECTION#${created.body.collectionid}`, sk: 'COLLECTION' };
    const stored = await localDb().send(new GetCommand({ TableName: 'stepwise', Key: key }));
    expect(stored.Item).toMatchObject({ created_by: null, created_by_token: named() });
    const path = `/collections/${created.body.collectionid}`;
    expect((await api('GET', path, { token: admin })).status).toBe(200);
    const renamed = await api('PATCH', path, { token: admin, body: { title: 'Renamed by a person' } });
    expect(renamed.status, renamed.text).toBe(200);
    expect((await api('DELETE', path, { token: admin })).status).toBe(204);
  });
});
