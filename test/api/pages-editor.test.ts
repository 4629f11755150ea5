/**
 * The editor pages and the pages' client files over HTTP (issue 42 item 1, decision 294): who
 * sees the Edit and New guide links and the editor, the editor's CSP (scripts and uploads allowed,
 * still no inline script; every other page runs none), and the client files served by the hash of
 * their content, kept a year. The editor itself in a browser: test/browser/editor.test.ts.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { buildPageClient } from '../../infra/cdk/embeds.ts';
import { api, createUser, site, uniqueSuffix, type TestUser } from '../support/api.ts';
import { createWiki } from '../support/wikis.ts';
import { createGuide, uploadImage } from './guide-fixtures.ts';

let author: TestUser;
let otherAuthor: TestUser;
let technician: TestUser;
let category: string;
let guide: { guideid: number; url: string };

beforeAll(async () => {
  category = `Editor pages ${uniqueSuffix()}`;
  [author, otherAuthor, technician] = await Promise.all([
    createUser({ privileges: ['Author'] }),
    createUser({ privileges: ['Author'] }),
    createUser(),
    createWiki({ namespace: 'CATEGORY', title: category, contents: 'Guides.' }),
  ]);
  guide = await createGuide(author.token, { category, title: `Edit me ${uniqueSuffix()}`, public: true });
}, 60_000);

const pathOf = (url: string) => new URL(url).pathname;
const categoryPath = () => `/c/${encodeURIComponent(category)}`;

describe('the ways in', () => {
  it("the guide page links its editor for those who may edit it, the category page a new guide's for Authors", async () => {
    const [own, other, reader] = await Promise.all(
      [author, otherAuthor, technician].map((user) => site('GET', pathOf(guide.url), { token: user.token })),
    );
    expect(own.text).toContain(`<a class="edit-link" href="/Edit/Guide/${guide.guideid}">Edit this guide</a>`);
    // Another Author without a grant may read the public guide but not change it (canEditGuide).
    expect(other.text).not.toContain('edit-link');
    expect(reader.text).not.toContain('edit-link');
    const [authorsCategory, readersCategory] = await Promise.all(
      [author, technician].map((user) => site('GET', categoryPath(), { token: user.token })),
    );
    expect(authorsCategory.text).toContain(`href="/Edit/Guide/new?category=${encodeURIComponent(category)}"`);
    expect(readersCategory.text).not.toContain('edit-link');
  });

  it('the editor answers those the API lets write; others get the 404 page, the anonymous the login', async () => {
    const own = await site('GET', `/Edit/Guide/${guide.guideid}`, { token: author.token });
    expect(own.status).toBe(200);
    expect(own.text).toContain(`data-guideid="${guide.guideid}"`);
    const created = await site('GET', '/Edit/Guide/new', { token: author.token, query: { category } });
    expect(created.status).toBe(200);
    expect(created.text).toContain('data-guideid=""');
    const [other, reader, readerNew] = await Promise.all([
      site('GET', `/Edit/Guide/${guide.guideid}`, { token: otherAuthor.token }),
      site('GET', `/Edit/Guide/${guide.guideid}`, { token: technician.token }),
      site('GET', '/Edit/Guide/new', { token: technician.token }),
    ]);
    expect([other.status, reader.status, readerNew.status]).toEqual([404, 404, 404]);
    expect(reader.text).not.toContain('/client/');
    const anonymous = await site('GET', `/Edit/Guide/${guide.guideid}`);
    expect(anonymous.status).toBe(302);
    expect(anonymous.headers.get('location')).toBe(
      `/login?returnTo=${encodeURIComponent(`/Edit/Guide/${guide.guideid}`)}`,
    );
  });
});

describe('wiki pages', () => {
  it('Authors see the wiki editor of a page; POST /wikis/preview renders and sanitizes without saving', async () => {
    const categoryPage = await site('GET', categoryPath(), { token: author.token });
    expect(categoryPage.text).toContain(
      `href="/Edit/Wiki/CATEGORY/${encodeURIComponent(category)}">Edit this page</a>`,
    );
    const editor = await site('GET', `/Edit/Wiki/CATEGORY/${encodeURIComponent(category)}`, { token: author.token });
    expect(editor.status).toBe(200);
    expect(editor.text).toContain('data-editor="wiki"');
    const refused = await site('GET', `/Edit/Wiki/CATEGORY/${encodeURIComponent(category)}`, {
      token: technician.token,
    });
    expect(refused.status).toBe(404);
    expect((await site('GET', '/Edit/Wiki/WIKI/No such page', { token: author.token })).status).toBe(404);

    const contents = "Use the '''calibrated''' wrench.<script>alert(1)</script><img src=x onerror=alert(1)>";
    const preview = await api('POST', '/wikis/preview', { token: author.token, body: { contents } });
    expect(preview.status).toBe(200);
    expect(preview.body.contents_rendered).toContain('<strong>calibrated</strong>');
    expect(preview.body.contents_rendered).not.toMatch(/<script|onerror=/);
    expect((await api('POST', '/wikis/preview', { token: technician.token, body: { contents } })).status).toBe(403);

    // An image named by id shows when the writer could place it (their own), not another's (decision 332).
    const [mine, theirs] = await Promise.all([
      uploadImage(author.token, 24, 16),
      uploadImage(otherAuthor.token, 24, 16),
    ]);
    const guidOf = async (id: number, token: string) =>
      (await api('GET', `/media/images/${id}`, { token })).body.image.guid as string;
    const [myGuid, theirGuid] = await Promise.all([guidOf(mine, author.token), guidOf(theirs, otherAuthor.token)]);
    const withImages = await api('POST', '/wikis/preview', {
      token: author.token,
      body: { contents: `[image|${mine}]\n\n[image|${theirs}]` },
    });
    expect(withImages.status).toBe(200);
    expect(withImages.body.contents_rendered).toContain(`/igi/${myGuid}.`);
    expect(withImages.body.contents_rendered).not.toContain(theirGuid);
  });
});

describe('the client files and the CSP', () => {
  it('the editor loads the script and stylesheet by their hashes; only its CSP allows scripts', async () => {
    const editor = await site('GET', `/Edit/Guide/${guide.guideid}`, { token: author.token });
    const csp = editor.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toMatch(/connect-src 'self' http:\/\/127\.0\.0\.1:\d+/);
    expect(csp).not.toContain('unsafe-inline');
    const script = /<script src="(\/client\/editor\.[0-9a-f]{16}\.js)" defer><\/script>/.exec(editor.text)?.[1];
    const style = /<link rel="stylesheet" href="(\/client\/editor\.[0-9a-f]{16}\.css)">/.exec(editor.text)?.[1];
    expect(script).toBeDefined();
    expect(style).toBeDefined();
    // The one inline script is the header's search suggestions, allowed by its hash (decision 298).
    expect(editor.text.match(/<script(?![^>]*\ssrc=)/g) ?? []).toHaveLength(1);

    const page = await site('GET', pathOf(guide.url), { token: author.token });
    // A page without the client runs the suggestions' script alone: its hash, not this site's files.
    const pageCsp = page.headers.get('content-security-policy')!;
    expect(pageCsp).not.toContain("script-src 'self'");
    expect(pageCsp).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'(;|$)/);
    expect(page.text).not.toContain('/client/');

    const [js, css] = await Promise.all([site('GET', script!), site('GET', style!)]);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(js.text).toContain('/api/2.0');
    // What the sources build now (the run's stacks share one build of the embeds, decision 354).
    expect(js.text).toBe(buildPageClient().script);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(css.text).toContain('.editor-step');
    // Another build's hash is gone, not served as this one.
    expect((await site('GET', '/client/editor.0000000000000000.js')).status).toBe(404);
    expect((await site('GET', '/client/other.js')).status).toBe(404);
  });
});
