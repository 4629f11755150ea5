/**
 * Read-and-understood acknowledgements over HTTP (docs/competency.md): a new release asks the
 * people it concerns (trainees, the author's audience), shows them the diff from stored
 * revisions, takes their signature, carries their completion over (the new stage rule, row 5),
 * or not when the release needs retraining; who has and has not signed; overdue → an event;
 * every refusal; the audit chains verify.
 */
import { describe, expect, it } from 'vitest';
import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ADMIN, api, createTeam, createUser, loginAdmin } from '../support/api.ts';
import {
  assign,
  assignedTrainee,
  createCourse,
  entryOf,
  getAssignment,
  releaseGuide,
  stageGuide,
} from '../support/courses.ts';
import { localDb } from '../support/local-db.ts';
import { addStep, createGuide } from './guide-fixtures.ts';
import { createWiki, wikiPath } from '../support/wikis.ts';
import * as compliance from '../support/compliance.ts';

const complete = (token: string, guideid: number) =>
  api('PATCH', `/course_assignments/complete/guide/${guideid}`, { token, body: {} });

async function stageState(assignmentid: number, userid: number) {
  return entryOf((await getAssignment(assignmentid)).body, userid).stage_status;
}

async function pendingOf(token: string, query: Record<string, string | number> = {}) {
  const response = await api('GET', '/acknowledgements', { token, query });
  expect(response.status).toBe(200);
  return response.body as any[];
}

/**
 * Pending acknowledgements past the first release: a course's assignee is asked for 1.0 too,
 * before finishing it (the whole document as the diff), which these scenarios leave aside.
 */
async function pendingAfterFirst(token: string, query: Record<string, string | number> = {}) {
  return (await pendingOf(token, query)).filter((ack) => ack.version !== '1.0');
}

/** A course trainee who completed release 1.0 of a guide; then the guide changed and 2.0 was released. */
async function traineeOnNewMajor() {
  const admin = await loginAdmin();
  const { guide, trainee, assignment } = await assignedTrainee({ strictness: 'major' });
  await releaseGuide(guide.guideid, 'major');
  expect((await complete(trainee.token, guide.guideid)).status).toBe(200);
  const step = await addStep(admin, guide.guideid, {
    lines: [{ text: 'Wear gloves: the nozzle is hot.', bullet: 'black', level: 0 }],
  });
  const release = await releaseGuide(guide.guideid, 'major');
  return { admin, guide, trainee, assignment, release, step };
}

describe('a new major release asks the trainee to acknowledge it', () => {
  it('pending with the diff from 1.0; a signature carries the completion over; the audit verifies', async () => {
    const { admin, guide, trainee, assignment, release } = await traineeOnNewMajor();
    const id = assignment.course_assignmentid;
    expect(await stageState(id, trainee.userid)).toEqual({ status: 'invalidated', reason: 'newer_release' });

    const pending = await pendingAfterFirst(trainee.token);
    expect(pending).toEqual([
      expect.objectContaining({
        releaseid: release.releaseid,
        doctype: 'guide',
        docid: guide.guideid,
        version: '2.0',
        base_version: '1.0',
        reasons: ['trainee'],
        state: 'pending',
      }),
    ]);
    expect(pending[0].due_date).toBeGreaterThan(pending[0].created_date);

    const one = await api('GET', `/acknowledgements/${release.releaseid}`, { token: trainee.token });
    expect(one.status).toBe(200);
    expect(one.body.diff.from_revisionid).toBe(pending[0].base_revisionid);
    expect(one.body.diff.to_revisionid).toBe(release.revisionid);
    expect(one.body.diff.steps).toEqual([
      expect.objectContaining({
        change: 'added',
        new_position: 1,
        lines: [{ op: 'added', text: 'Wear gloves: the nozzle is hot.' }],
      }),
    ]);

    const wrong = await api('POST', `/acknowledgements/${release.releaseid}/sign`, {
      token: trainee.token,
      body: { password: 'not my password' },
    });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors[0].field).toBe('password');
    expect((await pendingAfterFirst(trainee.token)).length).toBe(1);

    const signed = await api('POST', `/acknowledgements/${release.releaseid}/sign`, {
      token: trainee.token,
      body: { password: trainee.password, meaning: 'acknowledged' },
    });
    expect(signed.status).toBe(200);
    expect(signed.body).toMatchObject({ state: 'signed', signature_meaning: 'acknowledged' });
    expect(await pendingAfterFirst(trainee.token)).toEqual([]);
    // The completion carries over: the stage is completed again without retraining.
    expect(await stageState(id, trainee.userid)).toEqual({ status: 'completed', reason: 'completed' });

    const twice = await api('POST', `/acknowledgements/${release.releaseid}/sign`, {
      token: trainee.token,
      body: { password: trainee.password },
    });
    expect(twice.status).toBe(409);
    expect(twice.body.state).toBe('signed');

    const signatures = await api('GET', `/acknowledgements/${release.releaseid}/signatures`, { token: admin });
    expect(signatures.status).toBe(200);
    expect(signatures.body.signed).toEqual([
      { userid: trainee.userid, signed_date: signed.body.signed_date, awaiting_countersignature: false },
    ]);
    expect(signatures.body.not_signed).toEqual([]);

    for (const path of [`/audit/users/${trainee.userid}/verify`, `/audit/documents/guide/${guide.guideid}/verify`]) {
      const verified = await api('GET', path, { token: admin });
      expect(verified.body).toMatchObject({ valid: true, first_broken_seq: null });
    }
    const history = await api('GET', `/audit/users/${trainee.userid}`, { token: admin });
    expect(JSON.stringify(history.body)).toContain('acknowledgement.signed');
  });

  it('a minor release under major strictness asks nothing', async () => {
    const { guide, trainee } = await assignedTrainee({ strictness: 'major' });
    await releaseGuide(guide.guideid, 'major');
    await complete(trainee.token, guide.guideid);
    await releaseGuide(guide.guideid, 'minor');
    expect(await pendingAfterFirst(trainee.token)).toEqual([]);
  });
});

