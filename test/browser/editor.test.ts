/**
 * The guide editor in Chromium (issue 42 item 1, docs/pages.md "The editor"), with the pages'
 * CSP in force: a trainer (Author) signs in, opens "New guide" on a category page, writes a guide
 * with three steps and two images uploaded straight to storage, moves a step with the keyboard,
 * saves and publishes; a draft survives a reload; a save over someone else's newer revision is
 * a choice (view both, keep mine); a technician (User) sees no editor controls and gets the 404
 * page for the editor. Screenshots go to .tmp/screenshots/; axe-core finds no violation on the editor.
 */
import { mkdirSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import sharp from 'sharp';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { api, createUser, siteUrl, uniqueSuffix, type TestUser } from '../support/api.ts';
import { AXE_SCRIPT, launchChromium, SCREENSHOTS } from '../support/chromium.ts';
import { createGuide } from '../support/compliance.ts';
import { createWiki } from '../support/wikis.ts';

// Functions run in the page: `globalThis.document` there; this project compiles without DOM types.
type PageGlobal = any;

let browser: Browser;
let close: () => Promise<void>;
let trainer: TestUser;
let technician: TestUser;
let category: string;
let images: string[];
let manual: string;
let prerequisite: { guideid: number; title: string };
let guideid: number;
let editorPage: Page;

beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  category = `Printers ${uniqueSuffix()}`;
  const folder = await mkdtemp(join(tmpdir(), 'stepwise-editor-'));
  images = await Promise.all(
    ['#cc6633', '#3366cc'].map(async (colour, index) => {
      const file = join(folder, `photo-${index + 1}.png`);
      await writeFile(
        file,
        await sharp({ create: { width: 320, height: 240, channels: 3, background: colour } })
          .png()
          .toBuffer(),
      );
      return file;
    }),
  );
  manual = join(folder, 'nozzle-manual.txt');
  await writeFile(manual, 'Nozzle torque: 2 Nm.\n');
  [{ browser, close }, trainer, technician] = await Promise.all([
    launchChromium(),
    createUser({ privileges: ['Author'] }),
    createUser(),
    createWiki({ namespace: 'CATEGORY', title: category, contents: 'Printer guides.' }),
  ]);
  prerequisite = await createGuide(trainer.token, category, { title: 'Cool the printer down' });
}, 90_000);
afterAll(async () => close?.());

async function signIn(page: Page, user: TestUser, returnTo: string): Promise<void> {
  await page.goto(`${siteUrl()}/login?returnTo=${encodeURIComponent(returnTo)}`);
  await page.type('#email', user.email);
  await page.type('#password', user.password);
  await Promise.all([page.waitForNavigation(), page.click('main button[type=submit]')]);
}

const status = (page: Page) => page.$eval('.editor-status', (element) => element.textContent ?? '');

async function saved(page: Page, expected: string | RegExp): Promise<void> {
  await page.waitForFunction(
    (text: string) => (globalThis as PageGlobal).document.querySelector('.editor-status')?.textContent?.includes(text),
    { timeout: 20_000 },
    typeof expected === 'string' ? expected : '',
  );
}

