/**
 * Periodic review: schedules and their documents, due dates from the period, signed reviews
 * bound to a revision, change requests, the users' lists, search, and the refusals.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, loginAdmin, uniqueSuffix, type TestUser } from '../support/api.ts';
import { createCategory, createGuide, editGuide } from '../support/compliance.ts';

const YEAR_ISH = 360 * 86400;
let admin: string;
let author: TestUser;
let reviewer: TestUser;
let outsider: TestUser;
let category: string;

async function createSchedule(body: Record<string, unknown> = {}) {
  const response = await api('POST', '/periodic_review', {
    token: admin,
    body: {
      name: `Annual review ${uniqueSuffix()}`,
      frequency_quantity: 12,
      frequency_unit: 'month',
      reviewer_userid: reviewer.userid,
      ...body,
    },
  });
  expect(response.status).toBe(201);
  return response.body;
}

async function addDocuments(prsid: number, documents: Array<Record<string, unknown>>) {
  return api('POST', '/periodic_review/documents', { token: admin, body: { prsid, documents } });
}

/** A schedule with one fresh guide in it. */
async function scheduledGuide(title = `Clean the mixer ${uniqueSuffix()}`) {
  const schedule = await createSchedule();
  const guide = await createGuide(author.token, category, { title });
  const added = await addDocuments(schedule.prsid, [{ doctype: 'guide', docid: guide.guideid }]);
  expect(added.status).toBe(201);
  return { schedule, guide, entry: added.body.documents[0] };
}

const review = (body: Record<string, unknown>, signer = reviewer) =>
  api('POST', '/periodic_review/review', {
    token: signer.token,
    body: { outcome: 'approved', password: signer.password, ...body },
  });

beforeAll(async () => {
  admin = await loginAdmin();
  [author, reviewer, outsider] = await Promise.all([
    createUser({ privileges: ['Author'] }),
    createUser(),
    createUser(),
  ]);
  category = (await createCategory()).title;
});

describe('schedules', () => {
  it('creates (201), lists and reads a schedule; the default reviewer is the creator', async () => {
    const schedule = await createSchedule({ description: 'ISO 13485 §4.2.4' });
    expect(schedule).toMatchObject({
      frequency_quantity: 12,
      frequency_unit: 'month',
      reviewer_userid: reviewer.userid,
      document_count: 0,
      description: 'ISO 13485 §4.2.4',
    });
    const own = await api('POST', '/periodic_review', {
      token: admin,
      body: { name: 'Weekly', frequency_quantity: 1, frequency_unit: 'week' },
    });
    expect(own.body.reviewer_userid).toBe(1);
    const list = await api('GET', '/periodic_review', { token: author.token, query: { limit: 200 } });
    expect(list.body.schedules.map((s: { prsid: number }) => s.prsid)).toEqual(
      expect.arrayContaining([schedule.prsid, own.body.prsid]),
    );
    const one = await api('GET', `/periodic_review/${schedule.prsid}`, { token: author.token });
    expect(one.body).toEqual({ ...schedule, documents: [] });
  });

  it('validates (422) and is managed by Admins, read by Authors (403 otherwise)', async () => {
    expect(
      (
        await api('POST', '/periodic_review', {
          token: admin,
          body: { name: 'X', frequency_quantity: 0, frequency_unit: 'month' },
        })
      ).status,
    ).toBe(422);
    expect(
      (
        await api('POST', '/periodic_review', {
          token: admin,
          body: { name: 'X', frequency_quantity: 1, frequency_unit: 'decade' },
        })
      ).status,
    ).toBe(422);
    const unknownReviewer = await api('POST', '/periodic_review', {
      token: admin,
      body: { name: 'X', frequency_quantity: 1, frequency_unit: 'year', reviewer_userid: 99999999 },
    });
    expect(unknownReviewer.body.errors[0]).toMatchObject({ field: 'reviewer_userid', code: 'not_found' });
    expect(
      (
        await api('POST', '/periodic_review', {
          token: author.token,
          body: { name: 'X', frequency_quantity: 1, frequency_unit: 'year' },
        })
      ).status,
    ).toBe(403);
    expect((await api('GET', '/periodic_review', { token: outsider.token })).status).toBe(403);
    expect((await api('GET', '/periodic_review/99999999', { token: author.token })).status).toBe(404);
  });

  it('a schedule with documents cannot be deleted (422); once empty it can (204), and its reviews stay', async () => {
    const { schedule, guide, entry } = await scheduledGuide();
    expect((await review({ prdid: entry.prdid, revisionid: guide.revisionid })).status).toBe(201);
    const refused = await api('DELETE', `/periodic_review/${schedule.prsid}`, { token: admin });
    expect(refused.status).toBe(422);
    expect(refused.body.errors[0].code).toBe('has_documents');
    expect((await api('DELETE', `/periodic_review/documents/${entry.prdid}`, { token: admin })).status).toBe(204);
    expect((await api('DELETE', `/periodic_review/documents/${entry.prdid}`, { token: admin })).status).toBe(404);
    expect((await api('DELETE', `/periodic_review/${schedule.prsid}`, { token: admin })).status).toBe(204);
    expect((await api('GET', `/periodic_review/${schedule.prsid}`, { token: admin })).status).toBe(404);
    const state = await api('GET', `/periodic_review/guide/${guide.guideid}`, { token: author.token });
    expect(state.body).toMatchObject({
      schedule: null,
      document: null,
      reviews: [{ revisionid: guide.revisionid, outcome: 'approved' }],
    });
  });
});

