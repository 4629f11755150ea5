import { describe, expect, it } from 'vitest';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { api, createUser, loginAdmin, uniqueSuffix } from '../support/api.ts';
import { addStep, category, createCategory, createGuide, publish } from './guide-fixtures.ts';
import { localDb } from '../support/local-db.ts';

const author = () => createUser({ privileges: ['Author'] });

describe('?revisionid= on guide writes', () => {
  it('missing: 422 saying it is a query parameter and naming the current one; stale: 409 naming it in a header', async () => {
    const admin = await loginAdmin();
    const guide = await createGuide(admin);
    const missing = await api('PATCH', `/guides/${guide.guideid}`, { token: admin, body: { summary: 'x' } });
    expect(missing.status).toBe(422);
    expect(missing.body.errors[0]).toMatchObject({ field: 'revisionid', code: 'missing_field' });
    expect(missing.body.message).toContain(
      `query parameter naming the current revision (?revisionid=${guide.revisionid})`,
    );
    expect(missing.headers.get('x-stepwise-current-revisionid')).toBeNull();
    const stale = await api('PATCH', `/guides/${guide.guideid}`, {
      token: admin,
      query: { revisionid: guide.revisionid + 1000 },
      body: { summary: 'x' },
    });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ guideid: guide.guideid, revisionid: guide.revisionid });
    expect(stale.headers.get('x-stepwise-current-revisionid')).toBe(String(guide.revisionid));
  });
});

