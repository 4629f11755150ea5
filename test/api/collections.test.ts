/**
 * Collections of guides (issue 39 item 3, decision 281) over HTTP: an Admin creates, orders,
 * dates and deletes them; `GET /collections?limit=200&offset=0` (the iOS app's Featured tab)
 * answers them newest first in the app's shape, never a null image where the app reads one; a
 * reader sees only the guides they may read; the home page shows them.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, loginAdmin, site, uniqueSuffix } from '../support/api.ts';
import { createGuide, publish, uploadImage } from './guide-fixtures.ts';

let admin: string;
let author: Awaited<ReturnType<typeof createUser>>;
let reader: Awaited<ReturnType<typeof createUser>>;
let published: { guideid: number; title: string };
let plain: { guideid: number; title: string };
let draft: { guideid: number; title: string };
let imageid: number;

beforeAll(async () => {
  admin = await loginAdmin();
  [author, reader] = await Promise.all([createUser({ privileges: ['Author'] }), createUser()]);
  let guideImage: number;
  [imageid, guideImage] = await Promise.all([uploadImage(admin, 80, 60), uploadImage(author.token, 80, 60)]);
  const withImage = await createGuide(author.token, { title: `Battery ${uniqueSuffix()}`, image: guideImage });
  published = await publish(author.token, withImage);
  plain = await publish(author.token, await createGuide(author.token, { title: `Cable ${uniqueSuffix()}` }));
  draft = await createGuide(author.token, { title: `Secret ${uniqueSuffix()}` });
}, 180_000);

async function create(body: Record<string, unknown>) {
  const created = await api('POST', '/collections', { token: admin, body });
  expect(created.status, created.text).toBe(201);
  return created.body;
}

/** The iOS app's call and what it reads of item 0 onward. */
async function featured(token: string) {
  const list = await api('GET', '/collections', { token, query: { limit: 200, offset: 0 } });
  expect(list.status).toBe(200);
  for (const item of list.body) {
    expect(typeof item.image.large).toBe('string');
    expect(typeof item.title).toBe('string');
    expect(Number.isInteger(item.collectionid)).toBe(true);
    expect(Number.isInteger(item.date)).toBe(true);
    for (const guide of item.guides) {
      expect(Number.isInteger(guide.guideid)).toBe(true);
      expect(typeof guide.title).toBe('string');
      expect(typeof guide.image.medium).toBe('string');
    }
  }
  return list.body as Array<{ collectionid: number; title: string; guides: Array<{ guideid: number }>; image: any }>;
}

describe('collections', () => {
  it('answers newest first by date in the iOS shape; a reader sees only guides they may read', async () => {
    const now = Math.floor(Date.now() / 1000);
    const older = await create({ title: `Older ${uniqueSuffix()}`, guideids: [plain.guideid], date: now + 1000 });
    const newer = await create({
      title: `Newer ${uniqueSuffix()}`,
      description: 'Batteries first',
      image: imageid,
      guideids: [published.guideid, draft.guideid, plain.guideid],
      date: now + 2000,
    });
    expect(newer).toMatchObject({ date: now + 2000, guide_count: 3, description: 'Batteries first' });
    expect(newer.image.id).toBe(imageid);

    const list = await featured(reader.token);
    const ids = list.map((item) => item.collectionid);
    expect(ids.indexOf(newer.collectionid)).toBeLessThan(ids.indexOf(older.collectionid));
    const shown = list.find((item) => item.collectionid === newer.collectionid)!;
    // The draft is not the reader's to see; the order is the collection's.
    expect(shown.guides.map((guide) => guide.guideid)).toEqual([published.guideid, plain.guideid]);
    // A collection without an image shows its first guide's; a guide without one, the collection's.
    const olderShown = list.find((item) => item.collectionid === older.collectionid)!;
    expect(olderShown.image.id).toBeLessThan(0);
    expect((shown.guides[1] as any).image.id).toBe(imageid);
    const authorView = await api('GET', `/collections/${newer.collectionid}`, { token: author.token });
    expect(authorView.body.guides.map((guide: { guideid: number }) => guide.guideid)).toEqual([
      published.guideid,
      draft.guideid,
      plain.guideid,
    ]);
  });

  it('is changed by Admins only: reorder, re-date, delete; bad guides or images are 422 with nothing written', async () => {
    const collection = await create({ title: `Order ${uniqueSuffix()}`, guideids: [published.guideid, plain.guideid] });
    const path = `/collections/${collection.collectionid}`;
    expect((await api('POST', '/collections', { token: author.token, body: { title: 'Mine' } })).status).toBe(403);
    expect((await api('PATCH', path, { token: author.token, body: { title: 'Mine' } })).status).toBe(403);
    expect((await api('GET', '/collections')).status).toBe(401);

    const badGuide = await api('PATCH', path, { token: admin, body: { guideids: [plain.guideid, 999_999_999] } });
    expect(badGuide.status).toBe(422);
    expect(badGuide.text).toContain('guideids');
    const badImage = await api('POST', '/collections', { token: admin, body: { title: 'X', image: 999_999_999 } });
    expect(badImage.status).toBe(422);
    const repeated = await api('PATCH', path, { token: admin, body: { guideids: [plain.guideid, plain.guideid] } });
    expect(repeated.status).toBe(422);

    const reordered = await api('PATCH', path, {
      token: admin,
      body: { guideids: [plain.guideid, published.guideid], date: 5, title: 'Renamed' },
    });
    expect(reordered.status).toBe(200);
    expect(reordered.body).toMatchObject({ title: 'Renamed', date: 5 });
    expect(reordered.body.guides.map((guide: { guideid: number }) => guide.guideid)).toEqual([
      plain.guideid,
      published.guideid,
    ]);
    // Dated earliest: last in the list.
    const list = await featured(admin);
    expect(list.at(-1)!.collectionid).toBe(collection.collectionid);

    expect((await api('DELETE', path, { token: admin })).status).toBe(204);
    expect((await api('GET', path, { token: admin })).status).toBe(404);
    expect((await api('DELETE', path, { token: admin })).status).toBe(404);
  });

  it("shows on the site's home page with the reader's guides", async () => {
    const title = `Home ${uniqueSuffix()}`;
    await create({ title, guideids: [published.guideid, draft.guideid], date: Math.floor(Date.now() / 1000) + 5000 });
    const home = await site('GET', '/', { token: reader.token });
    expect(home.status).toBe(200);
    expect(home.text).toContain(`<h3>${title}</h3>`);
    expect(home.text).toContain(published.title);
    expect(home.text).not.toContain(draft.title);
  });
});
