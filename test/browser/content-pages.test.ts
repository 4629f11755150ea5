/**
 * The site's pages in a real browser (issue 27): each kind of page renders with its images
 * loaded, axe-core finds no serious or critical violation, stored markup shows as text and runs
 * nothing, the print stylesheet keeps steps whole and prints link URLs, and a reader without
 * access sees the 404 page. One browser for the file; the reader's API token goes in a header.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'puppeteer-core';
import { createUser, siteUrl, uniqueSuffix, type TestUser } from '../support/api.ts';
import { AXE_SCRIPT, launchChromium } from '../support/chromium.ts';
import { assign, createCourse } from '../support/courses.ts';
import { richGuide, XSS, type RichGuide } from '../support/pages.ts';
import { createWiki } from '../support/wikis.ts';
import { createGuide } from '../api/guide-fixtures.ts';

// Functions run in the page: `globalThis.document` there; this project compiles without DOM types.
type PageGlobal = any;

let browser: Browser;
let close: () => Promise<void>;
let author: TestUser;
let reader: TestUser;
let guide: RichGuide;

beforeAll(async () => {
  ({ browser, close } = await launchChromium());
  [author, reader] = await Promise.all([createUser({ privileges: ['Author'] }), createUser()]);
  guide = await richGuide(author.token, { text: XSS });
}, 90_000);
afterAll(async () => close?.());

async function open(path: string, token: string): Promise<{ page: Page; dialogs: string[] }> {
  const page = await browser.newPage();
  const dialogs: string[] = [];
  page.on('dialog', async (dialog) => {
    dialogs.push(dialog.message());
    await dialog.dismiss();
  });
  await page.setExtraHTTPHeaders({ authorization: `api ${token}` });
  // The pages' CSP runs no script at all: bypassed here so that axe-core can be injected, and so
  // that the escaping alone is what keeps the payload from running.
  await page.setBypassCSP(true);
  const response = await page.goto(siteUrl() + path, { waitUntil: 'load' });
  expect(response?.status()).toBe(200);
  return { page, dialogs };
}

/** Every image loaded (lazy ones asked for now): their natural widths. */
async function imageWidths(page: Page): Promise<number[]> {
  await page.evaluate(() => {
    for (const image of (globalThis as PageGlobal).document.images) image.loading = 'eager';
  });
  await page.waitForFunction(
    () => [...(globalThis as PageGlobal).document.images].every((image: PageGlobal) => image.complete),
    { timeout: 15_000 },
  );
  return page.evaluate(() =>
    [...(globalThis as PageGlobal).document.images].map((image: PageGlobal) => image.naturalWidth),
  );
}

/** axe-core's serious and critical violations, as `rule: targets`. */
async function seriousViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: AXE_SCRIPT });
  const violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }> = await page.evaluate(
    async () => (await (globalThis as PageGlobal).axe.run((globalThis as PageGlobal).document)).violations,
  );
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
}

async function checkPage(path: string, token: string, images: number) {
  const { page, dialogs } = await open(path, token);
  const widths = await imageWidths(page);
  expect(widths.length).toBeGreaterThanOrEqual(images);
  for (const width of widths) expect(width).toBeGreaterThan(0);
  expect(await seriousViolations(page)).toEqual([]);
  // The payload stored in the fields ran nothing.
  expect(await page.evaluate(() => (globalThis as PageGlobal).__xss)).toBeUndefined();
  expect(dialogs).toEqual([]);
  return page;
}

describe('each kind of page in Chromium', () => {
  it('a guide: images loaded, accessible, the payload shown as text, printable', async () => {
    const page = await checkPage(new URL(guide.url).pathname, reader.token, 3);
    const heading = await page.evaluate(() => (globalThis as PageGlobal).document.querySelector('h1').textContent);
    expect(heading).toContain('<script>window.__xss=1</script>');
    const stepHeadings = await page.evaluate(() =>
      [...(globalThis as PageGlobal).document.querySelectorAll('.step h2')].map((node: PageGlobal) => node.textContent),
    );
    expect(stepHeadings).toEqual(guide.stepTitles.map((title, index) => `Step ${index + 1}: ${title}`));

    await page.emulateMediaType('print');
    const printed = await page.evaluate(() => {
      const doc = (globalThis as PageGlobal).document;
      const view = (globalThis as PageGlobal).window;
      const link = doc.querySelector('a[href^="https://example.com"]');
      return {
        step: view.getComputedStyle(doc.querySelector('.step')).breakInside,
        after: view.getComputedStyle(link, '::after').content,
      };
    });
    expect(printed.step).toBe('avoid');
    expect(printed.after).toContain('https://example.com/nozzle');
    await page.close();
  });

  it('a category page and a wiki page', async () => {
    const category = await checkPage(`/c/${encodeURIComponent(guide.category.replace(/ /g, '_'))}`, reader.token, 1);
    await category.close();
    const wiki = await createWiki({
      title: `Battery care ${uniqueSuffix()}`,
      contents: `Keep it '''cool'''.\n\n${XSS}`,
    });
    const page = await checkPage(`/Wiki/${encodeURIComponent(wiki.title.replace(/ /g, '_'))}`, reader.token, 0);
    expect(await page.evaluate(() => (globalThis as PageGlobal).document.querySelector('main').textContent)).toContain(
      '<script>window.__xss=1</script>',
    );
    await page.close();
  });

  it("a course with the reader's status, and a user's page", async () => {
    const course = await createCourse({
      contents: `What it teaches.${XSS}`,
      stages: [{ doctype: 'guide', docid: guide.guideid }],
    });
    await assign({ wikiid: course.wikiid, userid: reader.userid });
    const page = await checkPage(`/Courses/View/${course.wikiid}`, reader.token, 0);
    expect(await page.evaluate(() => (globalThis as PageGlobal).document.querySelector('.status').textContent)).toBe(
      'Not started',
    );
    await page.close();
    (await checkPage(`/User/${author.userid}/x`, reader.token, 0)).close();
  });

  it("under the pages' own CSP the stylesheet applies and nothing is refused", async () => {
    const page = await browser.newPage();
    const refused: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy|Refused/i.test(message.text())) refused.push(message.text());
    });
    await page.setExtraHTTPHeaders({ authorization: `api ${reader.token}` });
    await page.goto(siteUrl() + new URL(guide.url).pathname, { waitUntil: 'load' });
    const widths = await imageWidths(page);
    for (const width of widths) expect(width).toBeGreaterThan(0);
    const stepBorder = await page.evaluate(
      () =>
        (globalThis as PageGlobal).window.getComputedStyle((globalThis as PageGlobal).document.querySelector('.step'))
          .borderTopStyle,
    );
    expect(stepBorder).toBe('solid');
    expect(refused).toEqual([]);
    await page.close();
  });

  it('a reader without access gets the 404 page, never the content', async () => {
    const draft = await createGuide(author.token, { title: `Secret draft ${uniqueSuffix()}` });
    const page = await browser.newPage();
    await page.setBypassCSP(true);
    await page.setExtraHTTPHeaders({ authorization: `api ${reader.token}` });
    const response = await page.goto(siteUrl() + new URL(draft.url).pathname, { waitUntil: 'load' });
    expect(response?.status()).toBe(404);
    const text: string = await page.evaluate(() => (globalThis as PageGlobal).document.body.innerText);
    expect(text).toContain('Page not found');
    expect(text).not.toContain('Secret draft');
    expect(await seriousViolations(page)).toEqual([]);
    await page.close();
  });
});