describe('POST /guides', () => {
  it('creates a private guide (201) with the whole guide, in an existing category', async () => {
    const writer = await author();
    const cat = await category();
    const created = await api('POST', '/guides', {
      token: writer.token,
      body: {
        category: cat,
        type: 'how-to',
        subject: 'Nozzle',
        title: 'Replace the print nozzle',
        summary: 'Swap a worn nozzle',
        introduction: "You need a '''hex key'''.",
        conclusion: 'Done.',
        difficulty: 'Easy',
        time_required_min: 1800,
        time_required_max: 3600,
        tools: [{ text: 'Hex key', quantity: 1 }],
        parts: [{ text: 'Nozzle 0.4 mm', notes: 'brass' }],
      },
    });
    expect(created.status).toBe(201);
    const guide = created.body;
    expect(guide).toMatchObject({
      langid: 'en',
      locale: 'en',
      type: 'how-to',
      category: cat,
      subject: 'Nozzle',
      title: 'Replace the print nozzle',
      summary: 'Swap a worn nozzle',
      introduction_raw: "You need a '''hex key'''.",
      conclusion_raw: 'Done.',
      difficulty: 'Easy',
      time_required: '30 minutes - 1 hour',
      time_required_min: 1800,
      time_required_max: 3600,
      public: false,
      can_edit: true,
      favorited: false,
      completed: false,
      steps: [],
      prerequisites: [],
      documents: [],
      flags: [],
      author: { userid: writer.userid },
      published_date: null,
    });
    expect(guide.introduction_rendered).toContain('<strong>hex key</strong>');
    expect(guide.url).toBe(`${new URL(guide.author.url).origin}/Guide/Replace+the+print+nozzle/${guide.guideid}`);
    expect(guide.url).toMatch(/^https?:\/\//);
    expect(guide.tools[0]).toEqual({
      text: 'Hex key',
      notes: null,
      type: 'tool',
      quantity: 1,
      url: null,
      thumbnail: null,
      isoptional: false,
      featured: false,
    });
    expect(guide.parts[0]).toMatchObject({ text: 'Nozzle 0.4 mm', notes: 'brass', type: 'part' });
    expect(Number.isInteger(guide.revisionid)).toBe(true);
    expect(guide.created_date).toBeGreaterThan(0);

    const read = await api('GET', `/guides/${guide.guideid}`, { token: writer.token });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(guide);
  });

  it('builds a title from category, subject and type when none is given', async () => {
    const cat = await category();
    const guide = await createGuide(await loginAdmin(), { title: undefined, subject: 'Belt' });
    expect(guide.title).toBe(`${cat} Belt How-To`);
  });

  it("refuses an unknown guide type with the real service's message (422)", async () => {
    const response = await api('POST', '/guides', {
      token: await loginAdmin(),
      body: { category: await category(), type: 'technique' },
    });
    expect(response.status).toBe(422);
    expect(response.body.message).toBe('Invalid guide type. Got technique Was expecting one of: how-to.');
    expect(response.body.errors[0]).toMatchObject({ field: 'type' });
  });

  it('needs an existing category (422) and the required fields (422 missing_field)', async () => {
    const admin = await loginAdmin();
    const unknown = await api('POST', '/guides', {
      token: admin,
      body: { category: `No such ${uniqueSuffix()}`, type: 'how-to' },
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors[0]).toMatchObject({ field: 'category', code: 'not_found' });
    const missing = await api('POST', '/guides', { token: admin, body: { title: 'x' } });
    expect(missing.status).toBe(422);
    expect(missing.body.errors.map((error: { field: string; code: string }) => `${error.field}:${error.code}`)).toEqual(
      ['category:missing_field', 'type:missing_field'],
    );
    const badDifficulty = await api('POST', '/guides', {
      token: admin,
      body: { category: await category(), type: 'how-to', difficulty: 'Trivial' },
    });
    expect(badDifficulty.status).toBe(422);
    const badRange = await api('POST', '/guides', {
      token: admin,
      body: { category: await category(), type: 'how-to', time_required_min: 600, time_required_max: 60 },
    });
    expect(badRange.status).toBe(422);
  });

  it('names body fields it ignores (X-Stepwise-Ignored-Fields) and answers as without them', async () => {
    const created = await api('POST', '/guides', {
      token: await loginAdmin(),
      body: {
        category: await category(),
        type: 'how-to',
        time_required: '1 hour',
        title: 'Ignored fields',
        parts: [{ text: 'Hex key', colour: 'red' }],
      },
    });
    expect(created.status).toBe(201);
    // Nested ones by path (decision 332).
    expect(created.headers.get('x-stepwise-ignored-fields')).toBe('time_required, parts[0].colour');
    expect(created.body.parts).toMatchObject([{ text: 'Hex key' }]);
    expect(created.body.parts[0]).not.toHaveProperty('colour');
    // time_required is an answer field computed from time_required_min/max, never taken from a body.
    expect(created.body.time_required).not.toBe('1 hour');
    expect(created.body.title).toBe('Ignored fields');
  });

  it('is for Authors and Admins (403 for a User, 401 anonymous)', async () => {
    const user = await createUser();
    expect(
      (await api('POST', '/guides', { token: user.token, body: { category: await category(), type: 'how-to' } }))
        .status,
    ).toBe(403);
    expect((await api('POST', '/guides', { body: { category: await category(), type: 'how-to' } })).status).toBe(401);
  });

  it('lets only Admins set flags (403), and refuses unknown flags (422)', async () => {
    const writer = await author();
    expect(
      (
        await api('POST', '/guides', {
          token: writer.token,
          body: { category: await category(), type: 'how-to', flags: ['GUIDE_STARRED'] },
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await api('POST', '/guides', {
          token: await loginAdmin(),
          body: { category: await category(), type: 'how-to', flags: ['NOPE'] },
        })
      ).status,
    ).toBe(422);
  });

  it('checks prerequisites: existing, readable, not itself (422)', async () => {
    const admin = await loginAdmin();
    const missing = await api('POST', '/guides', {
      token: admin,
      body: { category: await category(), type: 'how-to', prerequisites: [999999999] },
    });
    expect(missing.status).toBe(422);
    const other = await author();
    const hidden = await createGuide(other.token);
    const writer = await author();
    const unreadable = await api('POST', '/guides', {
      token: writer.token,
      body: { category: await category(), type: 'how-to', prerequisites: [hidden.guideid] },
    });
    expect(unreadable.status).toBe(422);
    const guide = await createGuide(admin);
    const self = await api('PATCH', `/guides/${guide.guideid}`, {
      token: admin,
      query: { revisionid: guide.revisionid },
      body: { prerequisites: [guide.guideid] },
    });
    expect(self.status).toBe(422);
  });
});

describe('GET /guides/{guideid}', () => {
  it('inlines prerequisite steps first unless excludePrerequisiteSteps', async () => {
    const admin = await loginAdmin();
    const prerequisite = await publish(admin, await createGuide(admin, { title: 'Open the case' }));
    await addStep(admin, prerequisite.guideid, { title: 'Remove screws' });
    const main = await createGuide(admin, { prerequisites: [prerequisite.guideid] });
    await addStep(admin, main.guideid, { title: 'Swap nozzle' });
    const full = await api('GET', `/guides/${main.guideid}`, { token: admin });
    expect(full.body.prerequisites.map((guide: { guideid: number }) => guide.guideid)).toEqual([prerequisite.guideid]);
    expect(full.body.prerequisites[0]).toMatchObject({ dataType: 'guide', title: 'Open the case' });
    expect(
      full.body.steps.map((step: { title: string; guideid: number; orderby: number }) => [
        step.title,
        step.guideid,
        step.orderby,
      ]),
    ).toEqual([
      ['Remove screws', prerequisite.guideid, 1],
      ['Swap nozzle', main.guideid, 1],
    ]);
    expect(full.body.prereq_modified_date).toBeGreaterThan(0);
    const own = await api('GET', `/guides/${main.guideid}`, { token: admin, query: { excludePrerequisiteSteps: '' } });
    expect(own.body.steps.map((step: { title: string }) => step.title)).toEqual(['Swap nozzle']);
  });

  it('answers 404 for an unknown guide and a public guide to any signed-in user (anonymous readers: site-access.test.ts)', async () => {
    const reader = await createUser();
    expect((await api('GET', '/guides/999999999', { token: reader.token })).status).toBe(404);
    const admin = await loginAdmin();
    const guide = await publish(admin, await createGuide(admin));
    const read = await api('GET', `/guides/${guide.guideid}`, { token: reader.token });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ public: true, can_edit: false, favorited: false });
  });

  it("records a signed-in read in the reader's view history", async () => {
    const reader = await createUser();
    const admin = await loginAdmin();
    const guide = await publish(admin, await createGuide(admin));
    expect((await api('GET', `/guides/${guide.guideid}`, { token: reader.token })).status).toBe(200);
    const ddb = localDb();
    const views = await ddb.send(
      new QueryCommand({
        TableName: 'stepwise',
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': `VIEWS#USER#${reader.userid}` },
      }),
    );
    expect(views.Items?.map((item) => [item.doc_type, item.docid])).toEqual([['GUIDE', guide.guideid]]);
  });
});

describe('PATCH /guides/{guideid}', () => {
  it('edits the fields given, moves the revisionid on and answers the whole guide', async () => {
    const writer = await author();
    const guide = await createGuide(writer.token, { summary: 'old', subject: 'Keep me' });
    const patched = await api('PATCH', `/guides/${guide.guideid}`, {
      token: writer.token,
      query: { revisionid: guide.revisionid },
      body: { summary: 'new', conclusion: 'See [[WIKI:Torque settings]].', time_required_max: 7200 },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      summary: 'new',
      subject: 'Keep me',
      title: guide.title,
      conclusion_raw: 'See [[WIKI:Torque settings]].',
      time_required: '2 hours',
    });
    expect(patched.body.conclusion_rendered).toContain('href=');
    expect(patched.body.revisionid).toBeGreaterThan(guide.revisionid);
    expect(patched.body.modified_date).toBeGreaterThanOrEqual(guide.modified_date);
  });

  it('answers 409 with the current guide for a stale revisionid, 422 without one, 404 unknown', async () => {
    const writer = await author();
    const guide = await createGuide(writer.token);
    const first = await api('PATCH', `/guides/${guide.guideid}`, {
      token: writer.token,
      query: { revisionid: guide.revisionid },
      body: { summary: 'first' },
    });
    const stale = await api('PATCH', `/guides/${guide.guideid}`, {
      token: writer.token,
      query: { revisionid: guide.revisionid },
      body: { summary: 'second' },
    });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ guideid: guide.guideid, revisionid: first.body.revisionid, summary: 'first' });
    expect(stale.body.steps).toEqual([]);
    const missing = await api('PATCH', `/guides/${guide.guideid}`, { token: writer.token, body: { summary: 'x' } });
    expect(missing.status).toBe(422);
    expect(missing.body.errors[0]).toMatchObject({ field: 'revisionid', code: 'missing_field' });
    expect(
      (await api('PATCH', '/guides/999999999', { token: writer.token, query: { revisionid: 1 }, body: {} })).status,
    ).toBe(404);
  });

  it('of 20 concurrent edits naming one revision, exactly one wins and the rest get 409; nothing is lost', async () => {
    const writer = await author();
    const guide = await createGuide(writer.token);
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        api('PATCH', `/guides/${guide.guideid}`, {
          token: writer.token,
          query: { revisionid: guide.revisionid },
          body: { summary: `writer ${index}` },
        }),
      ),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 409)).toHaveLength(19);
    const winner = responses.find((response) => response.status === 200)!;
    for (const loser of responses.filter((response) => response.status === 409))
      expect(loser.body.revisionid).toBe(winner.body.revisionid);
    const now = await api('GET', `/guides/${guide.guideid}`, { token: writer.token });
    expect(now.body.summary).toBe(winner.body.summary);
    expect(now.body.revisionid).toBe(winner.body.revisionid);
  });

  it('is refused to other users (403) and needs a token (401)', async () => {
    const writer = await author();
    const guide = await publish(writer.token, await createGuide(writer.token));
    const otherAuthor = await author();
    expect(
      (
        await api('PATCH', `/guides/${guide.guideid}`, {
          token: otherAuthor.token,
          query: { revisionid: guide.revisionid },
          body: { summary: 'x' },
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await api('PATCH', `/guides/${guide.guideid}`, {
          query: { revisionid: guide.revisionid },
          body: { summary: 'x' },
        })
      ).status,
    ).toBe(401);
    const admin = await api('PATCH', `/guides/${guide.guideid}`, {
      token: await loginAdmin(),
      query: { revisionid: guide.revisionid },
      body: { summary: 'by admin' },
    });
    expect(admin.status).toBe(200);
  });
});

