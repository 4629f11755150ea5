/**
 * The browser as a workplace in Chromium (issue 42 items 2-5): a technician finds a guide with
 * the header's search box and reads it on a 390 px phone without scrolling sideways; a learner
 * logs in, opens their home, opens an acknowledgement (what changed, the sign form), signs it and
 * sees their levels. axe-core finds no violation on these pages, nothing scrolls sideways and their
 * controls are 44 px touch targets; screenshots of each are saved under .tmp/screenshots/.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, api, createUser, loginAdmin, site, siteUrl, uniqueSuffix, type TestUser } from '../support/api.ts';
import { AXE_SCRIPT, launchChromium, SCREENSHOTS } from '../support/chromium.ts';
import { assignedTrainee, releaseGuide } from '../support/courses.ts';
import { richGuide, type RichGuide } from '../support/pages.ts';

// Functions run in the page: `globalThis.document` there; this project compiles without DOM types.
type PageGlobal = any;

let browser: Browser;
let close: () => Promise<void>;
let reader: TestUser;
let guide: RichGuide;

beforeAll(async () => {
  ({ browser, close } = await launchChromium());
  await mkdir(SCREENSHOTS, { recursive: true });
  const author = await createUser({ privileges: ['Author'] });
  reader = await createUser();
  guide = await richGuide(author.token);
  // The guide is in the index once the search page finds it (the index trails writes by a poll).
  const started = Date.now();
  while (Date.now() - started < 20_000) {
    const found = await site('GET', `/Search?query=${encodeURIComponent(guide.title)}`, { token: reader.token });
    if (found.text.includes(new URL(guide.url).pathname)) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}, 120_000);
afterAll(async () => close?.());

/** Every axe-core violation (any impact), as `rule: targets`. */
async function violations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: AXE_SCRIPT });
  const found: Array<{ id: string; nodes: Array<{ target: string[] }> }> = await page.evaluate(
    async () => (await (globalThis as PageGlobal).axe.run((globalThis as PageGlobal).document)).violations,
  );
  return found.map(
    (violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
  );
}

/** Controls and list links of the page's main part lower than 44 px (touch targets), named. */
async function smallTargets(page: Page): Promise<string[]> {
  return page.$$eval(
    'main button, main input:not([type=hidden]), main select, main li > a, main .review-link, main .breadcrumbs a',
    (nodes: PageGlobal[]) =>
      nodes
        .map((node) => ({ node, box: node.getBoundingClientRect() }))
        .filter(({ box }) => box.height < 44)
        .map(({ node, box }) => `${node.tagName} ${node.id || node.textContent} ${box.height}`),
  );
}

/** Nothing wider than the screen: the page never scrolls sideways. */
async function widths(page: Page): Promise<{ scroll: number; client: number }> {
  return page.evaluate(() => ({
    scroll: (globalThis as PageGlobal).document.documentElement.scrollWidth,
    client: (globalThis as PageGlobal).document.documentElement.clientWidth,
  }));
}

describe('a technician on a phone', () => {
  it('finds the guide with the search box and reads it at 390 px without scrolling sideways', async () => {
    const page = await browser.newPage();
    await page.setViewport({ width: 390, height: 844, deviceScaleFactor: 1, isMobile: true, hasTouch: true });
    await page.setExtraHTTPHeaders({ authorization: `api ${reader.token}` });
    // axe-core is injected: the pages' CSP (which allows only their own script) is bypassed for it.
    await page.setBypassCSP(true);
    await page.goto(`${siteUrl()}/`, { waitUntil: 'load' });
    await page.type('#site-search-query', guide.title);
    await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.keyboard.press('Enter')]);
    expect(new URL(page.url()).pathname).toBe('/Search');
    expect(await page.$eval('.results', (list: PageGlobal) => list.textContent)).toContain(guide.title);
    expect(await page.$$eval('.results mark', (marks: PageGlobal[]) => marks.length)).toBeGreaterThan(0);
    expect(await widths(page).then((w) => w.scroll <= w.client)).toBe(true);
    expect(await violations(page)).toEqual([]);
    await page.screenshot({ path: join(SCREENSHOTS, 'search-390.png'), fullPage: true });

    const link = `.results a[href="${new URL(guide.url).pathname}"]`;
    await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click(link)]);
    expect(await page.$eval('h1', (heading: PageGlobal) => heading.textContent)).toBe(guide.title);
    // Every image loaded (lazy ones asked for now), then measured: none wider than its column.
    await page.evaluate(() => {
      for (const image of (globalThis as PageGlobal).document.images) image.loading = 'eager';
    });
    await page.waitForFunction(
      () => [...(globalThis as PageGlobal).document.images].every((image: PageGlobal) => image.complete),
      {
        timeout: 15_000,
      },
    );
    const measured = await widths(page);
    expect(measured.scroll).toBeLessThanOrEqual(measured.client);
    const widest = await page.evaluate(() =>
      Math.max(
        ...[...(globalThis as PageGlobal).document.querySelectorAll('main img')].map(
          (image: PageGlobal) => image.getBoundingClientRect().right,
        ),
      ),
    );
    expect(widest).toBeLessThanOrEqual(390);
    // The caution line is a callout: its icon, its word, its colour.
    const callout = await page.$eval('.callout-caution', (node: PageGlobal) => ({
      text: node.textContent,
      icon: node.querySelector('svg') !== null,
      border: (globalThis as PageGlobal).getComputedStyle(node).borderLeftColor,
    }));
    expect(callout.text).toContain('Caution: Wait until the nozzle is cool.');
    expect(callout.icon).toBe(true);
    expect(callout.border).toBe('rgb(179, 89, 0)');
    // Touch targets: the header's links and buttons are 44 px high at least.
    const targets = await page.$$eval(
      '.site-header a, .site-header button, .site-header input',
      (nodes: PageGlobal[]) => nodes.map((node) => Math.round(node.getBoundingClientRect().height)),
    );
    for (const height of targets) expect(height).toBeGreaterThanOrEqual(44);
    expect(await violations(page)).toEqual([]);
    await page.screenshot({ path: join(SCREENSHOTS, 'guide-390.png'), fullPage: true });

    // On paper, a step's images sit beside its lines.
    await page.emulateMediaType('print');
    expect(
      await page.$eval('.step', (node: PageGlobal) => (globalThis as PageGlobal).getComputedStyle(node).display),
    ).toBe('grid');
    await page.close();
  });
});

