/**
 * Private and public sites (STEPWISE_PRIVATE_SITE). The shared test stack is a private site
 * (the default); two short-lived stacks, one after the other, show a public site and a private
 * site with public registration on (and app ids listed, so X-App-Id is required).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, api, apiAt, createUser, loginAdmin, uniqueSuffix } from '../support/api.ts';
import { startStackProcess, type RunningStack } from '../support/local-stack-process.ts';
import { createGuide, publish } from './guide-fixtures.ts';

const INVALID_BODY = ['not', 'an', 'object'];
/** The app id of the reference's curl example. */
const APP_ID = 'FEDCBA0987654321';

function registration() {
  const suffix = uniqueSuffix();
  return {
    email: `site.${suffix}@example.com`,
    username: `Site ${suffix}`,
    password: `pw-${suffix}-Secret`,
    unique_username: `s_${suffix}`,
  };
}

describe('a private site (the default)', () => {
  it('answers 401 {message} to anonymous reads, even of a published public guide', async () => {
    const admin = await loginAdmin();
    const guide = await publish(admin, await createGuide(admin));
    expect(guide.public).toBe(true);

    const anonymous = await api('GET', `/guides/${guide.guideid}`);
    expect(anonymous.status).toBe(401);
    expect(Object.keys(anonymous.body)).toEqual(['message']);
    for (const path of [
      '/guides',
      '/guides/featured',
      `/guides/${guide.guideid}/releases`,
      '/wikis/CATEGORY',
      '/user',
    ]) {
      expect((await api('GET', path)).status, path).toBe(401);
    }
    expect(
      (await api('GET', `/guides/${guide.guideid}`, { headers: { authorization: 'api not-a-token' } })).status,
    ).toBe(401);

    const user = await createUser();
    const signedIn = await api('GET', `/guides/${guide.guideid}`, { token: user.token });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.guideid).toBe(guide.guideid);
  });

  it('keeps login, the password-reset pair and the API docs open', async () => {
    expect((await api('POST', '/user/token', { body: ADMIN })).status).toBe(201);
    expect(
      (await api('POST', '/user/token', { body: { email: ADMIN.email, password: 'wrong-password' } })).status,
    ).toBe(401);
    expect(
      (await api('POST', '/users/reset_password', { body: { email: `nobody.${uniqueSuffix()}@example.com` } })).status,
    ).toBe(200);
    const complete = await api('POST', '/users/reset_password/complete', {
      body: { token: 'not-a-reset-token', password: 'Brand-new-pass-2' },
    });
    expect(complete.status).toBe(422);
    expect((await api('GET', '/doc')).status).toBe(200);
    const document = await api('GET', '/openapi.json');
    expect(document.status).toBe(200);
    expect(document.body.paths['/user/token'].post['x-open-on-private-site']).toBe(true);
    expect(document.body.paths['/guides/{guideid}'].get['x-open-on-private-site']).toBe(false);
    expect(document.body.paths['/guides/{guideid}'].get.responses).toHaveProperty('401');
  });

  it('decides registration before the body: 401 anonymous and 403 for a User, never a 422 listing fields', async () => {
    for (const body of [INVALID_BODY, {}, registration()]) {
      const anonymous = await api('POST', '/users', { body });
      expect(anonymous.status).toBe(401);
      expect(anonymous.body).not.toHaveProperty('errors');
    }
    const user = await createUser();
    const forbidden = await api('POST', '/users', { token: user.token, body: {} });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).not.toHaveProperty('errors');
    const admin = await api('POST', '/users', { token: await loginAdmin(), body: {} });
    expect(admin.status).toBe(422);
    expect(admin.body.errors.map((error: { field: string }) => error.field)).toEqual(
      expect.arrayContaining(['email', 'password']),
    );
  });

  it('answers the same through the $default fallback (a trailing slash) as through the route', async () => {
    const admin = await loginAdmin();
    const guide = await publish(admin, await createGuide(admin));
    expect((await api('GET', `/guides/${guide.guideid}/`)).status).toBe(401);
    expect((await api('GET', `/guides/${guide.guideid}/`, { token: admin })).status).toBe(200);
    expect((await api('POST', '/users/', { body: INVALID_BODY })).status).toBe(401);
    // The route table is public (the OpenAPI document is open): a wrong method is 405 for anyone.
    expect((await api('PATCH', '/user/token')).status).toBe(405);
  });
});

