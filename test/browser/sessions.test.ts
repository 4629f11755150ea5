/**
 * Sessions in Chromium (docs/sessions.md): a closed page sends an anonymous visitor to login and
 * back; the sign-out button ends the session; a page of another origin cannot use the cookie for
 * an API write or a form without its CSRF token; the reset link's page works end to end with the
 * mail from the outbox. axe-core finds no serious or critical violation on any session page.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { api, createUser, siteUrl, uniqueSuffix } from '../support/api.ts';
import { launchChromium } from '../support/chromium.ts';

let browser: Browser;
let close: () => Promise<void>;
/** Another origin on the same host (so the SameSite=Lax cookie still goes along): the forger. */
let forger: Server;
let forgerPage = '';

beforeAll(async () => {
  ({ browser, close } = await launchChromium());
  forger = createServer((_, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(forgerPage);
  });
  await new Promise<void>((resolve) => forger.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  await close?.();
  forger?.close();
});

const forgerUrl = () => `http://127.0.0.1:${(forger.address() as AddressInfo).port}/`;

async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.type('#email', email);
  await page.type('#password', password);
  await Promise.all([page.waitForNavigation(), page.click('main button[type=submit]')]);
}

async function sessionCookie(page: Page) {
  return (await page.browserContext().cookies()).find((cookie) => cookie.name === 'stepwise_session');
}

/** A page of a fresh browser profile (no cookie of another test). */
async function freshPage(): Promise<Page> {
  return (await browser.createBrowserContext()).newPage();
}

/** Opens a page of the forger's origin whose form submits itself; the answer the browser got. */
async function forgedSubmit(page: Page, form: string): Promise<{ status: number; text: string }> {
  forgerPage = `<!doctype html><title>Win a prize</title><body>${form}<script>document.forms[0].submit()</script>`;
  const [response] = await Promise.all([
    page.waitForNavigation({ waitUntil: 'load' }),
    page.goto(forgerUrl(), { waitUntil: 'domcontentloaded' }),
  ]);
  return { status: response!.status(), text: await response!.text() };
}

it('a closed page sends the visitor to login and back; signing out ends the session', async () => {
  const user = await createUser();
  const page = await freshPage();
  await page.goto(`${siteUrl()}/logout`);
  expect(new URL(page.url()).pathname).toBe('/login');
  expect(new URL(page.url()).searchParams.get('returnTo')).toBe('/logout');
  await signIn(page, user.email, user.password);
  expect(page.url()).toBe(`${siteUrl()}/logout`);
  expect(await page.$eval('h1', (heading) => heading.textContent)).toBe('Sign out');
  expect(await page.$eval('main', (main) => main.textContent)).toContain(`Test User`);
  const cookie = (await sessionCookie(page))!;
  expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', secure: false, path: '/' });
  // Scripts of the page cannot read it.
  expect(await page.evaluate(() => (globalThis as any).document.cookie)).not.toContain('stepwise_session');

  await Promise.all([page.waitForNavigation(), page.click('form[action="/logout"] button')]);
  expect(new URL(page.url()).pathname).toBe('/login');
  expect(await sessionCookie(page)).toBeUndefined();
  expect((await api('GET', '/user', { token: cookie.value })).status).toBe(401);
  await page.browserContext().close();
});

it('another origin cannot use the cookie: API writes answer 401, forms without the token 403', async () => {
  const user = await createUser();
  const page = await freshPage();
  await page.goto(`${siteUrl()}/login`);
  await signIn(page, user.email, user.password);
  const token = (await sessionCookie(page))!.value;

  // The browser does send the cookie from there: GET /api/2.0/user is answered (to the browser only;
  // a browser accepts XML first, so XML).
  const read = await forgedSubmit(page, `<form method="get" action="${siteUrl()}/api/2.0/user"></form>`);
  expect(read.status).toBe(200);
  expect(read.text).toContain(`<userid>${user.userid}</userid>`);

  // But its scripts cannot read the answer (and the token in it): no credentialed CORS.
  forgerPage = '<!doctype html><title>Nothing here</title>';
  await page.goto(forgerUrl());
  const readByScript = await page.evaluate(
    (url) =>
      fetch(url, { credentials: 'include' }).then(
        (response) => response.text(),
        (error: Error) => `refused: ${error.name}`,
      ),
    `${siteUrl()}/api/2.0/user`,
  );
  expect(readByScript).toBe('refused: TypeError');

  // A JSON-looking text/plain form body at an API write: the cookie authenticates no such route.
  const write = await forgedSubmit(
    page,
    `<form method="post" enctype="text/plain" action="${siteUrl()}/api/2.0/user/token/impersonate">` +
      `<input name='{"userid":1,"x":"' value='"}'></form>`,
  );
  expect(write.status).toBe(401);
  // Signing the visitor out from there needs the CSRF token, which that page cannot know.
  const logout = await forgedSubmit(page, `<form method="post" action="${siteUrl()}/logout"></form>`);
  expect(logout.status).toBe(403);
  expect((await api('GET', '/user', { token })).status).toBe(200);
  await page.browserContext().close();
});

