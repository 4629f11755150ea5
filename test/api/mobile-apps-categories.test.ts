/**
 * What the Dozuki mobile apps read before and while browsing (issue 25 §1, §2, §8): the site
 * info, the category tree in the iOS and Android forms, the flat list, the category page, the
 * collections, and the Dozuki-form category urls. Assertions follow the apps' parsers: the keys
 * they read must be there with the types they read them as (org.json getString/getInt/
 * getBoolean/getJSONObject on Android, NSDictionary/NSNull checks on iOS).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, loginAdmin, site, siteUrl, uniqueSuffix } from '../support/api.ts';
import { createGuide, publish } from './guide-fixtures.ts';

let admin: string;
/** A two-level tree: `Lines <s>` > `Press line <s>` (holds a guide), `Spare line <s>` (empty). */
let root: string;
let leaf: string;
let empty: string;
let guide: { guideid: number; revisionid: number };

async function createCategory(title: string, parent?: string, display_title?: string) {
  const response = await api('POST', '/wikis', {
    token: admin,
    body: { namespace: 'CATEGORY', title, contents: `About ${title}.`, parent, display_title },
  });
  expect(response.status, response.text).toBe(201);
}

beforeAll(async () => {
  admin = await loginAdmin();
  const suffix = uniqueSuffix();
  root = `Lines ${suffix}`;
  leaf = `Press line ${suffix}`;
  empty = `Spare line ${suffix}`;
  await createCategory(root, undefined, `Production lines ${suffix}`);
  await createCategory(leaf, root);
  await createCategory(empty, root);
  guide = await publish(admin, await createGuide(admin, { category: leaf, title: `Change the die ${suffix}` }));
});

describe('site info (GET /sites/info, /info, /site)', () => {
  it('answers anonymously on a private site with every key the apps parse', async () => {
    for (const path of ['/sites/info', '/info', '/site']) {
      const answer = await api('GET', path);
      expect(answer.status, path).toBe(200);
      const info = answer.body;
      // Android JSONHelper.parseSite: getInt / getString / getBoolean / getJSONObject.
      expect(Number.isInteger(info.siteid)).toBe(true);
      for (const key of ['name', 'domain', 'title', 'theme', 'description'])
        expect(typeof info[key], key).toBe('string');
      expect(info.private).toBe(true);
      expect(typeof info.answers).toBe('boolean');
      expect(info.authentication.standard).toBe(true);
      expect(typeof info.authentication['public-registration']).toBe('boolean');
      // The app tests has("sso"): a site without an identity provider must not send the key at all.
      expect(info.authentication).not.toHaveProperty('sso');
      const types = Object.entries(info['guide-types']);
      expect(types.length).toBeGreaterThan(0);
      for (const [, type] of types) expect(type).toEqual({ title: expect.any(String), prompt: expect.any(String) });
      expect(info['guide-types']['how-to'].title).toBe('How-to');
      expect(typeof info['object-name-singular']).toBe('string');
      expect(typeof info['object-name-plural']).toBe('string');
      expect(typeof info['feature-mobile-scanner']).toBe('boolean');
      expect(info).toHaveProperty('google-oauth2-clientid');
      expect(info.logo).toBeNull();
      expect(info.domain).toBe(new URL(siteUrl()).host);
    }
  });
});