describe('publishing', () => {
  it('PUT and DELETE /public switch public and answer the whole guide (200); the first publish sets published_date', async () => {
    const writer = await author();
    const guide = await createGuide(writer.token);
    const published = await api('PUT', `/guides/${guide.guideid}/public`, {
      token: writer.token,
      query: { revisionid: guide.revisionid },
      body: {},
    });
    expect(published.status).toBe(200);
    expect(published.body).toMatchObject({ public: true });
    expect(published.body.published_date).toBeGreaterThan(0);
    expect(published.body.revisionid).toBeGreaterThan(guide.revisionid);
    const stale = await api('DELETE', `/guides/${guide.guideid}/public`, {
      token: writer.token,
      query: { revisionid: guide.revisionid },
    });
    expect(stale.status).toBe(409);
    expect(stale.body.public).toBe(true);
    const hidden = await api('DELETE', `/guides/${guide.guideid}/public`, {
      token: writer.token,
      query: { revisionid: published.body.revisionid },
    });
    expect(hidden.status).toBe(200);
    expect(hidden.body).toMatchObject({ public: false, published_date: published.body.published_date });
    expect(
      (
        await api('PUT', `/guides/${guide.guideid}/public`, {
          token: writer.token,
          body: { revisionid: hidden.body.revisionid },
        })
      ).status,
    ).toBe(422);
  });
});