describe('a learner at home', () => {
  it('logs in, opens their home and an acknowledgement, signs it and sees their levels', async () => {
    const admin = await loginAdmin();
    const { guide: stage, course, trainee } = await assignedTrainee({}, { due_within: 14 * 86400 });
    const release = await releaseGuide(stage.guideid, 'major');
    const skill = await api('POST', '/qualifications/skills', {
      token: admin,
      body: { name: `Nozzle work ${uniqueSuffix()}`, guideids: [stage.guideid], recertification_days: 365 },
    });
    expect(skill.status, skill.text).toBe(201);
    const level = await api('PUT', `/qualifications/skills/${skill.body.skillid}/levels/${trainee.userid}`, {
      token: admin,
      body: { level: 2, password: ADMIN.password },
    });
    expect(level.status, level.text).toBe(200);

    const page = await browser.newPage();
    await page.setViewport({ width: 390, height: 844, deviceScaleFactor: 1, isMobile: true, hasTouch: true });
    await page.setBypassCSP(true);
    await page.goto(`${siteUrl()}/Manage`, { waitUntil: 'load' });
    // Anonymous: the login page, which brings the learner back home.
    expect(new URL(page.url()).pathname).toBe('/login');
    expect(await violations(page)).toEqual([]);
    await page.screenshot({ path: join(SCREENSHOTS, 'login-390.png'), fullPage: true });
    await page.type('#email', trainee.email);
    await page.type('#password', trainee.password);
    await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('form[action="/login"] button')]);
    expect(new URL(page.url()).pathname).toBe('/Manage');
    const courses = await page.$eval('main', (node: PageGlobal) => node.textContent);
    expect(courses).toContain(course.title);
    expect(courses).toContain('Acknowledgements to sign');
    expect(await violations(page)).toEqual([]);
    expect(await widths(page).then((w) => w.scroll <= w.client)).toBe(true);
    expect(await smallTargets(page)).toEqual([]);
    await page.screenshot({ path: join(SCREENSHOTS, 'home-390.png'), fullPage: true });

    // The acknowledgement opens its page: what changed, and the sign form, signed there.
    await Promise.all([
      page.waitForNavigation({ waitUntil: 'load' }),
      page.click(`a[href="/Manage/acknowledgements/${release.releaseid}"]`),
    ]);
    expect(await page.$eval('h1', (node: PageGlobal) => node.textContent)).toBe(`Acknowledge: ${stage.title}`);
    expect(await page.$eval('#h-what-changed', (node: PageGlobal) => node.textContent)).toBe('What changed');
    expect(await violations(page)).toEqual([]);
    expect(await widths(page).then((w) => w.scroll <= w.client)).toBe(true);
    expect(await smallTargets(page)).toEqual([]);
    await page.screenshot({ path: join(SCREENSHOTS, 'acknowledgement-390.png'), fullPage: true });
    await page.type(`#password-${release.releaseid}`, trainee.password);
    await Promise.all([
      page.waitForNavigation({ waitUntil: 'load' }),
      page.click(`form[action="/Manage/acknowledgements/${release.releaseid}/sign"] button`),
    ]);
    expect(page.url()).toContain(`/Manage?signed=${release.releaseid}`);
    const main = await page.$eval('main', (node: PageGlobal) => node.textContent);
    expect(main).toContain('Signed. Thank you.');
    expect(main).toContain(skill.body.name);
    expect(main).toContain('2 · Can do under supervision');
    expect(await page.$(`#password-${release.releaseid}`)).toBeNull();
    expect(await violations(page)).toEqual([]);
    await page.screenshot({ path: join(SCREENSHOTS, 'home-signed-390.png'), fullPage: true });
    await page.close();
  });
});