describe('the category tree', () => {
  it('GET /categories: an object of titles whose leaves are {} (as real Dozuki sites answer)', async () => {
    const answer = await api('GET', '/categories', { token: admin });
    expect(answer.status).toBe(200);
    expect(answer.body[root]).toEqual({ [leaf]: {}, [empty]: {} });
    // A crawler that descends into every object counts every category (issue 39).
    const count = (tree: Record<string, unknown>): number =>
      Object.values(tree).reduce<number>((sum, child) => sum + 1 + count(child as Record<string, unknown>), 0);
    expect(count(answer.body[root])).toBe(2);
    expect(answer.body).not.toHaveProperty(leaf);
  });

  it('?withDisplayTitles (a bare flag, as iOS sends it): {hierarchy, display_titles}', async () => {
    const answer = await api('GET', '/categories?withDisplayTitles', { token: admin });
    expect(answer.status).toBe(200);
    expect(Object.keys(answer.body).sort()).toEqual(['display_titles', 'hierarchy']);
    // iOS: a child that is NSNull is a device (a leaf), a dictionary is a category to open.
    expect(answer.body.hierarchy[root]).toEqual({ [leaf]: null, [empty]: null });
    expect(answer.body.display_titles[root]).toMatch(/^Production lines /);
    expect(answer.body.display_titles[leaf]).toBe(leaf);
  });

  it('?requireGuides keeps only branches holding a guide the caller may read', async () => {
    const answer = await api('GET', '/categories', { token: admin, query: { requireGuides: 1 } });
    expect(answer.status).toBe(200);
    expect(answer.body[root]).toEqual({ [leaf]: {} });
  });

  it('GET /wikis/CATEGORY?display=hierarchyOrder: an array of nodes; a leaf has no children key', async () => {
    const answer = await api('GET', '/wikis/CATEGORY', { token: admin, query: { display: 'hierarchyOrder' } });
    expect(answer.status).toBe(200);
    expect(Array.isArray(answer.body)).toBe(true);
    const node = answer.body.find((item: { title: string }) => item.title === root);
    expect(node.display_title).toMatch(/^Production lines /);
    expect(node.children.map((child: { title: string }) => child.title)).toEqual([leaf, empty]);
    for (const child of node.children) {
      expect(Object.keys(child).sort()).toEqual(['display_title', 'title']);
    }
  });

  it('GET /categories/all: a flat array of titles, limit up to 100000, offset', async () => {
    const answer = await api('GET', '/categories/all', { token: admin, query: { limit: 100000 } });
    expect(answer.status).toBe(200);
    expect(answer.body.every((title: unknown) => typeof title === 'string')).toBe(true);
    expect(answer.body).toEqual(expect.arrayContaining([root, leaf, empty]));
    expect([...answer.body].sort()).toEqual(answer.body);
    const index = answer.body.indexOf(leaf);
    const paged = await api('GET', '/categories/all', { token: admin, query: { limit: 1, offset: index } });
    expect(paged.body).toEqual([leaf]);
    expect((await api('GET', '/categories/all', { token: admin, query: { limit: 0 } })).status).toBe(422);
  });

  it('/categories/all is a fixed path: it wins over a category named "all"', async () => {
    await api('POST', '/wikis', { token: admin, body: { namespace: 'CATEGORY', title: 'all', contents: 'x' } });
    const answer = await api('GET', '/categories/all', { token: admin });
    expect(Array.isArray(answer.body)).toBe(true);
    const page = await api('GET', '/wikis/CATEGORY/all', { token: admin });
    expect(page.status).toBe(200);
    expect(page.body.title).toBe('all');
  });
});