describe('DELETE /guides/{guideid}', () => {
  it('deletes at the current revision (204) with its steps; stale 409; missing 422; then 404', async () => {
    const writer = await author();
    const guide = await createGuide(writer.token);
    const withStep = await addStep(writer.token, guide.guideid);
    expect((await api('DELETE', `/guides/${guide.guideid}`, { token: writer.token })).status).toBe(422);
    const stale = await api('DELETE', `/guides/${guide.guideid}`, {
      token: writer.token,
      query: { revisionid: guide.revisionid },
    });
    expect(stale.status).toBe(409);
    expect(stale.body.revisionid).toBe(withStep.revisionid);
    const deleted = await api('DELETE', `/guides/${guide.guideid}`, {
      token: writer.token,
      query: { revisionid: withStep.revisionid },
    });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect((await api('GET', `/guides/${guide.guideid}`, { token: writer.token })).status).toBe(404);
    const step = withStep.steps[0];
    expect(
      (
        await api('PATCH', `/guides/${guide.guideid}/steps/${step.stepid}`, {
          token: writer.token,
          query: { revisionid: step.revisionid },
          body: { title: 'x' },
        })
      ).status,
    ).toBe(404);
    const mine = await api('GET', '/user/guides', { token: writer.token });
    expect(mine.body.map((entry: { guideid: number }) => entry.guideid)).not.toContain(guide.guideid);
  });
});