describe('retraining', () => {
  it('a release marked as needing retraining invalidates the completion even once acknowledged', async () => {
    const { admin, trainee, assignment, release } = await traineeOnNewMajor();
    const stranger = await createUser();
    const refused = await api('POST', `/acknowledgements/${release.releaseid}/retraining`, { token: stranger.token });
    expect(refused.status).toBe(403);
    const marked = await api('POST', `/acknowledgements/${release.releaseid}/retraining`, { token: admin });
    expect(marked.status).toBe(200);
    expect(marked.body).toEqual({ releaseid: release.releaseid, version: '2.0', retraining: true });
    const signed = await api('POST', `/acknowledgements/${release.releaseid}/sign`, {
      token: trainee.token,
      body: { password: trainee.password },
    });
    expect(signed.status).toBe(200);
    expect(await stageState(assignment.course_assignmentid, trainee.userid)).toEqual({
      status: 'invalidated',
      reason: 'newer_release',
    });
    expect((await api('POST', '/acknowledgements/99999999/retraining', { token: admin })).status).toBe(404);
  });
});

describe('course assignees and the stage strictness', () => {
  it('an assignee who never finished the guide is asked, with the whole document as the diff', async () => {
    const admin = await loginAdmin();
    const { guide, trainee } = await assignedTrainee({ strictness: 'major' });
    await addStep(admin, guide.guideid, { lines: [{ text: 'Check the seal.', bullet: 'black', level: 0 }] });
    const release = await releaseGuide(guide.guideid, 'major');
    const pending = await pendingOf(trainee.token);
    expect(pending).toEqual([
      expect.objectContaining({ releaseid: release.releaseid, base_version: null, base_revisionid: null }),
    ]);
    const one = await api('GET', `/acknowledgements/${release.releaseid}`, { token: trainee.token });
    expect(one.body.diff.from_revisionid).toBeNull();
    expect(one.body.diff.steps.every((step: { change: string }) => step.change === 'added')).toBe(true);
    expect(one.body.diff.steps.length).toBeGreaterThan(0);

    // Completing the document on that release settles it: superseded, out of the lists, never overdue.
    expect((await complete(trainee.token, guide.guideid)).status).toBe(200);
    expect(await pendingOf(trainee.token)).toEqual([]);
    const settled = await api('GET', `/acknowledgements/${release.releaseid}`, { token: trainee.token });
    expect(settled.body.acknowledgement).toMatchObject({ state: 'superseded', signed_date: null });
    const signatures = await api('GET', `/acknowledgements/${release.releaseid}/signatures`, { token: admin });
    expect(signatures.body).toMatchObject({ signed: [], not_signed: [] });
    const signing = await api('POST', `/acknowledgements/${release.releaseid}/sign`, {
      token: trainee.token,
      body: { password: trainee.password },
    });
    expect(signing.status).toBe(409);
    expect(signing.body.state).toBe('superseded');
    const verified = await api('GET', `/audit/users/${trainee.userid}/verify`, { token: admin });
    expect(verified.body).toMatchObject({ valid: true });
  });

  it("a course stage's own strictness decides: `minor` asks on a minor release, `major` does not", async () => {
    const guide = await stageGuide();
    const [strict, lenient, strictTrainee, lenientTrainee] = await Promise.all([
      createCourse({ stages: [{ doctype: 'guide', docid: guide.guideid, strictness: 'minor' }] }),
      createCourse({ stages: [{ doctype: 'guide', docid: guide.guideid, strictness: 'major' }] }),
      createUser(),
      createUser(),
    ]);
    await Promise.all([
      assign({ wikiid: strict.wikiid, userid: strictTrainee.userid }),
      assign({ wikiid: lenient.wikiid, userid: lenientTrainee.userid }),
    ]);
    // The document's own setting is only the fallback: the stages name theirs.
    const admin = await loginAdmin();
    const settings = `/acknowledgements/settings/guides/${guide.guideid}`;
    expect((await api('PUT', settings, { token: admin, body: { strictness: 'major' } })).status).toBe(200);
    await releaseGuide(guide.guideid, 'major');
    const [first] = await pendingOf(strictTrainee.token);
    await api('POST', `/acknowledgements/${first.releaseid}/sign`, {
      token: strictTrainee.token,
      body: { password: strictTrainee.password },
    });
    const [lenientFirst] = await pendingOf(lenientTrainee.token);
    await api('POST', `/acknowledgements/${lenientFirst.releaseid}/sign`, {
      token: lenientTrainee.token,
      body: { password: lenientTrainee.password },
    });
    const minor = await releaseGuide(guide.guideid, 'minor');
    expect((await pendingOf(strictTrainee.token)).map((ack) => [ack.releaseid, ack.base_version])).toEqual([
      [minor.releaseid, '1.0'],
    ]);
    expect(await pendingOf(lenientTrainee.token)).toEqual([]);
  });
});

