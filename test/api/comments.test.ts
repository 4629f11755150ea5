import { beforeAll, describe, expect, it } from 'vitest';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { api, createUser, loginAdmin, uniqueSuffix, type TestUser } from '../support/api.ts';
import { anAuthor, createWiki, type CreatedWiki } from '../support/wikis.ts';
import { localDb } from '../support/local-db.ts';

let admin: string;
let author: TestUser;
let commenter: TestUser;
let outsider: TestUser;
let category: CreatedWiki;
let guideid: number;
let stepid: number;
let privateGuideid: number;

async function createGuide(isPublic: boolean): Promise<number> {
  const response = await api('POST', '/guides', {
    token: author.token,
    body: { category: category.title, type: 'how-to', title: `Commented ${uniqueSuffix()}`, public: isPublic },
  });
  if (response.status !== 201) throw new Error(`createGuide: ${response.status} ${response.text}`);
  return response.body.guideid;
}

async function comment(
  context: string,
  contextid: number,
  body: Record<string, unknown> = {},
  token = commenter.token,
) {
  const response = await api('POST', `/comments/${context}/${contextid}`, {
    token,
    body: { text: `Comment ${uniqueSuffix()}`, ...body },
  });
  if (response.status !== 201) throw new Error(`comment: ${response.status} ${response.text}`);
  return response.body;
}

beforeAll(async () => {
  admin = await loginAdmin();
  [author, commenter, outsider] = await Promise.all([anAuthor(), createUser(), createUser()]);
  category = await createWiki({ namespace: 'CATEGORY' }, author.token);
  guideid = await createGuide(true);
  const withStep = await api('POST', `/guides/${guideid}/steps`, {
    token: author.token,
    body: { orderby: 1, lines: [{ text: 'Unplug it', level: 0, bullet: 'black' }] },
  });
  expect(withStep.status).toBe(201);
  stepid = withStep.body.steps[0].stepid;
  privateGuideid = await createGuide(false);
});

describe('POST /comments/{context}/{contextid}', () => {
  it('comments on a guide (201) in the documented shape', async () => {
    const response = await api('POST', `/comments/guide/${guideid}`, {
      token: commenter.token,
      body: { text: "Check the '''torque''' twice." },
    });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      locale: 'en',
      context: 'guide',
      contextid: guideid,
      parentid: null,
      text_raw: "Check the '''torque''' twice.",
      rating: 0,
      replied_date: 0,
      status: 'public',
      replies: [],
    });
    expect(response.body.commentid).toBeGreaterThan(0);
    expect(response.body.text_rendered).toContain('<strong>torque</strong>');
    expect(response.body.author).toMatchObject({ userid: commenter.userid });
    expect(response.body.title).toMatch(/^Commented /);
    expect(response.body.date).toBe(response.body.modified_date);
  });

  it('accepts plural context spellings; steps count their comments', async () => {
    const plural = await comment('guides', guideid);
    expect(plural.context).toBe('guide');
    const onStep = await comment('steps', stepid);
    expect(onStep).toMatchObject({ context: 'step', contextid: stepid });
    const guide = await api('GET', `/guides/${guideid}`, { token: commenter.token });
    expect(guide.body.steps[0].comment_count).toBeGreaterThanOrEqual(1);
  });

  it('comments on wiki, info pages and posts', async () => {
    const page = await createWiki({}, author.token);
    expect((await comment('wiki', page.wikiid)).title).toBe(page.title);
    const info = await createWiki({ namespace: 'INFO' }, author.token);
    expect((await comment('info', info.wikiid)).context).toBe('info');
    expect(
      (await api('POST', `/comments/info/${page.wikiid}`, { token: commenter.token, body: { text: 'x' } })).status,
    ).toBe(404);
    expect((await comment('post', 4242)).contextid).toBe(4242);
  });

  it('404 for an unknown context or document; 403 on a guide the caller cannot see; 422 for bad input', async () => {
    expect(
      (await api('POST', `/comments/story/${guideid}`, { token: commenter.token, body: { text: 'x' } })).status,
    ).toBe(404);
    expect(
      (await api('POST', '/comments/guide/999999999', { token: commenter.token, body: { text: 'x' } })).status,
    ).toBe(404);
    expect(
      (await api('POST', '/comments/step/999999999', { token: commenter.token, body: { text: 'x' } })).status,
    ).toBe(404);
    expect(
      (await api('POST', '/comments/wiki/999999999', { token: commenter.token, body: { text: 'x' } })).status,
    ).toBe(404);
    expect(
      (await api('POST', `/comments/guide/${privateGuideid}`, { token: outsider.token, body: { text: 'x' } })).status,
    ).toBe(403);
    const missing = await api('POST', `/comments/guide/${guideid}`, { token: commenter.token, body: {} });
    expect(missing.status).toBe(422);
    expect(missing.body.errors[0]).toMatchObject({ field: 'text', code: 'missing_field' });
    expect(
      (await api('POST', `/comments/guide/${guideid}`, { token: commenter.token, body: { text: '   ' } })).status,
    ).toBe(422);
    expect(
      (await api('POST', `/comments/guide/${guideid}`, { token: commenter.token, body: { text: 'x', langid: 'xx' } }))
        .status,
    ).toBe(422);
    expect((await api('POST', `/comments/guide/${guideid}`, { body: { text: 'x' } })).status).toBe(401);
  });

  it('renders hostile text inert', async () => {
    const text =
      '<script>alert(1)</script> <img src=x onerror=alert(1)> <a href="javascript:alert(1)">x</a> ' +
      '[javascript:alert(1) y]';
    const created = await comment('guide', guideid, { text });
    const read = await api('GET', `/comments/${created.commentid}`, { token: commenter.token });
    for (const html of [created.text_rendered as string, read.body.text_rendered as string]) {
      expect(html).not.toMatch(/<script|<img|<a href="javascript|\son\w+=/i);
      expect(html).not.toMatch(/javascript:/i);
    }
    expect(read.body.text_raw).toBe(text);
  });
});