describe('documents in a schedule', () => {
  it('adds guides and wiki pages (201) due one period later, each with a reviewer; the schedule counts them', async () => {
    const schedule = await createSchedule();
    const guide = await createGuide(author.token, category);
    const page = await api('POST', '/wikis', {
      token: admin,
      body: { namespace: 'WIKI', title: `Gowning SOP ${uniqueSuffix()}`, contents: 'Gown up.' },
    });
    const before = Math.floor(Date.now() / 1000);
    const added = await addDocuments(schedule.prsid, [
      { doctype: 'guide', docid: guide.guideid },
      { doctype: 'wiki', docid: page.body.wikiid, reviewer_userid: author.userid },
    ]);
    expect(added.status).toBe(201);
    const [first, second] = added.body.documents;
    expect(first).toMatchObject({
      prsid: schedule.prsid,
      doctype: 'guide',
      docid: guide.guideid,
      title: guide.title,
      reviewer_userid: reviewer.userid,
      status: 'current',
      last_review: null,
      open_change_requestid: null,
    });
    expect(second).toMatchObject({ doctype: 'wiki', docid: page.body.wikiid, reviewer_userid: author.userid });
    expect(first.next_review_due).toBeGreaterThan(before + YEAR_ISH);
    const read = await api('GET', `/periodic_review/${schedule.prsid}`, { token: admin });
    expect(read.body.document_count).toBe(2);
    expect(read.body.documents.map((d: { prdid: number }) => d.prdid)).toEqual([first.prdid, second.prdid]);
    const paged = await api('GET', `/periodic_review/${schedule.prsid}`, {
      token: admin,
      query: { limit: 1, offset: 1 },
    });
    expect(paged.body.documents.map((d: { prdid: number }) => d.prdid)).toEqual([second.prdid]);
  });

  it('refuses documents already scheduled, listed twice, or unknown (422, nothing added), and an unknown schedule (404)', async () => {
    const { schedule, guide } = await scheduledGuide();
    const other = await createSchedule();
    const fresh = await createGuide(author.token, category);
    const again = await addDocuments(other.prsid, [
      { doctype: 'guide', docid: fresh.guideid },
      { doctype: 'guide', docid: guide.guideid },
    ]);
    expect(again.status).toBe(422);
    expect(again.body.errors[0]).toMatchObject({ code: 'already_scheduled' });
    expect(again.body.message).toContain(`schedule ${schedule.prsid}`);
    expect(
      (await api('GET', `/periodic_review/guide/${fresh.guideid}`, { token: author.token })).body.schedule,
    ).toBeNull();
    const twice = await addDocuments(other.prsid, [
      { doctype: 'guide', docid: fresh.guideid },
      { doctype: 'guide', docid: fresh.guideid },
    ]);
    expect(twice.body.errors[0]).toMatchObject({ field: 'documents.1', code: 'duplicate' });
    const unknown = await addDocuments(other.prsid, [{ doctype: 'wiki', docid: 99999999 }]);
    expect(unknown.body.errors[0]).toMatchObject({ field: 'documents.0.docid', code: 'not_found' });
    expect((await addDocuments(99999999, [{ doctype: 'guide', docid: fresh.guideid }])).status).toBe(404);
    const tooMany = await addDocuments(
      other.prsid,
      Array.from({ length: 9 }, (_, index) => ({ doctype: 'guide', docid: index + 1 })),
    );
    expect(tooMany.status).toBe(422);
    expect(
      (
        await api('POST', '/periodic_review/documents', {
          token: author.token,
          body: { prsid: other.prsid, documents: [{ doctype: 'guide', docid: fresh.guideid }] },
        })
      ).status,
    ).toBe(403);
  });

  it('removes documents in bulk (204, all or none)', async () => {
    const schedule = await createSchedule();
    const guides = await Promise.all([1, 2, 3].map(() => createGuide(author.token, category)));
    const added = await addDocuments(
      schedule.prsid,
      guides.map((guide) => ({ doctype: 'guide', docid: guide.guideid })),
    );
    const prdids = added.body.documents.map((d: { prdid: number }) => d.prdid);
    const unknown = await api('DELETE', '/periodic_review/documents', {
      token: admin,
      body: { prdids: [prdids[0], 99999999] },
    });
    expect(unknown.status).toBe(422);
    expect((await api('GET', `/periodic_review/${schedule.prsid}`, { token: admin })).body.document_count).toBe(3);
    expect(
      (await api('DELETE', '/periodic_review/documents', { token: admin, body: { prdids: prdids.slice(0, 2) } }))
        .status,
    ).toBe(204);
    const left = await api('GET', `/periodic_review/${schedule.prsid}`, { token: admin });
    expect(left.body).toMatchObject({ document_count: 1, documents: [{ prdid: prdids[2] }] });
    expect(
      (await api('DELETE', '/periodic_review/documents', { token: author.token, body: { prdids: [prdids[2]] } }))
        .status,
    ).toBe(403);
    // Removed documents can join a schedule again.
    expect((await addDocuments(schedule.prsid, [{ doctype: 'guide', docid: guides[0].guideid }])).status).toBe(201);
  });

  it('search finds scheduled documents by a title word prefix', async () => {
    const word = `Zirconia${uniqueSuffix()}`;
    const { entry } = await scheduledGuide(`Polish the ${word} crowns`);
    const found = await api('GET', `/periodic_review/search/${word.slice(0, 12).toLowerCase()}`, {
      token: author.token,
    });
    expect(found.status).toBe(200);
    expect(found.body.documents.map((d: { prdid: number }) => d.prdid)).toEqual([entry.prdid]);
    expect(
      (await api('GET', `/periodic_review/search/nothing${uniqueSuffix()}`, { token: author.token })).body.documents,
    ).toEqual([]);
    expect((await api('GET', `/periodic_review/search/${word}`, { token: outsider.token })).status).toBe(403);
  });
});