describe("a supervisor's countersignature on chosen steps", () => {
  it('marked steps: the signature is complete only once a qualified supervisor countersigns', async () => {
    const { admin, guide, trainee, assignment, release } = await traineeOnNewMajor();
    // The step 2.0 added (POST steps answers the whole guide: its last step).
    const guideNow = await api('GET', `/guides/${guide.guideid}`, { token: admin });
    const step = guideNow.body.steps.at(-1);
    const path = `/acknowledgements/${release.releaseid}/countersign-steps`;
    const stranger = await createUser();
    expect((await api('PUT', path, { token: stranger.token, body: { stepids: [step.stepid] } })).status).toBe(403);
    const unknown = await api('PUT', path, { token: admin, body: { stepids: [99999999] } });
    expect(unknown.status).toBe(422);
    const marked = await api('PUT', path, { token: admin, body: { stepids: [step.stepid] } });
    expect(marked.body).toEqual({ releaseid: release.releaseid, stepids: [step.stepid] });
    expect((await api('GET', path, { token: admin })).body.stepids).toEqual([step.stepid]);

    const signed = await api('POST', `/acknowledgements/${release.releaseid}/sign`, {
      token: trainee.token,
      body: { password: trainee.password },
    });
    expect(signed.status).toBe(200);
    expect(signed.body).toMatchObject({
      state: 'awaiting_countersignature',
      countersign_stepids: [step.stepid],
      countersignature: null,
    });
    // Not complete: the completion does not carry over yet.
    const id = assignment.course_assignmentid;
    expect(await stageState(id, trainee.userid)).toEqual({ status: 'invalidated', reason: 'newer_release' });
    const signatures = await api('GET', `/acknowledgements/${release.releaseid}/signatures`, { token: admin });
    expect(signatures.body.signed).toEqual([expect.objectContaining({ awaiting_countersignature: true })]);

    // Who may countersign: not the person, not someone without level 4 in the guide's skills.
    const supervisor = await createUser();
    const skill = await api('POST', '/qualifications/skills', {
      token: admin,
      body: { name: `Seals ${guide.guideid}`, guideids: [guide.guideid] },
    });
    expect(
      (
        await api('PUT', `/qualifications/skills/${skill.body.skillid}/levels/${supervisor.userid}`, {
          token: admin,
          body: { level: 4, password: ADMIN.password },
        })
      ).status,
    ).toBe(200);
    const countersign = (who: { token: string }, password: string) =>
      api('POST', `/acknowledgements/${release.releaseid}/countersign/${trainee.userid}`, {
        token: who.token,
        body: { password, comment: 'Watched the seal check.' },
      });
    expect((await countersign(trainee, trainee.password)).status).toBe(403);
    expect((await countersign(stranger, stranger.password)).status).toBe(403);
    expect((await countersign(supervisor, 'wrong')).status).toBe(422);
    const done = await countersign(supervisor, supervisor.password);
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({
      state: 'signed',
      countersignature: { userid: supervisor.userid, comment: 'Watched the seal check.' },
    });
    expect(await stageState(id, trainee.userid)).toEqual({ status: 'completed', reason: 'completed' });
    expect((await countersign(supervisor, supervisor.password)).status).toBe(409);

    const events = await localDb().send(
      new QueryCommand({
        TableName: 'stepwise',
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': `OUTBOX#ACK#${release.releaseid}#${trainee.userid}` },
      }),
    );
    expect((events.Items ?? []).map((item) => item.name).sort()).toEqual([
      'acknowledgement.countersign_requested',
      'acknowledgement.countersigned',
    ]);
    for (const chain of [`users/${trainee.userid}`, `users/${supervisor.userid}`, `documents/guide/${guide.guideid}`]) {
      const verified = await api('GET', `/audit/${chain}/verify`, { token: admin });
      expect(verified.body).toMatchObject({ valid: true, first_broken_seq: null });
    }
  });
});