describe('replies', () => {
  it('nest one level under the comment they answer', async () => {
    const thread = await comment('guide', guideid);
    const answer = await comment('guide', guideid, { parentid: thread.commentid }, author.token);
    expect(answer.parentid).toBe(thread.commentid);
    const read = await api('GET', `/comments/${thread.commentid}`, { token: outsider.token });
    expect(read.status).toBe(200);
    expect(read.body.replies.map((reply: { commentid: number }) => reply.commentid)).toEqual([answer.commentid]);
    expect(read.body.replies[0].author.userid).toBe(author.userid);
    expect(read.body.replied_date).toBeGreaterThan(0);

    const deeper = await api('POST', `/comments/guide/${guideid}`, {
      token: commenter.token,
      body: { text: 'x', parentid: answer.commentid },
    });
    expect(deeper.status).toBe(422);
    const elsewhere = await api('POST', `/comments/step/${stepid}`, {
      token: commenter.token,
      body: { text: 'x', parentid: thread.commentid },
    });
    expect(elsewhere.body.errors[0].field).toBe('parentid');
    const unknown = await api('POST', `/comments/guide/${guideid}`, {
      token: commenter.token,
      body: { text: 'x', parentid: 999999999 },
    });
    expect(unknown.body.errors[0]).toMatchObject({ field: 'parentid', code: 'not_found' });
  });
});

describe('GET /comments', () => {
  it('lists top-level comments by commentid (ASC, DESC), paged, with filters', async () => {
    const since = Math.floor(Date.now() / 1000);
    const first = await comment('guide', guideid);
    const second = await comment('guide', guideid);
    const reply = await comment('guide', guideid, { parentid: first.commentid });
    const ascending = await api('GET', '/comments', {
      token: commenter.token,
      query: { createdSince: since, limit: 200 },
    });
    expect(ascending.status).toBe(200);
    const ids = ascending.body.map((entry: { commentid: number }) => entry.commentid);
    expect(ids).toEqual([...ids].sort((a: number, b: number) => a - b));
    expect(ids).toContain(first.commentid);
    expect(ids).not.toContain(reply.commentid);
    expect(
      ascending.body.find((entry: { commentid: number }) => entry.commentid === first.commentid).replies[0].commentid,
    ).toBe(reply.commentid);
    const descending = await api('GET', '/comments', {
      token: commenter.token,
      query: { createdSince: since, order: 'DESC', limit: 1 },
    });
    expect(descending.body[0].commentid).toBeGreaterThanOrEqual(second.commentid);
    const future = await api('GET', '/comments', { token: commenter.token, query: { createdSince: since + 3600 } });
    expect(future.body).toEqual([]);
    const steps = await api('GET', '/comments', { token: commenter.token, query: { context: 'step', limit: 200 } });
    expect(steps.body.every((entry: { context: string }) => entry.context === 'step')).toBe(true);
    expect((await api('GET', '/comments', { token: commenter.token, query: { context: 'story' } })).status).toBe(422);
    const page2 = await api('GET', '/comments', {
      token: commenter.token,
      query: { createdSince: since, limit: 1, offset: 1 },
    });
    expect(page2.body[0].commentid).toBe(ids[1]);
  });

  it('leaves out comments on guides the caller cannot see', async () => {
    const hidden = await comment('guide', privateGuideid, {}, author.token);
    const outsiderList = await api('GET', '/comments', { token: outsider.token, query: { order: 'DESC', limit: 200 } });
    expect(outsiderList.body.map((entry: { commentid: number }) => entry.commentid)).not.toContain(hidden.commentid);
    const adminList = await api('GET', '/comments', { token: admin, query: { order: 'DESC', limit: 200 } });
    expect(adminList.body.map((entry: { commentid: number }) => entry.commentid)).toContain(hidden.commentid);
    expect((await api('GET', `/comments/${hidden.commentid}`, { token: outsider.token })).status).toBe(403);
    expect((await api('GET', '/comments/999999999', { token: outsider.token })).status).toBe(404);
  });
});

