/**
 * Notices over HTTP with a clock the test controls (docs/notices.md): POST /notices/sweep with
 * `as_of` sends each notice once at its instant, as an event on the outbox and as mail (the
 * local mail outbox): requested at once; before the lead nothing, inside it due-soon once; past
 * due overdue once; after the delay the team owner hears once. A preference turned off holds
 * back that mail. A level lapsing soon and lapsed are told once, and the lapse assigns the course
 * that restores it, once, with its own notice; so does a release marked for retraining, for the
 * holders who earned their level before it. The queue backfill (notices:queue-backfill) restores
 * the items of what was written before the queue, only those still of use, idempotently.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DeleteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { reloadConfig } from '../../shared/config.ts';
import { backfillNoticeQueue } from '../../infra/ops/backfill/notice-queue.ts';
import { api, createTeam, createUser, loginAdmin, type TestUser } from '../support/api.ts';
import { createCourse, releaseGuide } from '../support/courses.ts';
import { localDb } from '../support/local-db.ts';
import { createGuide } from './guide-fixtures.ts';

const DAY = 86400;

function mailsTo(user: TestUser, kind: string): Array<{ to: string; kind: string; subject: string; text: string }> {
  const folder = inject('outboxDir');
  return readdirSync(folder)
    .map((file) => JSON.parse(readFileSync(join(folder, file), 'utf8')))
    .filter((message) => message.to === user.email && message.kind === `notice.${kind}`);
}

/** The names of the events on the outbox for one entity, in order. */
async function eventsOf(entity: string): Promise<string[]> {
  const result = await localDb().send(
    new QueryCommand({
      TableName: 'stepwise',
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': `OUTBOX#${entity}` },
      ConsistentRead: true,
    }),
  );
  return (result.Items ?? []).map((item) => String(item.name));
}

async function sweep(admin: string, as_of: number) {
  const response = await api('POST', '/notices/sweep', { token: admin, body: { as_of } });
  expect(response.status).toBe(200);
  expect(response.body.as_of).toBe(as_of);
  return response.body;
}

/** The queue items of one subject, across the shards (a test's look; the sweep reads by instant). */
async function queued(subject: string): Promise<Array<{ pk: string; sk: string; kind: string }>> {
  const items = [];
  for (let shard = 0; shard < 8; shard += 1) {
    const result = await localDb().send(
      new QueryCommand({
        TableName: 'stepwise',
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': `NOTICEDUE#${shard}` },
        ConsistentRead: true,
      }),
    );
    items.push(...(result.Items ?? []).filter((item) => item.subject === subject));
  }
  return items as Array<{ pk: string; sk: string; kind: string }>;
}

/** A guide whose major release asks `audience` to acknowledge it within 7 days. */
async function acknowledgementAsked(admin: string, audience: TestUser[]) {
  const guide = await createGuide(admin);
  const settings = await api('PUT', `/acknowledgements/settings/guides/${guide.guideid}`, {
    token: admin,
    body: { due_days: 7, audience_userids: audience.map((user) => user.userid) },
  });
  expect(settings.status).toBe(200);
  return { guide, release: await releaseGuide(guide.guideid, 'major') };
}

/** A skill held through `guideid`, named `name`. */
async function skillOf(admin: string, name: string, guideid: number, recertification_days?: number) {
  const created = await api('POST', '/qualifications/skills', {
    token: admin,
    body: { name, guideids: [guideid], ...(recertification_days ? { recertification_days } : {}) },
  });
  expect(created.status).toBe(201);
  return created.body;
}

/** Removes the queue items of `subjects`, as if they had been written before the queue. */
async function unqueue(subjects: string[]) {
  for (const subject of subjects)
    for (const item of await queued(subject))
      await localDb().send(new DeleteCommand({ TableName: 'stepwise', Key: { pk: item.pk, sk: item.sk } }));
}

beforeAll(() => {
  process.env.DDB_ENDPOINT = inject('ddbEndpoint');
  process.env.AWS_ACCESS_KEY_ID ??= 'test';
  process.env.AWS_SECRET_ACCESS_KEY ??= 'test';
  reloadConfig();
});

