/**
 * A site API token is a principal with an id of its own in what it writes (decision 260; issue
 * 35 item 4, issue 40's POST /teams): where a record names who acted, a token leaves the field
 * null (never userid 0) and `<field>_token` names it; nothing it writes makes a record fail its
 * declaration, and records stored with 0 before still read.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { api, createTeam, createUser, loginAdmin, uniqueSuffix } from '../support/api.ts';
import { localDb } from '../support/local-db.ts';
import { createGuide } from './guide-fixtures.ts';

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
