/**
 * Approvals started from the spec's own endpoints: a release of a document governed by an
 * approval process (POST /guides/releases, POST /wikis/{wikiid}/releases) opens an approval
 * request and stays pending until it is approved; only then is it the current release that
 * course stages see (strictness). A rejection or a new revision leaves the earlier release
 * current. Driven as a client that knows only the spec would: process, attachment (PUT
 * /approvals/{wikiid}/{processid}), release, GET /approvals/requests, sign.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, loginAdmin, type TestUser } from '../support/api.ts';
import { createCategory, createGuide, createProcess, createTeam, editGuide } from '../support/compliance.ts';
import { assign, createCourse, entryOf, getAssignment } from '../support/courses.ts';
import { createWiki } from '../support/wikis.ts';

let admin: string;
let author: TestUser;
let approvers: TestUser[];
let outsider: TestUser;
let processid: number;
/** A category page governed by the process, and one that is not. */
let governed: { wikiid: number; title: string };
let ungoverned: { wikiid: number; title: string };

const release = (guideid: number, body: Record<string, unknown> = {}, token = author.token) =>
  api('POST', '/guides/releases', {
    token,
    body: { guideid, release_type: 'major', notes: 'Torque values per ECO-12', ...body },
  });

const releasesOf = async (guideid: number) => {
  const response = await api('GET', `/guides/${guideid}/releases`, { token: author.token });
  expect(response.status).toBe(200);
  return response.body.releases as Array<Record<string, any>>;
};

const sign = (requestid: number, signer: TestUser, meaning: 'approve' | 'reject' = 'approve') =>
  api('POST', `/approvals/request/sign/${requestid}`, {
    token: signer.token,
    body: { meaning, reason: 'Checked against the change order', password: signer.password },
  });

/** The approver's pending work as GET /approvals/requests lists it. */
async function pendingFor(approver: TestUser) {
  const response = await api('GET', '/approvals/requests', { token: approver.token, query: { limit: 100 } });
  expect(response.status).toBe(200);
  return response.body.pending as Array<Record<string, any>>;
}

/** A course stage on a document, assigned to a fresh trainee who completes it now. */
async function traineeWhoCompleted(doctype: 'guide' | 'wiki', docid: number, strictness: 'major' | 'minor') {
  const course = await createCourse({ stages: [{ doctype, docid, strictness }] });
  const trainee = await createUser();
  const assignment = await assign({ wikiid: course.wikiid, userid: trainee.userid });
  const done = await api('PATCH', `/course_assignments/complete/${doctype}/${docid}`, {
    token: trainee.token,
    body: {},
  });
  expect(done.status).toBe(200);
  const stageState = async () =>
    entryOf((await getAssignment(assignment.course_assignmentid)).body, trainee.userid).stage_status as {
      status: string;
      reason: string;
    };
  expect(await stageState()).toEqual({ status: 'completed', reason: 'completed' });
  return Object.assign(stageState, { trainee });
}

/** The trainee's stored course row (refreshed by the release hook), as the completion report shows it. */
async function reportedCourse(userid: number) {
  const report = await api('GET', `/course_assignments/completion/user/${userid}`, { token: admin });
  expect(report.status).toBe(200);
  return report.body.courses[0] as { status: string; completed_stages: number };
}

/** Releases a guide through approval (asked, then approved): the released view. */
async function releasedThroughApproval(guideid: number, release_type: 'major' | 'minor') {
  const pending = await release(guideid, { release_type });
  expect(pending.status).toBe(201);
  expect((await sign(pending.body.approval_requestid, approvers[0])).body.status).toBe('approved');
  return (await releasesOf(guideid)).find((entry) => entry.releaseid === pending.body.releaseid)!;
}

beforeAll(async () => {
  admin = await loginAdmin();
  author = await createUser({ privileges: ['Author'] });
  approvers = [await createUser(), await createUser()];
  outsider = await createUser();
  const team = await createTeam(approvers[0], [approvers[1]]);
  processid = (await createProcess([{ name: 'Quality', teamid: team, quorum: 1 }])).approval_processid;
  governed = await createCategory();
  ungoverned = await createCategory();
  const attached = await api('PUT', `/approvals/${governed.wikiid}/${processid}`, { token: admin });
  expect(attached.status).toBe(200);
});