afterAll(async () => {
  const admin = await loginAdmin();
  await api('PATCH', '/notices/settings', {
    token: admin,
    body: { due_soon_days: null, escalation_days: null, lapse_soon_days: null, retraining_due_days: null },
  });
});

describe('notices', () => {
  it('settings and preferences: Admins set the leads; each person their own kinds; others refused', async () => {
    const admin = await loginAdmin();
    const person = await createUser();
    expect((await api('GET', '/notices/preferences', { token: person.token })).body).toMatchObject({
      acknowledgement_due_soon: true,
      level_lapsed: true,
    });
    const off = await api('PATCH', '/notices/preferences', {
      token: person.token,
      body: { acknowledgement_due_soon: false },
    });
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ acknowledgement_due_soon: false, acknowledgement_overdue: true });
    expect((await api('GET', '/notices/preferences', { token: person.token })).body.acknowledgement_due_soon).toBe(
      false,
    );
    expect(
      (await api('PATCH', '/notices/preferences', { token: person.token, body: { unknown_kind: true } })).status,
    ).toBe(422);

    expect((await api('PATCH', '/notices/settings', { token: person.token, body: { due_soon_days: 1 } })).status).toBe(
      403,
    );
    expect((await api('POST', '/notices/sweep', { token: person.token, body: {} })).status).toBe(403);
    expect((await api('PATCH', '/notices/settings', { token: admin, body: { due_soon_days: -1 } })).status).toBe(422);
    const set = await api('PATCH', '/notices/settings', {
      token: admin,
      body: { due_soon_days: 2, escalation_days: 1, lapse_soon_days: 5, retraining_due_days: 7 },
    });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ due_soon_days: 2, escalation_days: 1, lapse_soon_days: 5, retraining_due_days: 7 });
  });

  it('an acknowledgement: requested, due soon, overdue and escalated, each once at its instant; preferences hold', async () => {
    const admin = await loginAdmin();
    const person = await createUser();
    const quiet = await createUser();
    const owner = await createUser();
    await createTeam({ owner: owner.userid, members: [person.userid, quiet.userid], privacy: 'private' });
    expect(
      (await api('PATCH', '/notices/preferences', { token: quiet.token, body: { acknowledgement_due_soon: false } }))
        .status,
    ).toBe(200);

    const { release } = await acknowledgementAsked(admin, [person, quiet]);
    const [ack] = (await api('GET', '/acknowledgements', { token: person.token })).body.filter(
      (item: { releaseid: number }) => item.releaseid === release.releaseid,
    );
    expect(ack.due_date).toBeGreaterThan(ack.created_date);
    const due = ack.due_date;
    const entity = `ACK#${release.releaseid}#${person.userid}`;

    // Requested: at once (the sweep at the acknowledgement's creation), once.
    await sweep(admin, ack.created_date);
    await sweep(admin, ack.created_date + 60);
    expect(mailsTo(person, 'acknowledgement_requested')).toHaveLength(1);
    expect(mailsTo(person, 'acknowledgement_requested')[0].text).toContain(`/acknowledgements/${release.releaseid}`);
    expect(mailsTo(quiet, 'acknowledgement_requested')).toHaveLength(1);

    // Before the lead (2 days): no reminder. Inside it: one, and not again.
    await sweep(admin, due - 2 * DAY - 60);
    expect(mailsTo(person, 'acknowledgement_due_soon')).toHaveLength(0);
    await sweep(admin, due - 2 * DAY + 60);
    await sweep(admin, due - DAY);
    expect(mailsTo(person, 'acknowledgement_due_soon')).toHaveLength(1);
    expect(mailsTo(quiet, 'acknowledgement_due_soon')).toHaveLength(0); // turned off
    expect(mailsTo(person, 'acknowledgement_overdue')).toHaveLength(0);

    // Past due: overdue once, to the person; the owner not yet.
    await sweep(admin, due + 60);
    await sweep(admin, due + 120);
    expect(mailsTo(person, 'acknowledgement_overdue')).toHaveLength(1);
    expect(mailsTo(quiet, 'acknowledgement_overdue')).toHaveLength(1);
    expect(mailsTo(owner, 'acknowledgement_escalated')).toHaveLength(0);

    // After the delay (1 day): the team owner, once per overdue member.
    await sweep(admin, due + DAY + 60);
    await sweep(admin, due + 2 * DAY);
    const escalated = mailsTo(owner, 'acknowledgement_escalated');
    expect(escalated).toHaveLength(2);
    for (const mail of escalated) expect(mail.subject).toMatch(/^Overdue in your team: .+ has not acknowledged guide /);

    // One event of each kind for the person, in order; a list read after the sweep adds no second overdue.
    await api('GET', '/acknowledgements', { token: person.token, query: { state: 'overdue' } });
    expect(await eventsOf(entity)).toEqual([
      'acknowledgement.requested',
      'acknowledgement.due_soon',
      'acknowledgement.overdue',
      'acknowledgement.overdue_escalated',
    ]);
  });

  it('a signed acknowledgement is not chased', async () => {
    const admin = await loginAdmin();
    const person = await createUser();
    const { release } = await acknowledgementAsked(admin, [person]);
    const signed = await api('POST', `/acknowledgements/${release.releaseid}/sign`, {
      token: person.token,
      body: { password: person.password, meaning: 'acknowledged' },
    });
    expect(signed.status).toBe(200);
    await sweep(admin, signed.body.due_date + 10 * DAY);
    expect(mailsTo(person, 'acknowledgement_due_soon')).toHaveLength(0);
    expect(mailsTo(person, 'acknowledgement_overdue')).toHaveLength(0);
    expect(await eventsOf(`ACK#${release.releaseid}#${person.userid}`)).toEqual([]);
  });

  it('a level: lapsing soon once, lapsed once, and the course that restores it assigned once', async () => {
    const trainer = await createUser({ privileges: ['Admin'] });
    const admin = trainer.token;
    const person = await createUser();
    const guide = await createGuide(admin);
    const skill = await skillOf(admin, `Lapsing ${guide.guideid}`, guide.guideid, 10);
    const course = await createCourse({ stages: [{ doctype: 'guide', docid: guide.guideid }] });
    const mapped = await api('PUT', `/qualifications/courses/${course.wikiid}/levels`, {
      token: admin,
      body: { grants: [{ course_stageid: null, skillid: skill.skillid, level: 2 }] },
    });
    expect(mapped.status).toBe(200);
    const level = await api('PUT', `/qualifications/skills/${skill.skillid}/levels/${person.userid}`, {
      token: admin,
      body: { level: 2, password: trainer.password },
    });
    expect(level.status).toBe(200);
    const expires = level.body.expires_at;

    await sweep(admin, expires - 5 * DAY - 60);
    expect(mailsTo(person, 'level_lapsing')).toHaveLength(0);
    await sweep(admin, expires - 5 * DAY + 60);
    await sweep(admin, expires - DAY);
    expect(mailsTo(person, 'level_lapsing')).toHaveLength(1);
    expect(mailsTo(person, 'level_lapsed')).toHaveLength(0);

    const lapsed = await sweep(admin, expires + 60);
    expect(lapsed.retraining_assigned).toBeGreaterThanOrEqual(1);
    await sweep(admin, expires + 120);
    expect(mailsTo(person, 'level_lapsed')).toHaveLength(1);
    const retraining = mailsTo(person, 'retraining_assigned');
    expect(retraining).toHaveLength(1);
    const assignmentid = Number(/course_assignments\/(\d+)/.exec(retraining[0].text)?.[1]);
    const assignment = await api('GET', `/course_assignments/${assignmentid}`, { token: admin });
    expect(assignment.status).toBe(200);
    expect(assignment.body).toMatchObject({ wikiid: course.wikiid, due_within: 7 * DAY });
    expect(await eventsOf(`LEVEL#${person.userid}#${skill.skillid}`)).toEqual([
      'qualification_level.lapsing',
      'qualification_level.lapsed',
    ]);
    expect(await eventsOf(`ASSIGNMENT#${assignmentid}`)).toContain('retraining.assigned');
  });

  it('a release marked for retraining assigns the restoring course to holders who earned the level before it, once', async () => {
    const trainer = await createUser({ privileges: ['Admin'] });
    const admin = trainer.token;
    const before = await createUser();
    const after = await createUser();
    const guide = await createGuide(admin);
    await releaseGuide(guide.guideid, 'major');
    const skill = await skillOf(admin, `Marked ${guide.guideid}`, guide.guideid);
    const course = await createCourse({ stages: [{ doctype: 'guide', docid: guide.guideid }] });
    const setLevel = (userid: number) =>
      api('PUT', `/qualifications/skills/${skill.skillid}/levels/${userid}`, {
        token: admin,
        body: { level: 3, password: trainer.password },
      });
    expect((await setLevel(before.userid)).status).toBe(200);
    const release = await releaseGuide(guide.guideid, 'minor');
    expect((await setLevel(after.userid)).status).toBe(200); // earned on the marked release: not retrained
    const marked = await api('POST', `/acknowledgements/${release.releaseid}/retraining`, { token: admin });
    expect(marked.status).toBe(200);
    // Marking it again (a retry) assigns nothing more.
    expect((await api('POST', `/acknowledgements/${release.releaseid}/retraining`, { token: admin })).status).toBe(200);

    const now = Math.floor(Date.now() / 1000);
    await sweep(admin, now + 60);
    await sweep(admin, now + 120);
    expect(mailsTo(after, 'retraining_assigned')).toHaveLength(0);
    const mails = mailsTo(before, 'retraining_assigned');
    expect(mails).toHaveLength(1);
    const assignmentid = Number(/course_assignments\/(\d+)/.exec(mails[0].text)?.[1]);
    const assignment = await api('GET', `/course_assignments/${assignmentid}`, { token: admin });
    expect(assignment.status).toBe(200);
    const { retraining_due_days } = (await api('GET', '/notices/settings', { token: admin })).body;
    expect(assignment.body).toMatchObject({ wikiid: course.wikiid, due_within: retraining_due_days * DAY });
    expect(
      (await eventsOf(`ASSIGNMENT#${assignmentid}`)).filter((name) => name === 'retraining.assigned'),
    ).toHaveLength(1);
  });

  it('notices:queue-backfill queues what was written before the queue, still of use, idempotently', async () => {
    const trainer = await createUser({ privileges: ['Admin'] });
    const admin = trainer.token;
    const person = await createUser();
    const { guide, release } = await acknowledgementAsked(admin, [person]);
    const skill = await skillOf(admin, `Backfill ${guide.guideid}`, guide.guideid, 10);
    const level = await api('PUT', `/qualifications/skills/${skill.skillid}/levels/${person.userid}`, {
      token: admin,
      body: { level: 2, password: trainer.password },
    });
    expect(level.status).toBe(200);
    const subjects = [`ACK#${release.releaseid}#${person.userid}`, `LEVEL#${person.userid}#${skill.skillid}`];
    const kinds = async () => (await Promise.all(subjects.map(queued))).map((items) => items.map((i) => i.kind).sort());
    const written = await kinds();
    expect(written[0]).toHaveLength(4);
    expect(written[1]).toEqual(['level_lapsed', 'level_lapsing']);
    // As if written before the queue existed: no items.
    await unqueue(subjects);
    expect(await kinds()).toEqual([[], []]);

    const now = Math.floor(Date.now() / 1000);
    const first = await backfillNoticeQueue(now);
    expect(first.queued).toBeGreaterThanOrEqual(6);
    expect(await kinds()).toEqual(written);
    await backfillNoticeQueue(now);
    expect(await kinds()).toEqual(written);
    // Twenty days on, every one of them is past its use unless the operator catches up.
    await unqueue(subjects);
    await backfillNoticeQueue(now + 20 * DAY);
    expect(await kinds()).toEqual([[], []]);
    await backfillNoticeQueue(now + 20 * DAY, 30 * DAY);
    expect(await kinds()).toEqual(written);
  });
});