describe('client_guid on signing', () => {
  it('the same guid for the same release answers the signature made; for another release 409; the list filters by it', async () => {
    const { guide, trainee, release } = await traineeOnNewMajor();
    const guid = crypto.randomUUID();
    const sign = (releaseid: number, client_guid: string) =>
      api('POST', `/acknowledgements/${releaseid}/sign`, {
        token: trainee.token,
        body: { password: trainee.password, client_guid },
      });
    const first = await sign(release.releaseid, guid.toUpperCase());
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ state: 'signed', client_guid: guid });
    const again = await sign(release.releaseid, guid);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    // Without the guid a second signature is still 409.
    const plain = await api('POST', `/acknowledgements/${release.releaseid}/sign`, {
      token: trainee.token,
      body: { password: trainee.password },
    });
    expect(plain.status).toBe(409);

    const next = await releaseGuide(guide.guideid, 'major');
    expect((await pendingAfterFirst(trainee.token)).map((ack) => ack.releaseid)).toEqual([next.releaseid]);
    const reused = await sign(next.releaseid, guid);
    expect(reused.status).toBe(409);
    expect(reused.body.releaseid).toBe(release.releaseid);
    expect((await pendingAfterFirst(trainee.token)).map((ack) => ack.releaseid)).toEqual([next.releaseid]);

    expect(await pendingOf(trainee.token, { client_guid: guid })).toEqual([first.body]);
    expect(await pendingOf(trainee.token, { client_guid: crypto.randomUUID() })).toEqual([]);
    const other = await createUser();
    expect(await pendingOf(other.token, { client_guid: guid })).toEqual([]);
    const bad = await api('GET', '/acknowledgements', { token: trainee.token, query: { client_guid: 'nope' } });
    expect(bad.status).toBe(422);
  });
});

/** The stored course row's status of the stage (what the lists and aggregates show). */
async function storedStage(assignmentid: number, userid: number) {
  const { Item } = await localDb().send(
    new GetCommand({
      TableName: 'stepwise',
      Key: { pk: `ASSIGNMENT#${assignmentid}`, sk: `ROW#${String(userid).padStart(12, '0')}` },
    }),
  );
  return { status: Item?.stages[0].status, reason: Item?.stages[0].reason };
}