it('the reset link: ask on the page, open the mailed link, choose a password, sign in with it', async () => {
  const user = await createUser();
  const page = await freshPage();
  await page.goto(`${siteUrl()}/login`);
  await Promise.all([page.waitForNavigation(), page.click('a[href="/reset_password"]')]);
  await page.type('#email', user.email);
  await Promise.all([page.waitForNavigation(), page.click('main button[type=submit]')]);
  expect(await page.$eval('h1', (heading) => heading.textContent)).toBe('Check your mail');

  const folder = inject('outboxDir');
  const mail = readdirSync(folder)
    .map((file) => JSON.parse(readFileSync(join(folder, file), 'utf8')) as { to: string; text: string })
    .find((message) => message.to === user.email)!;
  const link = /(http\S+\/reset_password\?token=[0-9a-f]{64})/.exec(mail.text)![1]!;
  await page.goto(link);
  const password = `Chosen-${uniqueSuffix()}`;
  await page.type('#password', password);
  await page.type('#confirm', password);
  await Promise.all([page.waitForNavigation(), page.click('main button[type=submit]')]);
  expect(new URL(page.url()).pathname).toBe('/login');
  expect(await page.$eval('[role=status]', (notice) => notice.textContent)).toContain('Your password is set');

  await signIn(page, user.email, password);
  expect(await sessionCookie(page)).toBeDefined();
  expect((await api('POST', '/user/token', { body: { email: user.email, password: user.password } })).status).toBe(401);
  await page.browserContext().close();
});

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's serious and critical violations of the page as it is now, as `rule: targets`. */
async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const result = await (globalThis as any).axe.run();
    return result.violations.map((violation: any) => ({
      id: violation.id,
      impact: violation.impact,
      targets: violation.nodes.map((node: any) => node.target.join(' ')),
    }));
  });
  return violations
    .filter((violation: { impact: string }) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation: { id: string; targets: string[] }) => `${violation.id}: ${violation.targets.join(', ')}`);
}

it('every session page passes axe-core: no serious or critical violation', async () => {
  const user = await createUser();
  const page = await freshPage();
  const check = async (what: string) => expect(await seriousViolations(page), what).toEqual([]);
  await page.goto(`${siteUrl()}/login?returnTo=/logout`);
  await check('login');
  await page.type('#email', user.email);
  await page.type('#password', 'not-the-password');
  await Promise.all([page.waitForNavigation(), page.click('main button[type=submit]')]);
  expect(await page.$eval('#problem', (problem) => problem.textContent)).toBe('Invalid email or password.');
  await check('login with its problem');
  await page.goto(`${siteUrl()}/reset_password`);
  await check('ask for a link');
  await page.goto(`${siteUrl()}/reset_password?token=${'0'.repeat(64)}`);
  await check('choose a password');
  await page.type('#password', 'short');
  await page.type('#confirm', 'short');
  // The browser's own check (minlength) would stop the form: send it as a client without one would.
  await page.$eval('main form', (form) => form.setAttribute('novalidate', ''));
  await Promise.all([page.waitForNavigation(), page.click('main button[type=submit]')]);
  expect(await page.$eval('#problem', (problem) => problem.textContent)).toContain('at least 8 characters');
  await check('choose a password with its problem');
  await page.goto(`${siteUrl()}/login`);
  await signIn(page, user.email, user.password);
  await page.goto(`${siteUrl()}/logout`);
  await check('sign out');
  await page.$eval('input[name=csrf]', (input) => input.setAttribute('value', 'stale'));
  await Promise.all([page.waitForNavigation(), page.click('form[action="/logout"] button')]);
  expect(await page.$eval('h1', (heading) => heading.textContent)).toBe('Not allowed');
  await check('an error page');
  await page.browserContext().close();
});