it('a trainer writes a guide with three steps and two uploaded images, reorders by keyboard, publishes', async () => {
  const page = await (await browser.createBrowserContext()).newPage();
  editorPage = page;
  // Every request of the editor answered (the browser's own favicon request aside).
  const errors: string[] = [];
  page.on('response', (response) => {
    if (response.status() >= 400 && !response.url().endsWith('/favicon.ico'))
      errors.push(`${response.status()} ${response.url()}`);
  });
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource'))
      errors.push(message.text());
  });
  await signIn(page, trainer, `/c/${encodeURIComponent(category)}`);
  await Promise.all([page.waitForNavigation(), page.click('a.edit-link[href^="/Edit/Guide/new"]')]);
  expect(new URL(page.url()).pathname).toBe('/Edit/Guide/new');
  await page.waitForSelector('#guide-editor form');

  await page.type('input[name=title]', 'Replace the nozzle');
  await page.type('input[name=summary]', 'Swap a worn nozzle');
  await page.type('textarea[name=introduction]', "You need a '''hex key'''.");
  await page.type('textarea[name=conclusion]', 'Run a test print.');
  await page.type('input[name=time-min]', '10');
  await page.type('input[name=time-max]', '20');
  await page.select('select[name=difficulty]', 'Easy');
  for (const [index, title] of ['Open the cover', 'Unscrew the nozzle', 'Cool down'].entries()) {
    await page.click('.editor-form > button');
    await page.type(`#step-title-${index}`, title);
    await page.type(`#line-${index}-0`, `${title}: first line`);
  }
  // A second line, caution and indented, on step 2.
  await page.click('.editor-step:nth-child(2) > button');
  await page.type('#line-1-1', 'The nozzle may be hot.');
  await page.select('select[aria-label="Step 2, line 2: bullet"]', 'icon_caution');
  await page.select('select[aria-label="Step 2, line 2: level"]', '1');

  // Two images straight to storage (presigned POST), one each on steps 1 and 2.
  for (const [index, file] of images.entries()) {
    const input = await page.$(`#step-images-${index}`);
    await input!.uploadFile(file);
    await page.waitForFunction(
      (step: number) =>
        (globalThis as PageGlobal).document.querySelectorAll(`.editor-step:nth-child(${step + 1}) .editor-thumbs img`)
          .length === 1,
      { timeout: 30_000 },
      index,
    );
  }
  // The cover (uploaded), a prerequisite by its id, a tool, a part and an uploaded document: by keyboard
  // where a person types (Enter in the prerequisite box finds and adds, it does not save).
  await (await page.$('#cover-image'))!.uploadFile(images[0]!);
  await page.waitForSelector('#editor-cover img', { timeout: 30_000 });
  await page.type('#prerequisite-query', String(prerequisite.guideid));
  await page.keyboard.press('Enter');
  await page.waitForSelector(`#editor-prerequisites button[aria-label="Remove prerequisite ${prerequisite.title}"]`);
  await page.click('#editor-tools > button');
  await page.type('#tool-0-text', 'Hex key 2 mm');
  await page.click('#editor-parts > button');
  await page.type('#part-0-text', 'Nozzle 0.4 mm');
  await page.type('#part-0-quantity', '2');
  await page.click('#part-0-optional');
  await (await page.$('#guide-documents'))!.uploadFile(manual);
  // The document's entry (its Remove button), not the upload's progress line, which names the file too.
  await page.waitForSelector('#editor-documents button[aria-label="Remove document nozzle-manual.txt"]', {
    timeout: 30_000,
  });
  await page.screenshot({ path: join(SCREENSHOTS, 'editor-new-guide.png'), fullPage: true });

  await page.click('#guide-editor button[type=submit]');
  await saved(page, 'Saved.');
  guideid = Number(new URL(page.url()).pathname.split('/').pop());
  expect(guideid).toBeGreaterThan(0);

  // Alt+ArrowUp on step 3 moves it to position 2, announced.
  await page.focus('#step-title-2');
  await page.keyboard.down('Alt');
  await page.keyboard.press('ArrowUp');
  await page.keyboard.up('Alt');
  expect(await page.$eval('[aria-live=assertive]', (element) => element.textContent)).toBe(
    'Step 3 moved to position 2 of 3.',
  );
  expect(await page.evaluate(() => (globalThis as PageGlobal).document.activeElement.id)).toBe('step-title-1');
  await page.click('button ::-p-text(Publish)');
  await saved(page, 'published');

  const guide = (await api('GET', `/guides/${guideid}`, { token: trainer.token })).body;
  expect(guide).toMatchObject({
    title: 'Replace the nozzle',
    category,
    public: true,
    difficulty: 'Easy',
    time_required_min: 600,
    time_required_max: 1200,
    introduction_raw: "You need a '''hex key'''.",
    summary: 'Swap a worn nozzle',
    conclusion_raw: 'Run a test print.',
  });
  expect(guide.steps.map((step: any) => step.title)).toEqual(['Open the cover', 'Cool down', 'Unscrew the nozzle']);
  expect(guide.steps.map((step: any) => step.media?.data?.length ?? 0)).toEqual([1, 0, 1]);
  expect(guide.image?.id).toBeGreaterThan(0);
  expect(guide.prerequisites.map((item: any) => item.guideid)).toEqual([prerequisite.guideid]);
  expect(guide.tools).toMatchObject([{ text: 'Hex key 2 mm', isoptional: false }]);
  expect(guide.parts).toMatchObject([{ text: 'Nozzle 0.4 mm', quantity: 2, isoptional: true }]);
  expect(guide.documents).toMatchObject([{ filename: 'nozzle-manual.txt' }]);
  expect(guide.steps[2].lines).toMatchObject([
    { text_raw: 'Unscrew the nozzle: first line', bullet: 'black', level: 0 },
    { text_raw: 'The nozzle may be hot.', bullet: 'icon_caution', level: 1 },
  ]);
  expect(errors).toEqual([]);
  await page.screenshot({ path: join(SCREENSHOTS, 'editor-published.png'), fullPage: true });
}, 90_000);