describe('a public site (STEPWISE_PRIVATE_SITE=false)', () => {
  let stack: RunningStack;
  const call = (method: string, path: string, options: Parameters<typeof api>[2] = {}) =>
    apiAt(stack.url, method, path, options);

  beforeAll(async () => {
    stack = await startStackProcess({
      STEPWISE_PRIVATE_SITE: 'false',
      STEPWISE_ADMIN_EMAIL: ADMIN.email,
      STEPWISE_ADMIN_PASSWORD: ADMIN.password,
    });
  }, 60_000);
  afterAll(() => stack?.stop());

  it('serves published public guides to anonymous readers and nothing else', async () => {
    const admin = (await call('POST', '/user/token', { body: ADMIN })).body.authToken as string;
    expect(
      (
        await call('POST', '/wikis', {
          token: admin,
          body: { namespace: 'CATEGORY', title: 'Open site', contents: 'x' },
        })
      ).status,
    ).toBe(201);
    const draft = (
      await call('POST', '/guides', {
        token: admin,
        body: { category: 'Open site', type: 'how-to', title: 'Open guide' },
      })
    ).body;
    const hidden = (
      await call('POST', '/guides', {
        token: admin,
        body: { category: 'Open site', type: 'how-to', title: 'Hidden guide' },
      })
    ).body;
    const published = await call('PUT', `/guides/${draft.guideid}/public`, {
      token: admin,
      query: { revisionid: draft.revisionid },
      body: {},
    });
    expect(published.status).toBe(200);

    const read = await call('GET', `/guides/${draft.guideid}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ guideid: draft.guideid, public: true, completed: false });
    const listed = await call('GET', '/guides', { query: { limit: 200 } });
    expect(listed.status).toBe(200);
    expect(listed.body.map((guide: { guideid: number }) => guide.guideid)).toEqual([draft.guideid]);

    expect((await call('GET', `/guides/${hidden.guideid}`)).status).toBe(401);

    // The apps browse a public site without a token (issue 25 §7): site info, the category tree,
    // category and wiki pages, with public content only.
    const info = await call('GET', '/sites/info');
    expect(info.body).toMatchObject({ private: false, authentication: { standard: true } });
    const tree = await call('GET', '/categories?withDisplayTitles');
    expect(tree.status).toBe(200);
    expect(tree.body.hierarchy).toHaveProperty(['Open site'], null);
    const ordered = await call('GET', '/wikis/CATEGORY', { query: { display: 'hierarchyOrder' } });
    expect(ordered.body).toContainEqual({ title: 'Open site', display_title: 'Open site' });
    expect((await call('GET', '/categories/all', { query: { limit: 100000 } })).body).toContain('Open site');
    for (const path of ['/categories/Open+site', '/wikis/CATEGORY/Open+site']) {
      const page = await call('GET', path, { query: { langid: 'en' } });
      expect(page.status, path).toBe(200);
      expect(page.body.can_edit).toBe(false);
      expect(page.body.guides.map((guide: { guideid: number }) => guide.guideid)).toEqual([draft.guideid]);
    }
    // The iOS crawler lists a namespace's pages and a guide's tags without a token.
    const page = await call('POST', '/wikis', {
      token: admin,
      body: { namespace: 'WIKI', title: 'Open notes', contents: 'Read me.' },
    });
    expect(page.status).toBe(201);
    const pages = await call('GET', '/wikis/WIKI');
    expect(pages.status).toBe(200);
    expect(pages.body).toContainEqual(
      expect.objectContaining({ dataType: 'wiki', wikiid: page.body.wikiid, namespace: 'WIKI', title: 'Open notes' }),
    );
    expect((await call('GET', '/wikis/WIKI', { query: { display: 'titles' } })).body).toContain('Open notes');
    // Courses are for signed-in users: their namespace stays closed to anonymous readers.
    const course = await call('POST', '/courses', { token: admin, body: { title: 'Closed course', contents: 'x' } });
    expect(course.status).toBe(201);
    expect((await call('GET', '/wikis/COURSE')).status).toBe(401);
    expect((await call('GET', '/wikis/COURSE/Closed+course')).status).toBe(401);
    expect((await call('GET', '/wikis/COURSE', { token: admin })).body).toContainEqual(
      expect.objectContaining({ title: 'Closed course' }),
    );
    // The migration crawler reads a public guide's tags anonymously (issue 25 §8); a hidden guide's stay closed.
    for (const guide of [draft, hidden]) {
      const tagged = await call('PUT', `/guides/${guide.guideid}/tag`, { token: admin, body: { tag: 'nozzle' } });
      expect(tagged.status).toBe(200);
    }
    const tags = await call('GET', `/guides/${draft.guideid}/tags`);
    expect(tags.status).toBe(200);
    expect(tags.body).toEqual(['nozzle']);
    const closed = await call('GET', `/guides/${hidden.guideid}/tags`);
    expect(closed.status).toBe(401);
    expect(closed.text).not.toContain('nozzle');
    expect((await call('GET', '/collections')).body).toEqual([]);
    expect((await call('GET', '/user')).status).toBe(401);
    expect((await call('GET', '/users')).status).toBe(401);
    // Registration stays closed: still decided before the body.
    const register = await call('POST', '/users', { body: INVALID_BODY });
    expect(register.status).toBe(401);
    expect(register.body).not.toHaveProperty('errors');

    // Search answers anonymously with public content only (issue 25 §3), once the indexer has both guides.
    const searched = (token?: string) => call('GET', '/search/guide', { token, query: { filter: 'guide' } });
    for (let tries = 0; (await searched(admin)).body.totalResults !== 2 && tries < 100; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    expect((await searched(admin)).body.totalResults).toBe(2);
    const anonymous = await searched();
    expect(anonymous.status).toBe(200);
    expect(anonymous.body).toMatchObject({ search: 'guide', totalResults: 1, moreResults: false });
    expect(anonymous.body.results.map((guide: { guideid: number }) => guide.guideid)).toEqual([draft.guideid]);
  });
});

describe('a private site with public registration on', () => {
  let stack: RunningStack;
  const call = (method: string, path: string, options: Parameters<typeof api>[2] = {}) =>
    apiAt(stack.url, method, path, options);

  beforeAll(async () => {
    stack = await startStackProcess({
      STEPWISE_PUBLIC_REGISTRATION: 'true',
      STEPWISE_APP_IDS: APP_ID,
      STEPWISE_ADMIN_EMAIL: ADMIN.email,
      STEPWISE_ADMIN_PASSWORD: ADMIN.password,
    });
  }, 60_000);
  afterAll(() => stack?.stop());

  it('lets anyone with an accepted X-App-Id register (then the body is validated) and still closes every read', async () => {
    const withAppId = { 'x-app-id': APP_ID };
    const noAppId = await call('POST', '/users', { body: registration() });
    expect(noAppId.status).toBe(400);
    expect(noAppId.body).toEqual({ message: 'Invalid app id' });
    expect(
      (await call('POST', '/users', { body: INVALID_BODY, headers: { 'x-app-id': 'FFFF000011112222' } })).status,
    ).toBe(400);
    const invalid = await call('POST', '/users', { body: {}, headers: withAppId });
    expect(invalid.status).toBe(422);
    expect(invalid.body.errors.length).toBeGreaterThan(0);
    const account = registration();
    const registered = await call('POST', '/users', { body: account, headers: withAppId });
    expect(registered.status).toBe(201);
    // Login needs the app id too while public registration is on.
    expect(
      (await call('POST', '/user/token', { body: { email: account.email, password: account.password } })).status,
    ).toBe(400);
    expect(
      (
        await call('POST', '/user/token', {
          body: { email: account.email, password: account.password },
          headers: withAppId,
        })
      ).status,
    ).toBe(201);
    expect(registered.body.authToken).toBeTruthy();
    expect((await call('GET', '/guides')).status).toBe(401);
    expect((await call('GET', '/guides', { token: registered.body.authToken })).status).toBe(200);
  });

  it('takes comments of 12–1024 characters, as the real service does on sites open to the public', async () => {
    const admin = (await call('POST', '/user/token', { body: ADMIN, headers: { 'x-app-id': APP_ID } })).body
      .authToken as string;
    expect(
      (
        await call('POST', '/wikis', {
          token: admin,
          body: { namespace: 'CATEGORY', title: 'Open registration', contents: 'x' },
        })
      ).status,
    ).toBe(201);
    const guide = (
      await call('POST', '/guides', {
        token: admin,
        body: { category: 'Open registration', type: 'how-to', title: 'Commented guide' },
      })
    ).body;
    const short = await call('POST', `/comments/guide/${guide.guideid}`, {
      token: admin,
      body: { text: 'x'.repeat(11) },
    });
    expect(short.status).toBe(422);
    expect(short.body.errors[0].field).toBe('text');
    expect(
      (await call('POST', `/comments/guide/${guide.guideid}`, { token: admin, body: { text: 'x'.repeat(1025) } }))
        .status,
    ).toBe(422);
    expect(
      (await call('POST', `/comments/guide/${guide.guideid}`, { token: admin, body: { text: 'x'.repeat(12) } })).status,
    ).toBe(201);
  });
});