describe('a guide release governed by an approval process', () => {
  it('is pending with an open request; approvers list it; approval makes it current and the course stage sees it', async () => {
    const guide = await createGuide(author.token, governed.title);
    const stageState = await traineeWhoCompleted('guide', guide.guideid, 'major');

    const pending = await release(guide.guideid);
    expect(pending.status).toBe(201);
    expect(pending.body).toMatchObject({
      guideid: guide.guideid,
      revisionid: guide.revisionid,
      status: 'pending_approval',
      version: null,
      major: null,
      release_date: null,
      title: 'Release (pending approval)',
      approval_requestid: expect.any(Number),
    });
    const requestid = pending.body.approval_requestid;

    // Pending: listed with its status, not current, so the completion still stands.
    expect(await releasesOf(guide.guideid)).toEqual([
      expect.objectContaining({ releaseid: pending.body.releaseid, status: 'pending_approval' }),
    ]);
    const all = await api('GET', '/guides/releases', { token: author.token, query: { limit: 50 } });
    expect(
      all.body.releases.find((entry: { releaseid: number }) => entry.releaseid === pending.body.releaseid),
    ).toMatchObject({ status: 'pending_approval' });
    expect(await stageState()).toEqual({ status: 'completed', reason: 'completed' });
    expect(await reportedCourse(stageState.trainee.userid)).toMatchObject({ completed_stages: 1 });

    // Each approver sees it as theirs to sign, with the release it came from; the author as theirs.
    for (const approver of approvers) {
      expect((await pendingFor(approver)).find((request) => request.approval_requestid === requestid)).toMatchObject({
        doctype: 'guide',
        docid: guide.guideid,
        revisionid: guide.revisionid,
        releaseid: pending.body.releaseid,
        status: 'pending',
        can_sign: true,
        notes: 'Torque values per ECO-12',
      });
    }
    const mine = await api('GET', '/approvals/requests', { token: author.token, query: { limit: 100 } });
    expect(mine.body.requested.map((request: { approval_requestid: number }) => request.approval_requestid)).toContain(
      requestid,
    );
    expect(await pendingFor(outsider)).toEqual([]);

    const signed = await sign(requestid, approvers[1]);
    expect(signed.status).toBe(200);
    expect(signed.body).toMatchObject({ status: 'approved', releaseid: pending.body.releaseid });

    const [current] = await releasesOf(guide.guideid);
    expect(current).toMatchObject({
      releaseid: pending.body.releaseid,
      status: 'released',
      version: '1.0',
      major: 1,
      minor: 0,
      title: 'Release V1.0',
      approval_requestid: requestid,
    });
    expect(current.release_date).toBeGreaterThanOrEqual(current.date);
    expect(await stageState()).toEqual({ status: 'invalidated', reason: 'newer_release' });
    // The stored row followed the approval (the release hook ran for it).
    expect(await reportedCourse(stageState.trainee.userid)).toMatchObject({
      status: 'In Progress',
      completed_stages: 0,
    });
    expect((await pendingFor(approvers[0])).map((request) => request.approval_requestid)).not.toContain(requestid);

    // The signature, the request's end and the release are on the guide's audit chain.
    const audit = await api('GET', `/audit/documents/guide/${guide.guideid}`, { token: admin });
    const signedRecord = audit.body.records.find((record: { action: string }) => record.action === 'approval.signed');
    expect(signedRecord.details.release).toEqual({
      releaseid: pending.body.releaseid,
      status: 'released',
      version: '1.0',
    });
  });

  it('a rejection leaves the earlier release current; the rejected one stays listed without a version', async () => {
    const guide = await createGuide(author.token, governed.title);
    const first = await releasedThroughApproval(guide.guideid, 'major');
    const stageState = await traineeWhoCompleted('guide', guide.guideid, 'minor');
    await editGuide(author.token, guide);

    const pending = await release(guide.guideid, { release_type: 'minor' });
    expect(pending.status).toBe(201);
    const rejected = await sign(pending.body.approval_requestid, approvers[0], 'reject');
    expect(rejected.status).toBe(200);
    expect(rejected.body.status).toBe('rejected');

    expect(await releasesOf(guide.guideid)).toEqual([
      expect.objectContaining({
        releaseid: pending.body.releaseid,
        status: 'rejected',
        version: null,
        release_date: null,
      }),
      expect.objectContaining({ releaseid: first.releaseid, status: 'released', version: '1.0' }),
    ]);
    expect(await stageState()).toEqual({ status: 'completed', reason: 'completed' });
    // A rejected release is kept for the record: not deleted, not signed again.
    expect((await sign(pending.body.approval_requestid, approvers[1])).status).toBe(409);

    // The slot is free again: the next release is asked for and, once approved, takes 1.1.
    const next = await releasedThroughApproval(guide.guideid, 'minor');
    expect(next).toMatchObject({ status: 'released', version: '1.1' });
    expect(await stageState()).toEqual({ status: 'invalidated', reason: 'newer_release' });
  });

  it('a new revision supersedes the request, and the release never becomes current', async () => {
    const guide = await createGuide(author.token, governed.title);
    const pending = await release(guide.guideid);
    const revisionid = await editGuide(author.token, guide);

    const request = await api('GET', `/approvals/request/${pending.body.approval_requestid}`, {
      token: approvers[0].token,
    });
    expect(request.body).toMatchObject({
      status: 'superseded',
      superseded_by_revisionid: revisionid,
      releaseid: pending.body.releaseid,
    });
    expect(await releasesOf(guide.guideid)).toEqual([
      expect.objectContaining({ releaseid: pending.body.releaseid, status: 'superseded', version: null }),
    ]);
    expect((await sign(pending.body.approval_requestid, approvers[0])).status).toBe(409);

    const again = await release(guide.guideid);
    expect(again.body).toMatchObject({ status: 'pending_approval', revisionid });
  });

  it('one release waits at a time (409 with it); a waiting release is not deleted (409); earlier revisions are not released through approval (409)', async () => {
    const guide = await createGuide(author.token, governed.title);
    const pending = await release(guide.guideid);
    const second = await release(guide.guideid, { release_type: 'minor' });
    expect(second.status).toBe(409);
    expect(second.body.approval_request).toMatchObject({
      approval_requestid: pending.body.approval_requestid,
      releaseid: pending.body.releaseid,
      status: 'pending',
    });
    expect(second.body.release).toMatchObject({ releaseid: pending.body.releaseid, status: 'pending_approval' });
    // POST /approvals/requests stays, and agrees: the revision's request is already open.
    const direct = await api('POST', '/approvals/requests', {
      token: author.token,
      query: { revisionid: guide.revisionid },
      body: { doctype: 'guide', docid: guide.guideid },
    });
    expect(direct.status).toBe(409);
    expect(direct.body.approval_requestid).toBe(pending.body.approval_requestid);

    const removed = await api('DELETE', `/guides/releases/${pending.body.releaseid}`, { token: author.token });
    expect(removed.status).toBe(409);
    expect(removed.body).toMatchObject({ releaseid: pending.body.releaseid, status: 'pending_approval' });
    expect(await releasesOf(guide.guideid)).toHaveLength(1);

    const edited = await editGuide(author.token, guide);
    const older = await release(guide.guideid, { revisionid: guide.revisionid });
    expect(older.status).toBe(409);
    expect(older.body).toMatchObject({ doctype: 'guide', docid: guide.guideid, revisionid: edited });
    // Approved and released, it can be deleted like any release.
    const approved = await releasedThroughApproval(guide.guideid, 'major');
    expect((await api('DELETE', `/guides/releases/${approved.releaseid}`, { token: author.token })).status).toBe(204);
  });

  it('a revision already approved (POST /approvals/requests) is released at once, even after later edits; unapproved ones wait', async () => {
    const guide = await createGuide(author.token, governed.title);
    const direct = await api('POST', '/approvals/requests', {
      token: author.token,
      query: { revisionid: guide.revisionid },
      body: { doctype: 'guide', docid: guide.guideid },
    });
    expect(direct.status).toBe(201);
    expect(direct.body.releaseid).toBeNull();
    // While it is open, a release of that revision waits for it to end (409 with the request).
    const early = await release(guide.guideid);
    expect(early.status).toBe(409);
    expect(early.body).toMatchObject({
      approval_request: { approval_requestid: direct.body.approval_requestid, releaseid: null },
      release: null,
    });
    expect((await sign(direct.body.approval_requestid, approvers[0])).body.status).toBe('approved');

    const released = await release(guide.guideid);
    expect(released.status).toBe(201);
    expect(released.body).toMatchObject({
      status: 'released',
      version: '1.0',
      approval_requestid: direct.body.approval_requestid,
    });
    const edited = await editGuide(author.token, guide);
    const ofApproved = await release(guide.guideid, { revisionid: guide.revisionid, release_type: 'minor' });
    expect(ofApproved.body).toMatchObject({ status: 'released', version: '1.1', revisionid: guide.revisionid });
    const ofEdited = await release(guide.guideid, { release_type: 'minor' });
    expect(ofEdited.body).toMatchObject({ status: 'pending_approval', revisionid: edited });
  });

  it('refuses signatures from outside the stage team (403), from the requester (403), anonymous (401) and twice (409)', async () => {
    const guide = await createGuide(author.token, governed.title);
    const pending = await release(guide.guideid);
    const id = pending.body.approval_requestid;
    expect((await sign(id, outsider)).status).toBe(403);
    expect((await sign(id, author)).status).toBe(403);
    expect(
      (
        await api('POST', `/approvals/request/sign/${id}`, {
          body: { meaning: 'approve', reason: 'x', password: 'x' },
        })
      ).status,
    ).toBe(401);
    expect((await api('GET', `/approvals/request/${id}`, { token: outsider.token })).status).toBe(403);
    expect(await releasesOf(guide.guideid)).toEqual([expect.objectContaining({ status: 'pending_approval' })]);
    expect((await sign(id, approvers[0])).status).toBe(200);
    expect((await sign(id, approvers[1])).status).toBe(409);
    expect((await releasesOf(guide.guideid))[0]).toMatchObject({ status: 'released', version: '1.0' });
  });

  it('only those who may edit the guide release it (403), and nothing is opened', async () => {
    const guide = await createGuide(author.token, governed.title);
    const other = await createUser({ privileges: ['Author'] });
    expect((await release(guide.guideid, {}, other.token)).status).toBe(403);
    expect((await release(guide.guideid, {}, outsider.token)).status).toBe(403);
    expect(await releasesOf(guide.guideid)).toEqual([]);
    const governing = await api('GET', `/guides/${guide.guideid}/approvalProcesses`, { token: author.token });
    expect(governing.body.open_request).toBeNull();
  });
});

