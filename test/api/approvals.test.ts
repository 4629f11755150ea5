/**
 * Approvals: processes, attachment (guides through their category), requests signed stage by
 * stage with electronic signatures (password or single-use token), quorum 2 of 3, rejection,
 * supersession by a new revision, and the refusals around them.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, loginAdmin, uniqueSuffix, type TestUser } from '../support/api.ts';
import {
  attach,
  createCategory,
  createGuide,
  createProcess,
  createTeam,
  createUsers,
  editGuide,
} from '../support/compliance.ts';

let admin: string;
let author: TestUser;
/** The three members of the quality team (quorum 2 of 3). */
let quality: TestUser[];
let lead: TestUser;
let outsider: TestUser;
let qualityTeam: number;
let leadTeam: number;
let process: Awaited<ReturnType<typeof createProcess>>;
let category: { wikiid: number; title: string };

async function requestApproval(guide: { guideid: number; revisionid: number }, token = author.token) {
  return api('POST', '/approvals/requests', {
    token,
    query: { revisionid: guide.revisionid },
    body: { doctype: 'guide', docid: guide.guideid, notes: 'New torque values' },
  });
}

async function newRequest() {
  const guide = await createGuide(author.token, category.title);
  const response = await requestApproval(guide);
  expect(response.status).toBe(201);
  return { guide, request: response.body };
}

const sign = (id: number, signer: TestUser, body: Record<string, unknown> = {}) =>
  api('POST', `/approvals/request/sign/${id}`, {
    token: signer.token,
    body: { meaning: 'approve', reason: 'Checked against the change order', password: signer.password, ...body },
  });

beforeAll(async () => {
  admin = await loginAdmin();
  author = await createUser({ privileges: ['Author'] });
  [lead, outsider, ...quality] = await createUsers(5);
  qualityTeam = await createTeam(quality[0], quality.slice(1));
  leadTeam = await createTeam(lead, []);
  process = await createProcess([
    { name: 'Quality', teamid: qualityTeam, quorum: 2 },
    { name: 'Site lead', teamid: leadTeam, quorum: 1 },
  ]);
  category = await createCategory();
  await attach(category.wikiid, process.approval_processid);
});