it('keeps a draft over a reload, and a save over a newer revision is a choice', async () => {
  const page = editorPage;
  await page.$eval('input[name=title]', (input: PageGlobal) => {
    input.value = '';
  });
  await page.type('input[name=title]', 'Replace the nozzle (mine)');

  // Someone else saves first, while the draft is only in this browser.
  const current = (await api('GET', `/guides/${guideid}`, { token: trainer.token })).body;
  const theirs = await api('PATCH', `/guides/${guideid}`, {
    token: trainer.token,
    query: { revisionid: String(current.revisionid) },
    body: { title: 'Replace the nozzle (theirs)' },
  });
  expect(theirs.status).toBe(200);

  // The reload brings the draft back (it names the revision it began from) ...
  await page.reload();
  await page.waitForSelector('#guide-editor form');
  expect(await page.$eval('input[name=title]', (input: PageGlobal) => input.value)).toBe('Replace the nozzle (mine)');
  expect(await status(page)).toContain('draft');

  // ... and saving it over their newer revision is a choice, not an overwrite.
  await page.click('#guide-editor button[type=submit]');
  await page.waitForSelector('dialog[open] ::-p-text(Someone else saved this guide first)');
  await page.click('dialog[open] button ::-p-text(View both)');
  const versions = await page.$$eval('dialog[open] .editor-version', (sections) =>
    sections.map((section) => section.textContent ?? ''),
  );
  expect(versions[0]).toContain('(theirs)');
  expect(versions[1]).toContain('(mine)');
  await page.screenshot({ path: join(SCREENSHOTS, 'editor-conflict.png'), fullPage: true });
  await page.click('dialog[open] button ::-p-text(Keep mine)');
  await saved(page, 'Saved.');
  const after = (await api('GET', `/guides/${guideid}`, { token: trainer.token })).body;
  expect(after.title).toBe('Replace the nozzle (mine)');
  expect(after.steps).toHaveLength(3);
}, 60_000);

it('a category page is edited in wiki syntax with a live preview from the server', async () => {
  const page = editorPage;
  await page.goto(`${siteUrl()}/c/${encodeURIComponent(category)}`);
  await Promise.all([page.waitForNavigation(), page.click('a.edit-link[href^="/Edit/Wiki/CATEGORY/"]')]);
  await page.waitForSelector('#wiki-editor textarea');
  await page.$eval('#wiki-editor textarea', (area: PageGlobal) => {
    area.value = '';
  });
  await page.type('#wiki-editor textarea', "== Safety ==\nWear '''gloves'''.");
  await page.waitForSelector('#wiki-preview strong', { timeout: 10_000 });
  expect(await page.$eval('#wiki-preview', (element) => element.textContent)).toContain('Wear gloves.');
  await page.click('#wiki-editor button[type=submit]');
  await saved(page, 'Saved.');
  const wiki = (await api('GET', `/wikis/CATEGORY/${encodeURIComponent(category)}`, { token: trainer.token })).body;
  expect(wiki.contents_raw).toBe("== Safety ==\nWear '''gloves'''.");
  await page.screenshot({ path: join(SCREENSHOTS, 'editor-wiki.png'), fullPage: true });
}, 30_000);