describe('documents no approval process governs', () => {
  it('release at once, as before', async () => {
    const guide = await createGuide(author.token, ungoverned.title);
    const released = await release(guide.guideid);
    expect(released.status).toBe(201);
    expect(released.body).toMatchObject({
      status: 'released',
      version: '1.0',
      approval_requestid: null,
      release_date: expect.any(Number),
    });
  });

  it('POST /guides/duplicateReleases refuses governed targets (422 approval_required), all or none', async () => {
    const source = await createGuide(author.token, ungoverned.title);
    const sourceRelease = await release(source.guideid);
    const plain = await createGuide(author.token, ungoverned.title);
    const guarded = await createGuide(author.token, governed.title);
    const response = await api('POST', '/guides/duplicateReleases', {
      token: author.token,
      body: { releaseid: sourceRelease.body.releaseid, guideids: [plain.guideid, guarded.guideid] },
    });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual([expect.objectContaining({ field: 'guideids', code: 'approval_required' })]);
    expect(await releasesOf(plain.guideid)).toEqual([]);
  });
});

describe('a wiki release governed by an approval process', () => {
  it('is pending until approved, then the stage on the page sees it; a rejected one changes nothing', async () => {
    const parent = await createWiki();
    const page = await createWiki({ parent: parent.title });
    expect((await api('PUT', `/approvals/${parent.wikiid}/${processid}`, { token: admin })).status).toBe(200);
    const stageState = await traineeWhoCompleted('wiki', page.wikiid, 'minor');

    const releaseWiki = (release_type: string) =>
      api('POST', `/wikis/${page.wikiid}/releases`, {
        token: author.token,
        body: { release_type, notes: 'Reviewed wording' },
      });
    const rejectedOne = await releaseWiki('minor');
    expect(rejectedOne.status).toBe(201);
    expect(rejectedOne.body).toMatchObject({ wikiid: page.wikiid, status: 'pending_approval', version: null });
    expect(
      (await pendingFor(approvers[1])).find(
        (request) => request.approval_requestid === rejectedOne.body.approval_requestid,
      ),
    ).toMatchObject({
      doctype: 'wiki',
      docid: page.wikiid,
      releaseid: rejectedOne.body.releaseid,
    });
    expect((await releaseWiki('major')).status).toBe(409);
    expect((await sign(rejectedOne.body.approval_requestid, approvers[1], 'reject')).body.status).toBe('rejected');
    expect(await stageState()).toEqual({ status: 'completed', reason: 'completed' });

    const approvedOne = await releaseWiki('minor');
    expect(approvedOne.status).toBe(201);
    expect(await stageState()).toEqual({ status: 'completed', reason: 'completed' });
    expect((await sign(approvedOne.body.approval_requestid, approvers[0])).body).toMatchObject({
      status: 'approved',
      releaseid: approvedOne.body.releaseid,
    });
    expect(await stageState()).toEqual({ status: 'invalidated', reason: 'newer_release' });
  });
});
