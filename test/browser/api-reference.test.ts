/**
 * The API reference in a real browser (decision 176): /api/2.0/doc renders with the Scalar
 * renderer served by the docs function, under its own CSP, without a request leaving the local
 * stack, and shows an operation's schema and example.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'puppeteer-core';
import { apiUrl } from '../support/api.ts';
import { launchChromium } from '../support/chromium.ts';

let browser: Browser;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ browser, close } = await launchChromium());
});
afterAll(async () => close?.());

it('renders the reference: an operation with its schema and example, no request off the origin', async () => {
  const page = await browser.newPage();
  const origin = new URL(apiUrl()).origin;
  const elsewhere: string[] = [];
  const problems: string[] = [];
  page.on('request', (request) => {
    if (!request.url().startsWith(origin) && !request.url().startsWith('data:')) elsewhere.push(request.url());
  });
  page.on('console', (message) => {
    if (/Content Security Policy|Refused/i.test(message.text())) problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(String(error)));

  await page.goto(`${apiUrl()}/doc#tag/auth/POST/user/token`, { waitUntil: 'load' });
  // The login operation, with its body schema's fields and its examples.
  // (Functions run in the page: `globalThis.document` there; this project compiles without DOM types.)
  const pageText = () => (globalThis as any).document.body.innerText as string;
  await page.waitForFunction(
    () => {
      const shown = (globalThis as any).document.body.innerText as string;
      return shown.includes('Log in') && shown.includes('Dana Fisher');
    },
    { timeout: 20_000 },
  );
  const text = await page.evaluate(pageText);
  expect(text).toContain('/user/token');
  expect(text).toMatch(/email/);
  expect(text).toContain('Public, on every site (also private ones).');
  // The response example the route declares, not one the renderer made up from the schema.
  expect(text).toContain('Dana Fisher');
  // The generated request of an operation that needs a token sends the scheme's `api ` prefix.
  await page.waitForFunction(
    () => ((globalThis as any).document.body.innerText as string).includes('Authorization: api YOUR_TOKEN'),
    { timeout: 20_000 },
  );
  expect(elsewhere).toEqual([]);
  expect(problems).toEqual([]);
});