describe('GET /guides', () => {
  it('lists public guide summaries by guideid, ASC by default, DESC on request, paged', async () => {
    const { token } = await createUser();
    const admin = await loginAdmin();
    const a = await publish(admin, await createGuide(admin));
    const b = await publish(admin, await createGuide(admin));
    const hidden = await createGuide(admin);
    const all: Array<{ guideid: number }> = [];
    for (let offset = 0; ; offset += 200) {
      const page = await api('GET', '/guides', { token, query: { limit: 200, offset } });
      expect(page.status).toBe(200);
      if (page.body.length === 0) break;
      all.push(...page.body);
    }
    const ids = all.map((guide) => guide.guideid);
    expect(ids).toEqual([...ids].sort((x, y) => x - y));
    expect(ids).toEqual(expect.arrayContaining([a.guideid, b.guideid]));
    expect(ids).not.toContain(hidden.guideid);
    const summary = all.find((guide) => guide.guideid === b.guideid);
    expect(summary).toEqual({
      dataType: 'guide',
      guideid: b.guideid,
      locale: 'en',
      revisionid: b.revisionid,
      modified_date: b.modified_date,
      prereq_modified_date: 0,
      url: b.url,
      type: 'how-to',
      category: b.category,
      subject: '',
      title: b.title,
      summary: '',
      difficulty: null,
      time_required: 'No estimate',
      time_required_min: 0,
      time_required_max: 0,
      public: true,
      userid: b.author.userid,
      username: b.author.username,
      flags: [],
      image: null,
      guide_revisionid: b.revisionid,
      isArchived: false,
      tags: [],
      attachedQuiz: null,
      periodicReviewSchedule: null,
    });
    const desc = await api('GET', '/guides', { token, query: { order: 'desc', limit: 2 } });
    expect(desc.body[0].guideid).toBeGreaterThan(desc.body[1].guideid);
    const second = await api('GET', '/guides', { token, query: { order: 'DESC', limit: 1, offset: 1 } });
    expect(second.body[0].guideid).toBe(desc.body[1].guideid);
  });

  it('with includePrivate adds the private guides the caller can read (all of them for Admins)', async () => {
    const writer = await author();
    const mine = await createGuide(writer.token);
    const theirs = await createGuide(await loginAdmin());
    const ids = async (token: string) => {
      const page = await api('GET', '/guides', { token, query: { includePrivate: '', order: 'DESC', limit: 200 } });
      return page.body.map((guide: { guideid: number }) => guide.guideid);
    };
    expect(await ids(writer.token)).toContain(mine.guideid);
    expect(await ids(writer.token)).not.toContain(theirs.guideid);
    expect(await ids(await loginAdmin())).toEqual(expect.arrayContaining([mine.guideid, theirs.guideid]));
    expect(await ids((await createUser()).token)).not.toContain(mine.guideid);
  });

  it('filters by guideids (first 50), type and modifiedSince', async () => {
    const { token } = await createUser();
    const admin = await loginAdmin();
    const a = await publish(admin, await createGuide(admin));
    const b = await publish(admin, await createGuide(admin));
    const hidden = await createGuide(admin);
    const picked = await api('GET', '/guides', {
      token,
      query: { guideids: `${b.guideid},${a.guideid},${hidden.guideid},999999999` },
    });
    expect(picked.body.map((guide: { guideid: number }) => guide.guideid)).toEqual([a.guideid, b.guideid]);
    const many = Array.from({ length: 60 }, (_, index) => 999999000 + index).join(',');
    expect((await api('GET', '/guides', { token, query: { guideids: `${many},${a.guideid}` } })).body).toEqual([]);
    expect((await api('GET', '/guides', { token, query: { guideids: 'x,1' } })).status).toBe(422);
    const byType = await api('GET', '/guides', { token, query: { filter: 'how-to', order: 'DESC', limit: 5 } });
    expect(byType.body.length).toBeGreaterThan(0);
    expect(byType.body.every((guide: { type: string }) => guide.type === 'how-to')).toBe(true);
    expect((await api('GET', '/guides', { token, query: { filter: 'teardown' } })).body).toEqual([]);
    const future = await api('GET', '/guides', {
      token,
      query: { modifiedSince: Math.floor(Date.now() / 1000) + 3600 },
    });
    expect(future.body).toEqual([]);
    const recent = await api('GET', '/guides', {
      token,
      query: { modifiedSince: b.modified_date, order: 'DESC', limit: 200 },
    });
    expect(recent.body.map((guide: { guideid: number }) => guide.guideid)).toContain(b.guideid);
  });
});

