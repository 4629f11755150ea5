/**
 * Bench section: the pages a person opens first (issue 42), against their goals on the local
 * stack: a guide page, the learner's home (/Manage) and the guide editor paint their first
 * content in ≤ 1 s (the median of several opens in Debian's Chromium, signed in by the session
 * cookie; the first contentful paint is the meaningful one here: the pages are server-rendered,
 * their heading and text come in the first response and no script has to run first), and each
 * page's script is ≤ 100 KB gzipped (inline scripts and the scripts it loads, fetched and gzipped).
 * Runs on its own too: `npx tsx test/bench/page-paint.ts`.
 */
import { gzipSync } from 'node:zlib';
import { chromiumInstalled, launchChromium } from '../support/chromium.ts';
import type { RunningStack } from '../support/local-stack-process.ts';
import { adminToken, apiCaller, median, onStackOfItsOwn, runsAlone } from './alone.ts';

const OPENS = 7;
const call = apiCaller('page');

/** A published guide of five steps with two lines each. */
async function benchGuide(stack: RunningStack, admin: string): Promise<string> {
  const category = `Page bench ${Date.now().toString(36)}`;
  await call(stack, admin, 'POST', '/wikis', { namespace: 'CATEGORY', title: category, contents: 'Bench guides.' });
  const guide = await call(stack, admin, 'POST', '/guides', {
    category,
    type: 'how-to',
    title: 'Replace the pump seal',
    summary: 'A guide of five steps',
    introduction: "You need a '''seal kit'''.",
    public: true,
  });
  for (let n = 1; n <= 5; n++)
    await call(stack, admin, 'POST', `/guides/${guide.guideid}/steps`, {
      orderby: n,
      title: `Step ${n}`,
      lines: [
        { text: `Do part ${n} of the work.`, bullet: 'black', level: 0 },
        { text: 'Wear gloves.', bullet: 'icon_caution', level: 0 },
      ],
    });
  return new URL((await call(stack, admin, 'GET', `/guides/${guide.guideid}`)).url).pathname;
}

/** Bytes of script a page runs, gzipped: its inline scripts and the scripts it loads from the site. */
async function scriptBytes(site: string, token: string, path: string): Promise<number> {
  const headers = { authorization: `api ${token}` };
  const page = await (await fetch(`${site}${path}`, { headers })).text();
  const inline = [...page.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map((match) => match[1]!);
  const loaded = await Promise.all(
    [...page.matchAll(/<script[^>]*\bsrc="([^"]+)"/g)].map(async (match) =>
      (await fetch(new URL(match[1]!, site), { headers })).text(),
    ),
  );
  return [...inline, ...loaded].reduce((sum, source) => sum + gzipSync(source).length, 0);
}

export async function pagePaintBench(stack: RunningStack, adminToken: string): Promise<void> {
  const site = stack.url.replace(/\/api\/2\.0$/, '');
  const guidePath = await benchGuide(stack, adminToken);
  const pages = [
    { name: 'guide page', path: guidePath },
    { name: "learner's home (/Manage)", path: '/Manage' },
    { name: 'guide editor', path: '/Edit/Guide/new' },
  ];
  console.log(
    '\nPages (issue 42): first contentful paint in Chromium (goal ≤ 1,000 ms), script gzipped (goal ≤ 100 KB)',
  );
  const scripts = await Promise.all(pages.map((page) => scriptBytes(site, adminToken, page.path)));
  if (!chromiumInstalled()) {
    for (const [index, page] of pages.entries())
      console.log(`  ${page.name}: script ${(scripts[index]! / 1024).toFixed(1)} KB; paint skipped (no Chromium)`);
    return;
  }
  const { browser, close } = await launchChromium();
  try {
    for (const [index, page] of pages.entries()) {
      const paints: number[] = [];
      for (let n = 0; n < OPENS; n++) {
        const tab = await browser.newPage();
        await tab.setCookie({ name: 'stepwise_session', value: adminToken, url: site });
        // A tab in the background paints nothing: this one is in front.
        await tab.bringToFront();
        await tab.goto(`${site}${page.path}`, { waitUntil: 'load' });
        await tab.waitForFunction(() => performance.getEntriesByName('first-contentful-paint').length > 0, {
          timeout: 10_000,
        });
        const paint = await tab.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]!.startTime);
        paints.push(paint);
        await tab.close();
      }
      console.log(
        `  ${page.name}: first contentful paint median ${median(paints).toFixed(0)} ms over ${OPENS} opens ` +
          `(first ${paints[0]!.toFixed(0)} ms); script ${(scripts[index]! / 1024).toFixed(1)} KB gzipped`,
      );
    }
  } finally {
    await close();
  }
}

if (runsAlone(import.meta)) await onStackOfItsOwn(async (stack) => pagePaintBench(stack, await adminToken(stack)));