describe('retraining refreshes every trainee', () => {
  it('a trainee not asked to acknowledge (a minor release under major strictness) sees the mark in their stored row', async () => {
    const admin = await loginAdmin();
    const { guide, trainee, assignment } = await assignedTrainee({ strictness: 'major' });
    await releaseGuide(guide.guideid, 'major');
    expect((await complete(trainee.token, guide.guideid)).status).toBe(200);
    const minor = await releaseGuide(guide.guideid, 'minor');
    expect(await pendingAfterFirst(trainee.token)).toEqual([]);
    expect(await storedStage(assignment.course_assignmentid, trainee.userid)).toEqual({
      status: 'completed',
      reason: 'completed',
    });
    expect((await api('POST', `/acknowledgements/${minor.releaseid}/retraining`, { token: admin })).status).toBe(200);
    expect(await storedStage(assignment.course_assignmentid, trainee.userid)).toEqual({
      status: 'invalidated',
      reason: 'newer_release',
    });
  });
});

describe('audience, settings, lists and overdue', () => {
  it('the author adds an audience; due days come from the settings; overdue emits an event once', async () => {
    const admin = await loginAdmin();
    const author = await createUser({ privileges: ['Author'] });
    const reader = await createUser();
    const guide = await createGuide(author.token);
    const settingsPath = `/acknowledgements/settings/guides/${guide.guideid}`;
    expect(
      (await api('PUT', settingsPath, { token: reader.token, body: { audience_userids: [reader.userid] } })).status,
    ).toBe(403);
    const put = await api('PUT', settingsPath, {
      token: author.token,
      body: { audience_userids: [reader.userid], due_days: 3 },
    });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ strictness: null, due_days: 3, audience_userids: [reader.userid] });
    expect((await api('GET', settingsPath, { token: author.token })).body.due_days).toBe(3);

    const release = await api('POST', '/guides/releases', {
      token: author.token,
      body: { guideid: guide.guideid, release_type: 'major' },
    });
    expect(release.status).toBe(201);
    const [ack] = await pendingOf(reader.token);
    expect(ack).toMatchObject({ releaseid: release.body.releaseid, reasons: ['audience'], base_version: null });
    expect(ack.due_date - release.body.release_date).toBe(3 * 86400);

    // The document's list: its editors; not the reader.
    expect(
      (await api('GET', '/acknowledgements', { token: reader.token, query: { guideid: guide.guideid } })).status,
    ).toBe(403);
    const byDocument = await pendingOf(author.token, { guideid: guide.guideid });
    expect(byDocument.map((item) => item.userid)).toEqual([reader.userid]);
    // Another person's acknowledgement: its editors, not a stranger.
    expect(
      (
        await api('GET', `/acknowledgements/${ack.releaseid}`, {
          token: (await createUser()).token,
          query: { userid: reader.userid },
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await api('GET', `/acknowledgements/${ack.releaseid}`, {
          token: author.token,
          query: { userid: reader.userid },
        })
      ).status,
    ).toBe(200);
    expect((await api('GET', `/acknowledgements/${ack.releaseid}`, { token: author.token })).status).toBe(404);

    // Past its due date: overdue, and acknowledgement.overdue is emitted once however often it is seen.
    const pad = (n: number) => String(n).padStart(12, '0');
    const due = Math.floor(Date.now() / 1000) - 60;
    await localDb().send(
      new UpdateCommand({
        TableName: 'stepwise',
        Key: { pk: `ACK#${ack.releaseid}`, sk: `USER#${pad(reader.userid)}` },
        UpdateExpression: 'SET due_date = :due, gsi1sk = :sk',
        ExpressionAttributeValues: { ':due': due, ':sk': `pending#${pad(due)}#${pad(ack.releaseid)}` },
      }),
    );
    expect((await pendingOf(reader.token))[0].state).toBe('overdue');
    await pendingOf(reader.token);
    const signatures = await api('GET', `/acknowledgements/${ack.releaseid}/signatures`, { token: admin });
    expect(signatures.body.not_signed).toEqual([{ userid: reader.userid, due_date: due, overdue: true }]);
    const events = await localDb().send(
      new QueryCommand({
        TableName: 'stepwise',
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': `OUTBOX#ACK#${ack.releaseid}#${reader.userid}` },
      }),
    );
    expect((events.Items ?? []).filter((item) => item.name === 'acknowledgement.overdue')).toHaveLength(1);
  });

  it("a team's pending list is for its owner and Admins", async () => {
    const owner = await createUser();
    const { trainee, guide } = await traineeOnNewMajor();
    const team = await createTeam({ owner: owner.userid, members: [trainee.userid] });
    const mine = await pendingAfterFirst(owner.token, { teamid: team.teamid });
    expect(mine.map((item) => [item.userid, item.docid])).toEqual([[trainee.userid, guide.guideid]]);
    expect(
      (await api('GET', '/acknowledgements', { token: trainee.token, query: { teamid: team.teamid } })).status,
    ).toBe(403);
    expect((await api('GET', '/acknowledgements', { token: owner.token, query: { teamid: 99999999 } })).status).toBe(
      404,
    );
  });

  it('refusals: unknown release 404, not asked 404, anonymous 401', async () => {
    const user = await createUser();
    const { release } = await traineeOnNewMajor();
    expect((await api('GET', '/acknowledgements/99999999', { token: user.token })).status).toBe(404);
    expect((await api('GET', `/acknowledgements/${release.releaseid}`, { token: user.token })).status).toBe(404);
    const notAsked = await api('POST', `/acknowledgements/${release.releaseid}/sign`, {
      token: user.token,
      body: { password: user.password },
    });
    expect(notAsked.status).toBe(404);
    expect((await api('GET', `/acknowledgements/${release.releaseid}/signatures`, { token: user.token })).status).toBe(
      403,
    );
    expect((await api('GET', '/acknowledgements')).status).toBe(401);
    const both = await api('GET', '/acknowledgements', { token: user.token, query: { teamid: 1, guideid: 1 } });
    expect(both.status).toBe(422);
    expect(both.body.errors[0].code).toBe('conflicting_filters');
  });
});