describe('PATCH /comments/{commentid}', () => {
  it('the author edits within 5 minutes; others get 403', async () => {
    const created = await comment('guide', guideid);
    const edited = await api('PATCH', `/comments/${created.commentid}`, {
      token: commenter.token,
      body: { text: "''Edited''" },
    });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ commentid: created.commentid, text_raw: "''Edited''", date: created.date });
    expect(edited.body.text_rendered).toContain('<em>Edited</em>');
    expect(
      (await api('PATCH', `/comments/${created.commentid}`, { token: outsider.token, body: { text: 'x' } })).status,
    ).toBe(403);
    expect((await api('PATCH', `/comments/${created.commentid}`, { token: admin, body: { text: 'x' } })).status).toBe(
      403,
    );
    expect((await api('PATCH', '/comments/999999999', { token: commenter.token, body: { text: 'x' } })).status).toBe(
      404,
    );
    expect((await api('PATCH', `/comments/${created.commentid}`, { token: commenter.token, body: {} })).status).toBe(
      422,
    );
  });

  it("refuses an edit more than 5 minutes after the comment's date (403), at the boundary too", async () => {
    const created = await comment('guide', guideid);
    const setDate = (date: number) =>
      localDb().send(
        new UpdateCommand({
          TableName: 'stepwise',
          Key: { pk: `COMMENT#${created.commentid}`, sk: 'COMMENT' },
          UpdateExpression: 'SET #date = :date',
          ExpressionAttributeNames: { '#date': 'date' },
          ExpressionAttributeValues: { ':date': date },
        }),
      );
    const now = Math.floor(Date.now() / 1000);
    await setDate(now - 290);
    expect(
      (
        await api('PATCH', `/comments/${created.commentid}`, {
          token: commenter.token,
          body: { text: 'Still in time' },
        })
      ).status,
    ).toBe(200);
    await setDate(now - 301);
    const late = await api('PATCH', `/comments/${created.commentid}`, {
      token: commenter.token,
      body: { text: 'Too late' },
    });
    expect(late.status).toBe(403);
    expect(late.body.message).toMatch(/5 minutes/);
    const unchanged = await api('GET', `/comments/${created.commentid}`, { token: commenter.token });
    expect(unchanged.body.text_raw).toBe('Still in time');
  });
});

describe('DELETE /comments/{commentid}', () => {
  it('the author deletes (204) with the replies; others 403; then 404', async () => {
    const thread = await comment('step', stepid);
    const reply = await comment('step', stepid, { parentid: thread.commentid }, author.token);
    const before = (await api('GET', `/guides/${guideid}`, { token: commenter.token })).body.steps[0].comment_count;
    expect((await api('DELETE', `/comments/${thread.commentid}`, { token: outsider.token })).status).toBe(403);
    expect((await api('DELETE', `/comments/${thread.commentid}`, { token: commenter.token })).status).toBe(204);
    expect((await api('GET', `/comments/${thread.commentid}`, { token: commenter.token })).status).toBe(404);
    expect((await api('GET', `/comments/${reply.commentid}`, { token: commenter.token })).status).toBe(404);
    expect((await api('DELETE', `/comments/${thread.commentid}`, { token: commenter.token })).status).toBe(404);
    const after = (await api('GET', `/guides/${guideid}`, { token: commenter.token })).body.steps[0].comment_count;
    expect(after).toBe(before - 2);
  });

  it('deleting a reply leaves the thread with one reply fewer', async () => {
    const thread = await comment('guide', guideid);
    const reply = await comment('guide', guideid, { parentid: thread.commentid }, author.token);
    expect((await api('DELETE', `/comments/${reply.commentid}`, { token: author.token })).status).toBe(204);
    const read = await api('GET', `/comments/${thread.commentid}`, { token: commenter.token });
    expect(read.body.replies).toEqual([]);
  });

  it("an Admin may delete anyone's comment, and that is on the audit trail", async () => {
    const created = await comment('guide', guideid);
    expect((await api('DELETE', `/comments/${created.commentid}`, { token: admin })).status).toBe(204);
    const record = await localDb().send(
      new GetCommand({
        TableName: 'stepwise',
        Key: { pk: `AUDIT#COMMENT#${created.commentid}`, sk: 'SEQ#000000000001' },
      }),
    );
    expect(record.Item).toMatchObject({
      action: 'comment.deleted_by_admin',
      details: { commentid: created.commentid, text_raw: created.text_raw },
    });
    expect(typeof record.Item!.hash).toBe('string');
  });
});