describe('the category page', () => {
  /** What the apps read of a category page and of each guide summary on it. */
  function expectCategoryPage(page: any) {
    for (const key of ['title', 'display_title', 'langid', 'contents_raw', 'contents_rendered', 'description'])
      expect(typeof page[key], key).toBe('string');
    expect(page).toHaveProperty('image');
    expect(typeof page.solutions_url).toBe('string');
    expect(Array.isArray(page.related_wikis)).toBe(true);
    expect(Array.isArray(page.featured_guides)).toBe(true);
    expect(page.guides.map((item: { guideid: number }) => item.guideid)).toEqual([guide.guideid]);
    const [item] = page.guides;
    // Android parseGuideInfo: getInt guideid; getString category, subject, type, title; getBoolean public.
    expect(item).toMatchObject({ guideid: guide.guideid, category: leaf, type: 'how-to', public: true });
    for (const key of ['subject', 'title']) expect(typeof item[key], key).toBe('string');
    expect(item).toHaveProperty('image');
  }

  it('GET /categories/{name}, `+` read as a space, with ?langid= of any device language', async () => {
    const answer = await api('GET', `/categories/${leaf.replace(/ /g, '+')}`, {
      token: admin,
      query: { langid: 'fr' },
    });
    expect(answer.status, answer.text).toBe(200);
    expectCategoryPage(answer.body);
    expect(answer.body.title).toBe(leaf);
    expect(answer.body.url).toBe(`${siteUrl()}/c/${encodeURIComponent(leaf.replace(/ /g, '_'))}`);
  });

  it('GET /wikis/CATEGORY/{title} answers the same page (revisionid null), + as a space too', async () => {
    const answer = await api('GET', `/wikis/CATEGORY/${leaf.replace(/ /g, '+')}`, {
      token: admin,
      query: { langid: 'en' },
    });
    expect(answer.status, answer.text).toBe(200);
    expectCategoryPage(answer.body);
    expect(answer.body.revisionid).toBeNull();
    // A WIKI page is not a category page.
    const wiki = await api('POST', '/wikis', {
      token: admin,
      body: { namespace: 'WIKI', title: `Die care ${uniqueSuffix()}`, contents: 'x' },
    });
    const read = await api('GET', `/wikis/WIKI/${encodeURIComponent(wiki.body.title)}`, { token: admin });
    expect(read.status).toBe(200);
    expect(read.body).not.toHaveProperty('guides');
  });

  it('a literal plus is %2B: "C++" is its own category', async () => {
    const title = `C++ tools ${uniqueSuffix()}`;
    await createCategory(title);
    const answer = await api('GET', `/categories/${encodeURIComponent(title)}`, { token: admin });
    expect(answer.status).toBe(200);
    expect(answer.body.title).toBe(title);
    expect((await api('GET', `/categories/${title.replace(/ /g, '+')}`, { token: admin })).status).toBe(404);
  });

  it('lists only guides the caller may read', async () => {
    const draft = await createGuide(admin, { category: leaf, title: `Draft ${uniqueSuffix()}` });
    const { createUser } = await import('../support/api.ts');
    const reader = await createUser();
    const asReader = await api('GET', `/categories/${encodeURIComponent(leaf)}`, { token: reader.token });
    expect(asReader.body.guides.map((item: { guideid: number }) => item.guideid)).toEqual([guide.guideid]);
    const asAdmin = await api('GET', `/categories/${encodeURIComponent(leaf)}`, { token: admin });
    expect(asAdmin.body.guides.map((item: { guideid: number }) => item.guideid)).toEqual([
      guide.guideid,
      draft.guideid,
    ]);
  });

  it('an unknown category is 404; anonymous is 401 on a private site', async () => {
    expect((await api('GET', `/categories/No such ${uniqueSuffix()}`, { token: admin })).status).toBe(404);
    for (const path of ['/categories', '/categories/all', `/categories/${encodeURIComponent(leaf)}`, '/collections'])
      expect((await api('GET', path)).status, path).toBe(401);
  });
});

describe('collections and category urls', () => {
  it('GET /collections answers a bare array (its collections: test/api/collections.test.ts)', async () => {
    const answer = await api('GET', '/collections', { token: admin, query: { limit: 20, offset: 0 } });
    expect(answer.status).toBe(200);
    expect(Array.isArray(answer.body)).toBe(true);
  });

  it('/Category/<title> redirects (301) to /c/<title>, + and _ read as spaces', async () => {
    const answer = await site('GET', `/Category/${leaf.replace(/ /g, '+')}`);
    expect(answer.status).toBe(301);
    expect(answer.headers.get('location')).toBe(`${siteUrl()}/c/${encodeURIComponent(leaf.replace(/ /g, '_'))}`);
    const underscored = await site('GET', `/Category/${leaf.replace(/ /g, '_')}`);
    expect(underscored.headers.get('location')).toBe(answer.headers.get('location'));
  });
});