describe('wiki pages', () => {
  it('the diff of a wiki page is line by line', async () => {
    const admin = await loginAdmin();
    const reader = await createUser();
    const page = await createWiki({ contents: 'Line one\nLine two' });
    await api('PUT', `/acknowledgements/settings/wikis/${page.wikiid}`, {
      token: admin,
      body: { audience_userids: [reader.userid] },
    });
    const first = await api('POST', `/wikis/${page.wikiid}/releases`, {
      token: admin,
      body: { release_type: 'major' },
    });
    expect(first.status).toBe(201);
    const signedFirst = await api('POST', `/acknowledgements/${first.body.releaseid}/sign`, {
      token: reader.token,
      body: { password: reader.password },
    });
    expect(signedFirst.status).toBe(200);
    const edited = await api('PATCH', wikiPath(page), {
      token: admin,
      query: { revisionid: page.revisionid },
      body: { contents: 'Line one\nLine 2' },
    });
    expect(edited.status).toBe(200);
    const second = await api('POST', `/wikis/${page.wikiid}/releases`, {
      token: admin,
      body: { release_type: 'major' },
    });
    const one = await api('GET', `/acknowledgements/${second.body.releaseid}`, { token: reader.token });
    expect(one.status).toBe(200);
    expect(one.body.acknowledgement.base_version).toBe('1.0');
    expect(one.body.diff.lines).toEqual([
      { op: 'same', text: 'Line one' },
      { op: 'removed', text: 'Line two' },
      { op: 'added', text: 'Line 2' },
    ]);
  });
});

describe('a release held for approval', () => {
  it('asks for acknowledgements only once approved', async () => {
    const author = await createUser({ privileges: ['Author'] });
    const reader = await createUser();
    const approver = await createUser();
    const team = await compliance.createTeam(approver, []);
    const process = await compliance.createProcess([{ name: 'Quality', teamid: team, quorum: 1 }]);
    const category = await compliance.createCategory();
    await compliance.attach(category.wikiid, process.approval_processid);
    const guide = await compliance.createGuide(author.token, category.title);
    await api('PUT', `/acknowledgements/settings/guides/${guide.guideid}`, {
      token: author.token,
      body: { audience_userids: [reader.userid] },
    });
    const pending = await api('POST', '/guides/releases', {
      token: author.token,
      body: { guideid: guide.guideid, release_type: 'major' },
    });
    expect(pending.status).toBe(201);
    expect(pending.body.status).toBe('pending_approval');
    expect(await pendingOf(reader.token)).toEqual([]);
    const signed = await api('POST', `/approvals/request/sign/${pending.body.approval_requestid}`, {
      token: approver.token,
      body: { meaning: 'approve', reason: 'Checked', password: approver.password },
    });
    expect(signed.body.status).toBe('approved');
    expect(await pendingOf(reader.token)).toEqual([
      expect.objectContaining({ releaseid: pending.body.releaseid, version: '1.0', reasons: ['audience'] }),
    ]);
  });
});