it('on a 390 px phone the editor scrolls only down, its controls are 44 px targets, axe-core finds nothing', async () => {
  const page = await (await browser.createBrowserContext()).newPage();
  await page.setViewport({ width: 390, height: 844, deviceScaleFactor: 1, isMobile: true, hasTouch: true });
  // Signed in (the client's token comes from the session); the CSP bypassed only so that
  // axe-core can be injected.
  await signIn(page, trainer, `/Edit/Guide/${guideid}`);
  await page.setBypassCSP(true);
  await page.reload();
  await page.waitForSelector('#guide-editor form #editor-parts');
  const layout = await page.evaluate(() => {
    const document = (globalThis as PageGlobal).document;
    const small = [...document.querySelectorAll('#guide-editor button, #guide-editor input, #guide-editor select')]
      .filter((node: PageGlobal) => node.type !== 'checkbox' && node.type !== 'hidden')
      .map((node: PageGlobal) => ({ node, box: node.getBoundingClientRect() }))
      .filter(({ box }: PageGlobal) => box.height < 44 || (box.width < 44 && box.width > 0))
      .map(({ node, box }: PageGlobal) => `${node.tagName} ${node.id || node.textContent} ${box.width}x${box.height}`);
    // A checkbox's target is its label's row.
    const checks = [...document.querySelectorAll('#guide-editor .editor-check')]
      .map((node: PageGlobal) => node.getBoundingClientRect().height)
      .filter((height: number) => height < 44);
    const client = document.documentElement.clientWidth;
    // What sticks out, named (the innermost first), for a failure that says where to look.
    const wide = [...document.querySelectorAll('main *')]
      .filter((node: PageGlobal) => node.getBoundingClientRect().right > client + 0.5)
      .slice(-3)
      .map((node: PageGlobal) => `${node.tagName}.${node.className} ${Math.round(node.getBoundingClientRect().right)}`);
    return { scroll: document.documentElement.scrollWidth, client, small, checks, wide };
  });
  expect(layout.wide).toEqual([]);
  expect(layout.scroll).toBeLessThanOrEqual(layout.client);
  expect(layout.small).toEqual([]);
  expect(layout.checks).toEqual([]);
  await page.addScriptTag({ path: AXE_SCRIPT });
  const violations = await page.evaluate(async () => {
    const result = await (globalThis as PageGlobal).axe.run();
    return result.violations.map((violation: PageGlobal) => `${violation.id}: ${violation.nodes.length}`);
  });
  expect(violations).toEqual([]);
  await page.screenshot({ path: join(SCREENSHOTS, 'editor-390.png'), fullPage: true });
}, 30_000);

it('a technician sees no editor controls and no editor', async () => {
  const page = await (await browser.createBrowserContext()).newPage();
  await page.setExtraHTTPHeaders({ authorization: `api ${technician.token}` });
  const guide = (await api('GET', `/guides/${guideid}`, { token: technician.token })).body;
  await page.goto(guide.url);
  expect(await page.$('h1')).not.toBeNull();
  expect(await page.$('a.edit-link')).toBeNull();
  await page.goto(`${siteUrl()}/c/${encodeURIComponent(category)}`);
  expect(await page.$('a.edit-link')).toBeNull();
  const editor = await page.goto(`${siteUrl()}/Edit/Guide/${guideid}`);
  expect(editor?.status()).toBe(404);
  expect(await page.$('script[src^="/client/"]')).toBeNull();
  await page.screenshot({ path: join(SCREENSHOTS, 'editor-technician-guide.png') });
}, 30_000);