describe('GET /guides/featured', () => {
  it('lists guides an Admin starred (flag GUIDE_STARRED) that the caller can read', async () => {
    const { token } = await createUser();
    const admin = await loginAdmin();
    const guide = await publish(admin, await createGuide(admin));
    const starred = await api('PATCH', `/guides/${guide.guideid}`, {
      token: admin,
      query: { revisionid: guide.revisionid },
      body: { flags: ['GUIDE_STARRED'] },
    });
    expect(starred.status).toBe(200);
    expect(starred.body.flags).toEqual([
      { flagid: 'GUIDE_STARRED', title: 'Featured guide', text: 'This guide is featured.' },
    ]);
    const privateStarred = await createGuide(admin, { flags: ['GUIDE_STARRED'] });
    const featured = await api('GET', '/guides/featured', { token, query: { limit: 200 } });
    expect(featured.status).toBe(200);
    const ids = featured.body.map((entry: { guideid: number }) => entry.guideid);
    expect(ids).toContain(guide.guideid);
    expect(ids).not.toContain(privateStarred.guideid);
    expect(featured.body.find((entry: { guideid: number }) => entry.guideid === guide.guideid).flags).toEqual([
      'GUIDE_STARRED',
    ]);
    const adminView = await api('GET', '/guides/featured', { token: admin, query: { limit: 200 } });
    expect(adminView.body.map((entry: { guideid: number }) => entry.guideid)).toContain(privateStarred.guideid);

    const writer = await author();
    const own = await createGuide(writer.token);
    const refused = await api('PATCH', `/guides/${own.guideid}`, {
      token: writer.token,
      query: { revisionid: own.revisionid },
      body: { flags: ['GUIDE_STARRED'] },
    });
    expect(refused.status).toBe(403);

    const unstarred = await api('PATCH', `/guides/${guide.guideid}`, {
      token: admin,
      query: { revisionid: starred.body.revisionid },
      body: { flags: [] },
    });
    expect(unstarred.status).toBe(200);
    const after = await api('GET', '/guides/featured', { token, query: { limit: 200 } });
    expect(after.body.map((entry: { guideid: number }) => entry.guideid)).not.toContain(guide.guideid);
  });
});

it('a guide in a category created for it appears with the exact category title', async () => {
  const cat = await createCategory();
  const guide = await createGuide(await loginAdmin(), { category: cat });
  expect(guide.category).toBe(cat);
});

describe('comments inside the full guide', () => {
  it("shows the guide's comments and each commented step's comments, with replies", async () => {
    const admin = await loginAdmin();
    const guide = await createGuide(admin);
    const firstStep = (await addStep(admin, guide.guideid)).steps.at(-1);
    await addStep(admin, guide.guideid);
    const onGuide = await api('POST', `/comments/guide/${guide.guideid}`, {
      token: admin,
      body: { text: "Check the '''torque''' twice." },
    });
    expect(onGuide.status).toBe(201);
    const reply = await api('POST', `/comments/guide/${guide.guideid}`, {
      token: admin,
      body: { text: 'Done.', parentid: onGuide.body.commentid },
    });
    expect(reply.status).toBe(201);
    const onStep = await api('POST', `/comments/step/${firstStep.stepid}`, {
      token: admin,
      body: { text: 'Nozzle is hot here.' },
    });
    expect(onStep.status).toBe(201);

    const read = await api('GET', `/guides/${guide.guideid}`, { token: admin });
    expect(read.body.comments).toEqual([
      expect.objectContaining({
        commentid: onGuide.body.commentid,
        text_rendered: expect.stringContaining('<strong>torque</strong>'),
        replies: [expect.objectContaining({ commentid: reply.body.commentid })],
      }),
    ]);
    const steps = read.body.steps.filter((step: { guideid: number }) => step.guideid === guide.guideid);
    expect(steps[0]).toMatchObject({
      comment_count: 1,
      comments: [expect.objectContaining({ commentid: onStep.body.commentid, context: 'step' })],
    });
    expect(steps[1]).toMatchObject({ comment_count: 0, comments: [] });
  });
});