describe('reviews', () => {
  it('a review records the reviewed revision and its hash, signed by the reviewer, and moves the due date', async () => {
    const { guide, entry, schedule } = await scheduledGuide();
    const before = Math.floor(Date.now() / 1000);
    const response = await review({ prdid: entry.prdid, revisionid: guide.revisionid, notes: 'Still accurate' });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      prdid: entry.prdid,
      prsid: schedule.prsid,
      doctype: 'guide',
      docid: guide.guideid,
      revisionid: guide.revisionid,
      outcome: 'approved',
      notes: 'Still accurate',
      change_requestid: null,
      signature: {
        userid: reviewer.userid,
        printed_name: expect.stringContaining('Test User'),
        meaning: 'review',
        revisionid: guide.revisionid,
        method: 'password',
      },
    });
    expect(response.body.revision_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(response.body.signature.revision_hash).toBe(response.body.revision_hash);
    expect(response.body.next_review_due).toBeGreaterThanOrEqual(before + YEAR_ISH);

    const state = await api('GET', `/periodic_review/guide/${guide.guideid}`, { token: reviewer.token });
    expect(state.body).toMatchObject({
      current_revisionid: guide.revisionid,
      schedule: { prsid: schedule.prsid },
      document: {
        prdid: entry.prdid,
        status: 'current',
        next_review_due: response.body.next_review_due,
        last_review: { reviewid: response.body.reviewid, revisionid: guide.revisionid, outcome: 'approved' },
      },
      reviews: [response.body],
    });
    const mine = await api('GET', `/periodic_review/reviews/${reviewer.userid}`, {
      token: reviewer.token,
      query: { limit: 1 },
    });
    expect(mine.body.reviews).toEqual([response.body]);
  });

  it('changes_requested opens a change request for the owner; a later approving review of the new revision resolves it', async () => {
    const { guide, entry } = await scheduledGuide();
    const noNotes = await review({ prdid: entry.prdid, revisionid: guide.revisionid, outcome: 'changes_requested' });
    expect(noNotes.status).toBe(422);
    expect(noNotes.body.errors[0]).toMatchObject({ field: 'notes', code: 'missing_field' });
    const asked = await review({
      prdid: entry.prdid,
      revisionid: guide.revisionid,
      outcome: 'changes_requested',
      notes: 'Add the new detergent',
    });
    expect(asked.status).toBe(201);
    const changeId = asked.body.change_requestid;
    expect(changeId).toBeGreaterThan(0);
    const open = await api('GET', `/periodic_review/requests/${author.userid}`, { token: author.token });
    expect(open.body.change_requests[0]).toMatchObject({
      change_requestid: changeId,
      docid: guide.guideid,
      revisionid: guide.revisionid,
      requested_by: reviewer.userid,
      assignee_userid: author.userid,
      notes: 'Add the new detergent',
      status: 'open',
      reviewids: [asked.body.reviewid],
    });
    const state = await api('GET', `/periodic_review/guide/${guide.guideid}`, { token: author.token });
    expect(state.body.document).toMatchObject({ status: 'changes_requested', open_change_requestid: changeId });

    // The old revision can no longer be reviewed once the owner edits the guide.
    const revised = await editGuide(author.token, guide);
    const stale = await review({ prdid: entry.prdid, revisionid: guide.revisionid });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ docid: guide.guideid, current_revisionid: revised });
    const approved = await review({ prdid: entry.prdid, revisionid: revised });
    expect(approved.status).toBe(201);
    expect(approved.body).toMatchObject({ revisionid: revised, change_requestid: changeId });
    expect(approved.body.revision_hash).not.toBe(asked.body.revision_hash);
    const resolved = await api('GET', `/periodic_review/requests/${author.userid}`, {
      token: author.token,
      query: { status: 'resolved' },
    });
    expect(
      resolved.body.change_requests.find((c: { change_requestid: number }) => c.change_requestid === changeId),
    ).toMatchObject({
      status: 'resolved',
      resolved_by_reviewid: approved.body.reviewid,
      resolved_revisionid: revised,
    });
    const stillOpen = await api('GET', `/periodic_review/requests/${author.userid}`, { token: author.token });
    expect(stillOpen.body.change_requests.map((c: { change_requestid: number }) => c.change_requestid)).not.toContain(
      changeId,
    );
  });

  it('only the reviewer or an Admin reviews, with the right password, not through impersonation', async () => {
    const { guide, entry } = await scheduledGuide();
    expect((await review({ prdid: entry.prdid, revisionid: guide.revisionid }, outsider)).status).toBe(403);
    const wrong = await review({ prdid: entry.prdid, revisionid: guide.revisionid, password: 'wrong password' });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors[0]).toMatchObject({ field: 'password', code: 'invalid_password' });
    const impersonated = await api('POST', '/user/token/impersonate', {
      token: admin,
      body: { userid: reviewer.userid },
    });
    const asImpersonated = await api('POST', '/periodic_review/review', {
      token: impersonated.body.authToken,
      body: { prdid: entry.prdid, revisionid: guide.revisionid, outcome: 'approved', password: reviewer.password },
    });
    expect(asImpersonated.status).toBe(403);
    expect((await review({ prdid: 99999999, revisionid: 1 })).status).toBe(404);
    const byAdmin = await api('POST', '/periodic_review/review', {
      token: admin,
      body: { prdid: entry.prdid, revisionid: guide.revisionid, outcome: 'approved', password: 'stepwise-admin' },
    });
    expect(byAdmin.status).toBe(201);
    expect(byAdmin.body.signature.userid).toBe(1);
  });
});

