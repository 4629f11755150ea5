/**
 * The pages the API's `url`s open (issue 27), over HTTP: a guide, its PDF, wiki and category
 * pages, a course, users and teams; their access rules (the API's), cache headers, and stored
 * markup shown as text. A public site's pages: pages-public-site.test.ts.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createTeam, createUser, loginAdmin, site, uniqueSuffix } from '../support/api.ts';
import { assign, createCourse } from '../support/courses.ts';
import { createWiki } from '../support/wikis.ts';
import { pdfText, richGuide, XSS, type RichGuide } from '../support/pages.ts';
import { escapeHtml } from '../../functions/pages/html/html.ts';
import { addStep, createGuide, uploadReadyFile } from './guide-fixtures.ts';
import { minimalMp4 } from '../support/mp4.ts';

const pathOf = (url: string) => new URL(url).pathname;

let author: Awaited<ReturnType<typeof createUser>>;
let reader: Awaited<ReturnType<typeof createUser>>;
let guide: RichGuide;

beforeAll(async () => {
  [author, reader] = await Promise.all([createUser({ privileges: ['Author'] }), createUser()]);
  guide = await richGuide(author.token, { text: XSS });
}, 180_000);

describe('the guide page', () => {
  it('shows the guide: steps, lines, images at stable URLs, tools, prerequisites, the release', async () => {
    const page = await site('GET', pathOf(guide.url), { token: reader.token });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    // A signed-in reader's page is nobody else's: never stored by a shared cache.
    expect(page.headers.get('cache-control')).toBe('private, no-store');
    const text = page.text;
    for (const title of guide.stepTitles) expect(text).toContain(title.replace(XSS, ''));
    expect(text).toMatch(/<img class="cover" src="http[^"]+\/igi\/[\w-]+\.medium" alt="Replace the nozzle/);
    expect(text).toMatch(/<img src="[^"]+\/igi\/[\w-]+\.medium" alt="Step 1: Open the cover/);
    expect(text).toContain('<span class="line-icon">Caution: </span>');
    expect(text).toContain('class="callout callout-caution bullet-icon_caution level-1"');
    expect(text).toContain('<strong>hex key</strong>');
    expect(text).toContain('Before you start');
    expect(text).toContain('Release 1.0 of <time');
    expect(text).toMatch(/<main id="content"/);
    expect(text).toContain(`Signed in as <strong>`);
    expect(text).toContain('<a href="/logout">Sign out</a>');
    // Behind the escaping, no script runs on a page but the search box's, allowed by its hash.
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toMatch(/^default-src 'none'; script-src 'sha256-[A-Za-z0-9+/=]+'; /);
    expect(csp).toMatch(/; style-src 'sha256-/);
    expect(csp).not.toContain('unsafe-inline');
  });

  it('shows every stored string as text, and links only to http(s) URLs', async () => {
    const page = await site('GET', pathOf(guide.url), { token: reader.token });
    expect(page.text).not.toContain('<script>window.__xss');
    expect(page.text).not.toContain('<img src=x');
    expect(page.text).toContain('&lt;script&gt;window.__xss=1&lt;/script&gt;');
    expect(page.text).not.toContain('javascript:');
    expect(page.text).toContain('href="https://example.com/nozzle"');
  });

  it('answers a reader without access with the 404 page, never the content', async () => {
    const draft = await createGuide(author.token, { title: `Secret draft ${uniqueSuffix()}` });
    const own = await site('GET', pathOf(draft.url), { token: author.token });
    expect(own.status).toBe(200);
    const other = await site('GET', pathOf(draft.url), { token: reader.token });
    expect(other.status).toBe(404);
    expect(other.headers.get('content-type')).toContain('text/html');
    expect(other.text).not.toContain('Secret draft');
    // The id-only link wiki text makes: a redirect for a reader who may see it, 404 otherwise.
    const byId = await site('GET', `/Guide/${draft.guideid}`, { token: author.token });
    expect(byId.status).toBe(301);
    expect(byId.headers.get('location')).toBe(draft.url);
    expect((await site('GET', `/Guide/${draft.guideid}`, { token: reader.token })).status).toBe(404);
    expect((await site('GET', '/Guide/Nothing/999999999', { token: reader.token })).status).toBe(404);
    // Anonymous on a private site: refused before the page (the login redirect is the session's).
    const anonymous = await site('GET', pathOf(guide.url));
    expect([302, 401]).toContain(anonymous.status);
    expect(anonymous.text).not.toContain(guide.stepTitles[1]);
  });

  it('answers `.pdf` with a PDF: every step title, non-Latin text, the release, page numbers', async () => {
    const response = await fetch(`${guide.url}.pdf`, { headers: { authorization: `api ${reader.token}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/pdf');
    const bytes = new Uint8Array(await response.arrayBuffer());
    // Read before pdf.js takes the buffer over.
    const raw = Buffer.from(bytes).toString('latin1');
    expect(raw.slice(0, 5)).toBe('%PDF-');
    // Lines may wrap anywhere: compared without white space.
    const text = (await pdfText(bytes)).replace(/\s+/g, '');
    const squeezed = (value: string) => value.replace(/\s+/g, '');
    for (const title of guide.stepTitles) expect(text).toContain(squeezed(title));
    expect(text).toContain(squeezed('βγάλτε το ακροφύσιο'));
    expect(text).toMatch(/Release1\.0of\d{4}-\d\d-\d\d/);
    expect(text).toMatch(/Page1of\d/);
    // Images are embedded (the cover and the step pictures).
    expect(raw.match(/\/Subtype \/Image/g)?.length).toBeGreaterThanOrEqual(3);
    // The font is embedded as a subset (its name gets a six-letter tag), not a standard font.
    expect(raw).toMatch(/\/FontName \/[A-Z]{6}\+DejaVuSans/);
    // Anonymous on a private site: to the login page and back to the PDF afterwards.
    const refused = await fetch(`${guide.url}.pdf`, { redirect: 'manual' });
    expect(refused.status).toBe(302);
    expect(refused.headers.get('location')).toMatch(/\/login\?returnTo=%2FGuide%2F.+\.pdf$/);
  });
});

describe('step videos and documents', () => {
  it('shows a video with its poster and a document link; the PDF names the video', async () => {
    const videoid = await uploadReadyFile(
      author.token,
      'clip.mp4',
      minimalMp4({ width: 640, height: 360, durationMs: 2000 }),
    );
    const documentid = await uploadReadyFile(author.token, 'manual.pdf', Buffer.from('%PDF-1.4\n%%EOF\n'));
    const created = await createGuide(author.token, {
      title: `With a video ${uniqueSuffix()}`,
      documents: [documentid],
    });
    await addStep(author.token, created.guideid, { title: 'Watch this', media: { type: 'object', data: videoid } });
    const page = await site('GET', pathOf(created.url), { token: author.token });
    expect(page.status).toBe(200);
    expect(page.text).toMatch(
      /<video controls preload="none" aria-label="Step 1: Watch this, video" poster="[^"]+\/igi\/[\w-]+\.medium">/,
    );
    expect(page.text).toMatch(/<source src="[^"]+" type="video\/mp4">/);
    expect(page.text).toMatch(/<a href="[^"]+\/Document\/[\w-]+\/manual\.pdf">manual\.pdf<\/a>/);
    const pdf = await fetch(`${created.url}.pdf`, { headers: { authorization: `api ${author.token}` } });
    expect((await pdfText(new Uint8Array(await pdf.arrayBuffer()))).replace(/\s+/g, '')).toContain('Video:clip.mp4');
  });
});

describe('wiki, category and course pages', () => {
  it('shows a wiki page with its rendered contents, and stored markup as text', async () => {
    const wiki = await createWiki({
      title: `Battery care ${uniqueSuffix()}`,
      contents: `Keep it '''cool'''.\n\n${XSS}`,
    });
    const page = await site('GET', `/Wiki/${encodeURIComponent(wiki.title.replace(/ /g, '_'))}`, {
      token: reader.token,
    });
    expect(page.status).toBe(200);
    expect(page.text).toContain(`<h1>${wiki.title}</h1>`);
    expect(page.text).toContain('<strong>cool</strong>');
    expect(page.text).not.toContain('<script>window.__xss');
    expect((await site('GET', '/Wiki/No_such_page_here', { token: reader.token })).status).toBe(404);
  });

  it('shows a category page with the guides the reader may read', async () => {
    const draft = await createGuide(author.token, { title: `Hidden in category ${uniqueSuffix()}` });
    const page = await site('GET', `/c/${encodeURIComponent(guide.category.replace(/ /g, '_'))}`, {
      token: reader.token,
    });
    expect(page.status).toBe(200);
    expect(page.text).toContain(`href="${escapeHtml(guide.url)}"`);
    expect(page.text).not.toContain(draft.title);
  });

  it("shows a course's stages with the reader's own status; its edit url and wiki url lead there", async () => {
    const course = await createCourse({ stages: [{ doctype: 'guide', docid: guide.guideid }] });
    const trainee = await createUser();
    await assign({ wikiid: course.wikiid, userid: trainee.userid });
    const page = await site('GET', `/Courses/View/${course.wikiid}`, { token: trainee.token });
    expect(page.status).toBe(200);
    expect(page.text).toContain(`<h1>${course.title}</h1>`);
    expect(page.text).toMatch(
      /<li><a href="[^"]*\/Guide\/[^"]+">Replace the nozzle[^<]*<\/a> — <span class="status">Not started<\/span><\/li>/,
    );
    const other = await site('GET', `/Courses/View/${course.wikiid}`, { token: reader.token });
    expect(other.text).toContain('This course is not assigned to you.');
    const edit = await site('GET', `/Courses/Edit/${course.wikiid}`, { token: trainee.token });
    expect(edit.status).toBe(302);
    expect(edit.headers.get('location')).toBe(`/Courses/View/${course.wikiid}`);
    const byTitle = await site('GET', `/Course/${encodeURIComponent(course.title.replace(/ /g, '_'))}`, {
      token: trainee.token,
    });
    expect(byTitle.status).toBe(302);
    // A disabled course is shown only to Authors and its trainees, as GET /courses/{wikiid}.
    const admin = await loginAdmin();
    await api('PATCH', `/courses/${course.wikiid}`, {
      token: admin,
      query: { revisionid: course.revisionid },
      body: { enabled: false },
    });
    const closed = await site('GET', `/Courses/View/${course.wikiid}`, { token: reader.token });
    expect(closed.status).toBe(404);
    expect(closed.text).not.toContain(course.title);
  });
});

describe('the home page', () => {
  it('lists the top categories; the header of every page links there', async () => {
    const page = await site('GET', '/', { token: reader.token });
    expect(page.status).toBe(200);
    expect(page.text).toContain(`>${guide.category}</a></li>`);
    expect(page.text).toContain('<a class="site-name" href="/">');
  });
});

describe("users' and teams' urls", () => {
  it('answer a plain page naming them; a private team only to those who may see it', async () => {
    const profile = (await api('GET', `/users/${author.userid}`, { token: reader.token })).body;
    const userPage = await site('GET', pathOf(profile.url), { token: reader.token });
    expect(userPage.status).toBe(200);
    expect(userPage.text).toContain(`<h1>${profile.username}</h1>`);
    const team = await createTeam({ name: `Night shift ${uniqueSuffix()}`, privacy: 'private' });
    const teamPath = `/Team/Contributions/${team.teamid}/Night_shift`;
    const admin = await loginAdmin();
    expect((await site('GET', teamPath, { token: admin })).text).toContain(`<h1>${team.name}</h1>`);
    const hidden = await site('GET', teamPath, { token: reader.token });
    expect(hidden.status).toBe(404);
    expect(hidden.text).not.toContain(team.name);
  });
});
