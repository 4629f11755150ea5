import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, loginAdmin, type TestUser } from '../support/api.ts';
import { anAuthor, createWiki, wikiPath, type CreatedWiki } from '../support/wikis.ts';

let admin: string;
let author: TestUser;
let viewer: TestUser;
let stranger: TestUser;
let page: CreatedWiki;

beforeAll(async () => {
  admin = await loginAdmin();
  [author, viewer, stranger] = await Promise.all([anAuthor(), createUser(), createUser()]);
  page = await createWiki({}, author.token);
  expect((await api('GET', wikiPath(page), { token: viewer.token })).status).toBe(200);
});

const now = () => Math.floor(Date.now() / 1000);

describe('GET /user_view_history/user/{userid}', () => {
  it("lists the user's views, newest first, in the documented entry shape", async () => {
    const second = await createWiki({}, author.token);
    await api('GET', wikiPath(second), { token: viewer.token });
    const history = await api('GET', `/user_view_history/user/${viewer.userid}`, { token: viewer.token });
    expect(history.status).toBe(200);
    const docids = history.body.map((entry: { docid: string }) => entry.docid);
    expect(docids).toContain(String(page.wikiid));
    expect(docids).toContain(String(second.wikiid));
    expect(history.body[0]).toEqual({
      userid: viewer.userid,
      username: expect.any(String),
      doc_type: 'WIKI',
      docid: expect.any(String),
      date: expect.any(Number),
    });
    const dates = history.body.map((entry: { date: number }) => entry.date);
    expect([...dates].sort((a, b) => b - a)).toEqual(dates);
  });

  it('filters by start_date and end_date (inclusive) and pages', async () => {
    const history = await api('GET', `/user_view_history/user/${viewer.userid}`, { token: viewer.token });
    const date = history.body[0].date as number;
    const exact = await api('GET', `/user_view_history/user/${viewer.userid}`, {
      token: viewer.token,
      query: { start_date: date, end_date: date },
    });
    expect(exact.body.length).toBeGreaterThan(0);
    expect(exact.body.every((entry: { date: number }) => entry.date === date)).toBe(true);
    const later = await api('GET', `/user_view_history/user/${viewer.userid}`, {
      token: viewer.token,
      query: { start_date: now() + 3600 },
    });
    expect(later.body).toEqual([]);
    const earlier = await api('GET', `/user_view_history/user/${viewer.userid}`, {
      token: viewer.token,
      query: { end_date: date - 3600 },
    });
    expect(earlier.body).toEqual([]);
    const one = await api('GET', `/user_view_history/user/${viewer.userid}`, {
      token: viewer.token,
      query: { limit: 1 },
    });
    expect(one.body).toHaveLength(1);
    const next = await api('GET', `/user_view_history/user/${viewer.userid}`, {
      token: viewer.token,
      query: { limit: 1, offset: 1 },
    });
    expect(next.body[0]).toEqual(history.body[1]);
    const backwards = await api('GET', `/user_view_history/user/${viewer.userid}`, {
      token: viewer.token,
      query: { start_date: 10, end_date: 5 },
    });
    expect(backwards.status).toBe(422);
    const notANumber = await api('GET', `/user_view_history/user/${viewer.userid}`, {
      token: viewer.token,
      query: { start_date: 'yesterday' },
    });
    expect(notANumber.status).toBe(422);
  });

  it('is for the user and Admins (403 for others, 404 for an unknown user, 401 anonymous)', async () => {
    expect((await api('GET', `/user_view_history/user/${viewer.userid}`, { token: stranger.token })).status).toBe(403);
    expect((await api('GET', `/user_view_history/user/${viewer.userid}`, { token: admin })).status).toBe(200);
    expect((await api('GET', '/user_view_history/user/999999999', { token: admin })).status).toBe(404);
    expect((await api('GET', `/user_view_history/user/${viewer.userid}`)).status).toBe(401);
  });
});

describe('GET /user_view_history/{doc_type}/{docid}', () => {
  it('lists who viewed a wiki page (its author and Admins)', async () => {
    const viewers = await api('GET', `/user_view_history/wiki/${page.wikiid}`, { token: author.token });
    expect(viewers.status).toBe(200);
    expect(viewers.body).toContainEqual(
      expect.objectContaining({ userid: viewer.userid, doc_type: 'WIKI', docid: String(page.wikiid) }),
    );
    expect((await api('GET', `/user_view_history/WIKI/${page.wikiid}`, { token: admin })).status).toBe(200);
    expect((await api('GET', `/user_view_history/wiki/${page.wikiid}`, { token: viewer.token })).status).toBe(403);
    const future = await api('GET', `/user_view_history/wiki/${page.wikiid}`, {
      token: author.token,
      query: { start_date: now() + 3600 },
    });
    expect(future.body).toEqual([]);
  });

  it('lists who viewed a guide (recorded by GET /guides/{guideid})', async () => {
    const category = await createWiki({ namespace: 'CATEGORY' }, author.token);
    const created = await api('POST', '/guides', {
      token: author.token,
      body: { category: category.title, type: 'how-to', title: 'Viewed guide', public: true },
    });
    expect(created.status).toBe(201);
    const guideid = created.body.guideid as number;
    expect((await api('GET', `/guides/${guideid}`, { token: viewer.token })).status).toBe(200);
    const viewers = await api('GET', `/user_view_history/guide/${guideid}`, { token: author.token });
    expect(viewers.status).toBe(200);
    expect(viewers.body).toContainEqual({
      userid: viewer.userid,
      username: expect.any(String),
      doc_type: 'GUIDE',
      docid: String(guideid),
      date: expect.any(Number),
    });
    expect((await api('GET', `/user_view_history/guide/${guideid}`, { token: stranger.token })).status).toBe(403);
  });

  it('404 for an unknown document or document type', async () => {
    expect((await api('GET', '/user_view_history/guide/999999999', { token: admin })).status).toBe(404);
    expect((await api('GET', '/user_view_history/wiki/999999999', { token: admin })).status).toBe(404);
    expect((await api('GET', `/user_view_history/video/${page.wikiid}`, { token: admin })).status).toBe(404);
  });
});