describe('approval processes', () => {
  it('creates a process (201) with numbered stages and team names; GET and the list show it', async () => {
    expect(process.stages).toEqual([
      expect.objectContaining({
        stage: 1,
        name: 'Quality',
        teamid: qualityTeam,
        quorum: 2,
        team_name: expect.stringContaining('Signers'),
      }),
      expect.objectContaining({ stage: 2, name: 'Site lead', teamid: leadTeam, quorum: 1 }),
    ]);
    const one = await api('GET', `/approvals/process/${process.approval_processid}`, { token: outsider.token });
    expect(one.status).toBe(200);
    expect(one.body).toEqual(process);
    const list = await api('GET', '/approvals/processes', { token: outsider.token, query: { limit: 200 } });
    expect(list.body.processes.map((p: { approval_processid: number }) => p.approval_processid)).toContain(
      process.approval_processid,
    );
  });

  it('refuses stages that cannot work (422): unknown team, quorum above the team size, more than 10 stages, none', async () => {
    const post = (stages: unknown) =>
      api('POST', '/approvals/process', { token: admin, body: { name: 'Broken', stages } });
    const unknownTeam = await post([{ teamid: 99999999, quorum: 1 }]);
    expect(unknownTeam.status).toBe(422);
    expect(unknownTeam.body.errors[0]).toMatchObject({ field: 'stages.0.teamid', code: 'not_found' });
    const tooBig = await post([{ teamid: leadTeam, quorum: 2 }]);
    expect(tooBig.body.errors[0]).toMatchObject({ field: 'stages.0.quorum', code: 'exceeds_team' });
    expect((await post(Array.from({ length: 11 }, () => ({ teamid: leadTeam, quorum: 1 })))).status).toBe(422);
    expect((await post([])).status).toBe(422);
  });

  it('is created and changed by Admins only (403)', async () => {
    expect(
      (
        await api('POST', '/approvals/process', {
          token: author.token,
          body: { name: 'X', stages: [{ teamid: leadTeam, quorum: 1 }] },
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await api('PATCH', `/approvals/process/${process.approval_processid}`, {
          token: author.token,
          body: { name: 'X' },
        })
      ).status,
    ).toBe(403);
  });

  it('PATCH renames (found by the new name, not the old) and replaces stages; 422 for an empty change', async () => {
    const word = `zebra${uniqueSuffix()}`;
    const other = await createProcess([{ teamid: leadTeam, quorum: 1 }], `Old ${word} name`);
    expect(
      (await api('GET', `/approvals/process/search/${word}`, { token: outsider.token })).body.processes,
    ).toHaveLength(1);
    const renamed = await api('PATCH', `/approvals/process/${other.approval_processid}`, {
      token: admin,
      body: { name: `Quokka${word}`, stages: [{ teamid: qualityTeam, quorum: 3 }] },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({
      name: `Quokka${word}`,
      stages: [{ stage: 1, teamid: qualityTeam, quorum: 3, name: 'Stage 1' }],
    });
    expect((await api('GET', `/approvals/process/search/${word}`, { token: outsider.token })).body.processes).toEqual(
      [],
    );
    const found = await api('GET', `/approvals/process/search/quokka${word.slice(0, 8)}`, { token: outsider.token });
    expect(found.body.processes.map((p: { approval_processid: number }) => p.approval_processid)).toEqual([
      other.approval_processid,
    ]);
    expect(
      (await api('PATCH', `/approvals/process/${other.approval_processid}`, { token: admin, body: {} })).status,
    ).toBe(422);
  });
});

describe('attaching processes', () => {
  it('a guide is governed by its category chain, nearest first; detaching removes one', async () => {
    const parent = await createCategory();
    const child = await createCategory(parent.title);
    const outer = await createProcess([{ teamid: leadTeam, quorum: 1 }]);
    const inner = await createProcess([{ teamid: qualityTeam, quorum: 1 }]);
    const attached = await attach(parent.wikiid, outer.approval_processid);
    expect(attached).toMatchObject({
      wikiid: parent.wikiid,
      approval_processid: outer.approval_processid,
      process: { name: outer.name },
    });
    await attach(child.wikiid, inner.approval_processid);
    const guide = await createGuide(author.token, child.title);
    const governing = await api('GET', `/guides/${guide.guideid}/approvalProcesses`, { token: author.token });
    expect(governing.status).toBe(200);
    expect(
      governing.body.approval_processes.map((p: any) => [p.approval_processid, p.attached_to.wikiid, p.effective]),
    ).toEqual([
      [inner.approval_processid, child.wikiid, true],
      [outer.approval_processid, parent.wikiid, false],
    ]);
    expect(governing.body.open_request).toBeNull();

    expect((await api('DELETE', `/approvals/${child.wikiid}`, { token: admin })).status).toBe(204);
    expect((await api('DELETE', `/approvals/${child.wikiid}`, { token: admin })).status).toBe(404);
    const after = await api('GET', `/guides/${guide.guideid}/approvalProcesses`, { token: author.token });
    expect(after.body.approval_processes.map((p: any) => [p.approval_processid, p.effective])).toEqual([
      [outer.approval_processid, true],
    ]);
  });

  it("PUT is 404 for an unknown page or process, 403 for non-Admins; a private guide's processes are for its readers", async () => {
    expect((await api('PUT', `/approvals/99999999/${process.approval_processid}`, { token: admin })).status).toBe(404);
    expect((await api('PUT', `/approvals/${category.wikiid}/99999999`, { token: admin })).status).toBe(404);
    expect(
      (await api('PUT', `/approvals/${category.wikiid}/${process.approval_processid}`, { token: author.token })).status,
    ).toBe(403);
    expect((await api('DELETE', `/approvals/${category.wikiid}`, { token: author.token })).status).toBe(403);
    const privateGuide = await createGuide(author.token, category.title, { public: false });
    expect(
      (await api('GET', `/guides/${privateGuide.guideid}/approvalProcesses`, { token: outsider.token })).status,
    ).toBe(403);
    expect((await api('GET', `/guides/99999999/approvalProcesses`, { token: outsider.token })).status).toBe(404);
  });
});

describe('approval requests', () => {
  it('quorum 2 of 3, then the next stage through an over-the-shoulder token: approved, each signature bound to the revision', async () => {
    const { guide, request } = await newRequest();
    expect(request).toMatchObject({
      doctype: 'guide',
      docid: guide.guideid,
      revisionid: guide.revisionid,
      status: 'pending',
      current_stage: 1,
      approval_processid: process.approval_processid,
      requested_by: author.userid,
      signatures: [],
      stages: [
        { stage: 1, teamid: qualityTeam, quorum: 2, approvals: 0, status: 'pending' },
        { stage: 2, teamid: leadTeam, quorum: 1, approvals: 0, status: 'waiting' },
      ],
    });
    expect(request.revision_hash).toMatch(/^[0-9a-f]{64}$/);
    const id = request.approval_requestid;

    // The first quality signer sees it as pending work; the requester sees it as theirs.
    const work = await api('GET', '/approvals/requests', { token: quality[0].token, query: { limit: 200 } });
    expect(work.body.pending.map((r: any) => r.approval_requestid)).toContain(id);
    expect(work.body.pending.find((r: any) => r.approval_requestid === id).can_sign).toBe(true);
    const mine = await api('GET', '/approvals/requests', { token: author.token });
    expect(mine.body.requested.map((r: any) => r.approval_requestid)).toContain(id);

    const first = await sign(id, quality[0]);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      status: 'pending',
      current_stage: 1,
      stages: [{ approvals: 1, status: 'pending' }, { status: 'waiting' }],
    });
    expect(first.body.signatures[0]).toMatchObject({
      stage: 1,
      userid: quality[0].userid,
      printed_name: expect.stringContaining('Test User'),
      meaning: 'approve',
      reason: 'Checked against the change order',
      revisionid: guide.revisionid,
      revision_hash: request.revision_hash,
      method: 'password',
      entered_by_userid: quality[0].userid,
    });
    expect(first.body.signatures[0].signed_at).toBeGreaterThan(0);
    // Signed already: no second signature, and no longer pending work for that signer.
    expect((await sign(id, quality[0])).status).toBe(403);
    const afterWork = await api('GET', '/approvals/requests', { token: quality[0].token, query: { limit: 200 } });
    expect(afterWork.body.pending.map((r: any) => r.approval_requestid)).not.toContain(id);
    // Stage 2's signer cannot sign stage 1.
    expect((await sign(id, lead)).status).toBe(403);

    const second = await sign(id, quality[1]);
    expect(second.body).toMatchObject({
      status: 'pending',
      current_stage: 2,
      stages: [{ approvals: 2, status: 'approved' }, { status: 'pending' }],
    });
    // Stage 1's team cannot sign stage 2 (the third quality member never needed to sign).
    expect((await sign(id, quality[2])).status).toBe(403);

    // Over the shoulder: the lead types login and password on the author's device.
    const issued = await api('POST', `/approvals/request/sign/${id}/token`, {
      token: author.token,
      body: { login: lead.email, password: lead.password },
    });
    expect(issued.status).toBe(201);
    expect(issued.body).toMatchObject({ approval_requestid: id, signer: { userid: lead.userid } });
    expect(issued.body.expires_at).toBeGreaterThan(Math.floor(Date.now() / 1000));
    const last = await api('POST', `/approvals/request/sign/${id}`, {
      token: author.token,
      body: { meaning: 'approve', reason: 'Released for line 3', signing_token: issued.body.signing_token },
    });
    expect(last.status).toBe(200);
    expect(last.body).toMatchObject({
      status: 'approved',
      current_stage: null,
      stages: [{ status: 'approved' }, { status: 'approved', approvals: 1 }],
    });
    expect(last.body.completed_date).toBeGreaterThan(0);
    expect(last.body.signatures[2]).toMatchObject({
      stage: 2,
      userid: lead.userid,
      method: 'token',
      entered_by_userid: author.userid,
      revision_hash: request.revision_hash,
    });

    // A used token cannot sign again; a finished request takes no signatures (409, body is the request).
    const reused = await api('POST', `/approvals/request/sign/${id}`, {
      token: author.token,
      body: { meaning: 'approve', reason: 'Again', signing_token: issued.body.signing_token },
    });
    expect(reused.status).toBe(409);
    expect(reused.body.status).toBe('approved');
    const fetched = await api('GET', `/approvals/request/${id}`, { token: lead.token });
    expect(fetched.body).toEqual({ ...last.body, can_sign: false });
    const governing = await api('GET', `/guides/${guide.guideid}/approvalProcesses`, { token: author.token });
    expect(governing.body.open_request).toBeNull();
  });

  it('one rejection ends the request', async () => {
    const { request } = await newRequest();
    const rejected = await sign(request.approval_requestid, quality[0], {
      meaning: 'reject',
      reason: 'Step 3 torque value is wrong',
    });
    expect(rejected.status).toBe(200);
    expect(rejected.body).toMatchObject({
      status: 'rejected',
      current_stage: null,
      stages: [{ status: 'rejected' }, { status: 'skipped' }],
    });
    expect(rejected.body.signatures[0]).toMatchObject({ meaning: 'reject', reason: 'Step 3 torque value is wrong' });
    const late = await sign(request.approval_requestid, quality[1]);
    expect(late.status).toBe(409);
    expect(late.body.status).toBe('rejected');
  });

  it('a new revision of the document supersedes the open request; signing it is then refused', async () => {
    const { guide, request } = await newRequest();
    expect((await sign(request.approval_requestid, quality[0])).status).toBe(200);
    const governing = await api('GET', `/guides/${guide.guideid}/approvalProcesses`, { token: author.token });
    expect(governing.body.open_request).toEqual({
      approval_requestid: request.approval_requestid,
      revisionid: guide.revisionid,
    });

    const newRevision = await editGuide(author.token, guide);
    const superseded = await api('GET', `/approvals/request/${request.approval_requestid}`, { token: author.token });
    expect(superseded.body).toMatchObject({
      status: 'superseded',
      superseded_by_revisionid: newRevision,
      current_stage: null,
    });
    const refused = await sign(request.approval_requestid, quality[1]);
    expect(refused.status).toBe(409);
    expect(refused.body.status).toBe('superseded');

    // The new revision can be put up for approval; naming the old one is a 409 with the document.
    const stale = await requestApproval(guide);
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ doctype: 'guide', docid: guide.guideid, revisionid: newRevision });
    const fresh = await requestApproval({ guideid: guide.guideid, revisionid: newRevision });
    expect(fresh.status).toBe(201);
    expect(fresh.body.revision_hash).not.toBe(request.revision_hash);
    // Only one open request per revision: asking again is 409 with the open request.
    const again = await requestApproval({ guideid: guide.guideid, revisionid: newRevision });
    expect(again.status).toBe(409);
    expect(again.body.approval_requestid).toBe(fresh.body.approval_requestid);
  });

  it("a wiki page's own process governs it; editing the page supersedes its request", async () => {
    const page = await api('POST', '/wikis', {
      token: admin,
      body: { namespace: 'WIKI', title: `SOP ${uniqueSuffix()}`, contents: 'Wear gloves.' },
    });
    await attach(page.body.wikiid, process.approval_processid);
    const created = await api('POST', '/approvals/requests', {
      token: author.token,
      query: { revisionid: page.body.revisionid },
      body: { doctype: 'wiki', docid: page.body.wikiid },
    });
    expect(created.status).toBe(201);
    const edited = await api('PATCH', `/wikis/WIKI/${encodeURIComponent(page.body.title)}`, {
      token: admin,
      query: { revisionid: page.body.revisionid },
      body: { contents: 'Wear nitrile gloves.' },
    });
    expect(edited.status).toBe(200);
    const request = await api('GET', `/approvals/request/${created.body.approval_requestid}`, { token: author.token });
    expect(request.body).toMatchObject({ status: 'superseded', superseded_by_revisionid: edited.body.revisionid });
  });

  it('refuses to start: no process (422), no revisionid (422), unknown document (404), plain users (403)', async () => {
    const ungoverned = await createCategory();
    const guide = await createGuide(author.token, ungoverned.title);
    const none = await requestApproval(guide);
    expect(none.status).toBe(422);
    expect(none.body.errors[0]).toMatchObject({ field: 'docid', code: 'no_approval_process' });
    const missing = await api('POST', '/approvals/requests', {
      token: author.token,
      body: { doctype: 'guide', docid: guide.guideid },
    });
    expect(missing.body.errors[0]).toMatchObject({ field: 'revisionid', code: 'missing_field' });
    expect(
      (
        await api('POST', '/approvals/requests', {
          token: author.token,
          query: { revisionid: 1 },
          body: { doctype: 'guide', docid: 99999999 },
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await api('POST', '/approvals/requests', {
          token: outsider.token,
          query: { revisionid: guide.revisionid },
          body: { doctype: 'guide', docid: guide.guideid },
        })
      ).status,
    ).toBe(403);
  });
});

describe('electronic signatures', () => {
  it('a wrong password is 422 and counts toward the login limit (429)', async () => {
    const { request } = await newRequest();
    const wrong = await sign(request.approval_requestid, quality[2], { password: 'not-the-password' });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors[0]).toMatchObject({ field: 'password', code: 'invalid_password' });
    for (let attempt = 1; attempt < 5; attempt++)
      expect((await sign(request.approval_requestid, quality[2], { password: 'still-wrong' })).status).toBe(422);
    const throttled = await sign(request.approval_requestid, quality[2]);
    expect(throttled.status).toBe(429);
    const unchanged = await api('GET', `/approvals/request/${request.approval_requestid}`, { token: author.token });
    expect(unchanged.body.signatures).toEqual([]);
  });

  it('needs exactly one of password and signing_token, and a reason', async () => {
    const { request } = await newRequest();
    const neither = await api('POST', `/approvals/request/sign/${request.approval_requestid}`, {
      token: quality[0].token,
      body: { meaning: 'approve', reason: 'ok' },
    });
    expect(neither.status).toBe(422);
    const both = await sign(request.approval_requestid, quality[0], { signing_token: 'a'.repeat(64) });
    expect(both.status).toBe(422);
    const blank = await sign(request.approval_requestid, quality[0], { reason: '   ' });
    expect(blank.body.errors[0]).toMatchObject({ field: 'reason' });
  });

  it('a token is for one request and one signer, and only an eligible signer gets one', async () => {
    const { request } = await newRequest();
    const other = await newRequest();
    const issued = await api('POST', `/approvals/request/sign/${request.approval_requestid}/token`, {
      token: quality[1].token,
      body: { password: quality[1].password },
    });
    expect(issued.status).toBe(201);
    expect(issued.body.signer.userid).toBe(quality[1].userid);
    const elsewhere = await api('POST', `/approvals/request/sign/${other.request.approval_requestid}`, {
      token: quality[1].token,
      body: { meaning: 'approve', reason: 'x', signing_token: issued.body.signing_token },
    });
    expect(elsewhere.status).toBe(422);
    expect(elsewhere.body.errors[0]).toMatchObject({ field: 'signing_token', code: 'invalid_token' });
    const signed = await api('POST', `/approvals/request/sign/${request.approval_requestid}`, {
      token: quality[1].token,
      body: { meaning: 'approve', reason: 'x', signing_token: issued.body.signing_token },
    });
    expect(signed.status).toBe(200);
    expect(signed.body).toMatchObject({
      status: 'pending',
      signatures: [{ userid: quality[1].userid, method: 'token' }],
    });
    const reused = await api('POST', `/approvals/request/sign/${request.approval_requestid}`, {
      token: quality[1].token,
      body: { meaning: 'approve', reason: 'x', signing_token: issued.body.signing_token },
    });
    expect(reused.status).toBe(422);
    expect(reused.body.errors[0]).toMatchObject({ field: 'signing_token', code: 'invalid_token' });
    expect(
      (
        await api('POST', `/approvals/request/sign/${request.approval_requestid}/token`, {
          token: outsider.token,
          body: { password: outsider.password },
        })
      ).status,
    ).toBe(403);
    const wrongLogin = await api('POST', `/approvals/request/sign/${request.approval_requestid}/token`, {
      token: author.token,
      body: { login: `nobody.${uniqueSuffix()}@example.com`, password: 'x' },
    });
    expect(wrongLogin.status).toBe(422);
    expect(
      (await api('POST', `/approvals/request/sign/99999999/token`, { token: author.token, body: { password: 'x' } }))
        .status,
    ).toBe(404);
  });

  it('an impersonation token cannot sign (403)', async () => {
    const { request } = await newRequest();
    const impersonated = await api('POST', '/user/token/impersonate', {
      token: admin,
      body: { userid: quality[0].userid },
    });
    const response = await api('POST', `/approvals/request/sign/${request.approval_requestid}`, {
      token: impersonated.body.authToken,
      body: { meaning: 'approve', reason: 'x', password: quality[0].password },
    });
    expect(response.status).toBe(403);
  });

  it("a request is visible to its requester, its approver teams and Admins only; a named revision must be the request's", async () => {
    const { request } = await newRequest();
    expect(
      (await api('GET', `/approvals/request/${request.approval_requestid}`, { token: outsider.token })).status,
    ).toBe(403);
    expect((await api('GET', `/approvals/request/${request.approval_requestid}`, { token: lead.token })).status).toBe(
      200,
    );
    expect((await api('GET', `/approvals/request/${request.approval_requestid}`, { token: admin })).status).toBe(200);
    expect((await api('GET', '/approvals/request/99999999', { token: admin })).status).toBe(404);
    const wrongRevision = await api('POST', `/approvals/request/sign/${request.approval_requestid}`, {
      token: quality[0].token,
      query: { revisionid: request.revisionid + 1000 },
      body: { meaning: 'approve', reason: 'x', password: quality[0].password },
    });
    expect(wrongRevision.status).toBe(409);
    expect(wrongRevision.body.approval_requestid).toBe(request.approval_requestid);
  });

  it('a request keeps the stages it was made with when its process changes', async () => {
    const single = await createProcess([{ teamid: leadTeam, quorum: 1 }]);
    const page = await api('POST', '/wikis', {
      token: admin,
      body: { namespace: 'WIKI', title: `Work instruction ${uniqueSuffix()}`, contents: 'Torque to 5 Nm.' },
    });
    await attach(page.body.wikiid, single.approval_processid);
    const created = await api('POST', '/approvals/requests', {
      token: author.token,
      query: { revisionid: page.body.revisionid },
      body: { doctype: 'wiki', docid: page.body.wikiid },
    });
    await api('PATCH', `/approvals/process/${single.approval_processid}`, {
      token: admin,
      body: { stages: [{ teamid: qualityTeam, quorum: 3 }] },
    });
    const signed = await sign(created.body.approval_requestid, lead);
    expect(signed.status).toBe(200);
    expect(signed.body).toMatchObject({ status: 'approved', stages: [{ teamid: leadTeam, quorum: 1 }] });
  });
});