describe("a user's lists", () => {
  it('documents to review come soonest due first; due_before keeps the overdue ones', async () => {
    const user = await createUser();
    const schedule = await createSchedule({ reviewer_userid: user.userid });
    const [late, soon] = await Promise.all([createGuide(author.token, category), createGuide(author.token, category)]);
    const now = Math.floor(Date.now() / 1000);
    await addDocuments(schedule.prsid, [
      { doctype: 'guide', docid: soon.guideid, due_date: now + 86400 },
      { doctype: 'guide', docid: late.guideid, due_date: now - 86400 },
    ]);
    const all = await api('GET', `/periodic_review/documents/${user.userid}`, { token: user.token });
    expect(all.body.documents.map((d: any) => [d.docid, d.status])).toEqual([
      [late.guideid, 'overdue'],
      [soon.guideid, 'current'],
    ]);
    const overdue = await api('GET', `/periodic_review/documents/${user.userid}`, {
      token: user.token,
      query: { due_before: now },
    });
    expect(overdue.body.documents.map((d: any) => d.docid)).toEqual([late.guideid]);
  });

  it('are for the user and Admins (403 for others, 404 for an unknown user)', async () => {
    for (const list of ['reviews', 'documents', 'requests']) {
      expect((await api('GET', `/periodic_review/${list}/${reviewer.userid}`, { token: outsider.token })).status).toBe(
        403,
      );
      expect((await api('GET', `/periodic_review/${list}/${reviewer.userid}`, { token: admin })).status).toBe(200);
      expect((await api('GET', `/periodic_review/${list}/99999999`, { token: admin })).status).toBe(404);
    }
  });
});

describe('GET /periodic_review/{doctype}/{docid}', () => {
  it("answers schedule null for an unscheduled document, 404 for an unknown one, 403 for a private guide's outsiders", async () => {
    const guide = await createGuide(author.token, category);
    const state = await api('GET', `/periodic_review/guide/${guide.guideid}`, { token: outsider.token });
    expect(state.body).toMatchObject({
      doctype: 'guide',
      docid: guide.guideid,
      current_revisionid: guide.revisionid,
      schedule: null,
      document: null,
      reviews: [],
    });
    expect((await api('GET', '/periodic_review/wiki/99999999', { token: outsider.token })).status).toBe(404);
    expect((await api('GET', `/periodic_review/course/${guide.guideid}`, { token: outsider.token })).status).toBe(404);
    const hidden = await createGuide(author.token, category, { public: false });
    expect((await api('GET', `/periodic_review/guide/${hidden.guideid}`, { token: outsider.token })).status).toBe(403);
  });
});
