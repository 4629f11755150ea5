/**
 * Company sign-in in Chromium (docs/identity.md): the login page's "Sign in with your company
 * account" link, the provider's own login form, and back signed in, for OpenID Connect
 * (oidc-provider in this process) and SAML (the in-process IdP posting its signed Response).
 * Then `GET /api/2.0/user` with that browser's session answers the user with its authToken, as
 * Dozuki's apps finish single sign-on. A stack of its own: the login page links to the provider
 * STEPWISE_SSO_PROVIDER names, here `company`, made OIDC then SAML.
 */
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { testSiteEnvironment } from '../../infra/verify/test-site-settings.ts';
import { apiAt, uniqueSuffix } from '../support/api.ts';
import { launchChromium } from '../support/chromium.ts';
import { startStackProcess, type RunningStack } from '../support/local-stack-process.ts';
import { startOp, type TestOp } from '../support/oidc-op.ts';
import { IDP_CERT, IDP_ENTITY_ID, startSamlIdpServer, type SamlIdpServer } from '../support/saml-idp.ts';

const PROVIDER = 'company';
let stack: RunningStack;
let siteRoot: string;
let admin: string;
let browser: Browser;
let close: () => Promise<void>;
let op: TestOp;
let idp: SamlIdpServer;

beforeAll(async () => {
  [stack, { browser, close }] = await Promise.all([
    startStackProcess({
      ...testSiteEnvironment(),
      STEPWISE_ADMIN_EMAIL: 'admin@example.com',
      STEPWISE_ADMIN_PASSWORD: 'stepwise-admin',
      STEPWISE_SSO_PROVIDER: PROVIDER,
    }),
    launchChromium(),
  ]);
  siteRoot = stack.url.replace(/\/api\/2\.0$/, '');
  op = await startOp(`${siteRoot}/sso/${PROVIDER}/callback`, { loginForm: true });
  idp = await startSamlIdpServer(`${siteRoot}/sso/${PROVIDER}`);
  const login = await apiAt(stack.url, 'POST', '/user/token', {
    body: { email: 'admin@example.com', password: 'stepwise-admin' },
  });
  admin = login.body.authToken;
}, 90_000);

afterAll(async () => {
  await close?.();
  await op?.close();
  await idp?.close();
  await stack?.stop();
});

async function useProvider(body: Record<string, unknown>): Promise<void> {
  await apiAt(stack.url, 'DELETE', `/admin/identity_providers/${PROVIDER}`, { token: admin });
  const created = await apiAt(stack.url, 'POST', '/admin/identity_providers', {
    token: admin,
    body: { providerid: PROVIDER, name: 'Company', jit: true, ...body },
  });
  expect(created.status, created.text).toBe(201);
}

/** From a closed page: login page, the company link, the provider's form; back on the page. */
async function signInThroughCompany(login: string): Promise<Page> {
  const page = await (await browser.createBrowserContext()).newPage();
  await page.goto(`${siteRoot}/login?returnTo=${encodeURIComponent('/logout')}`);
  await Promise.all([page.waitForNavigation(), page.click('a[href^="/sso/company/login"]')]);
  await page.waitForSelector('#login');
  await page.type('#login', login);
  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('button[type=submit]')]);
  // SAML goes through one more page, the IdP's self-posting form, before it lands here.
  if (!page.url().startsWith(siteRoot)) await page.waitForNavigation({ waitUntil: 'load' });
  return page;
}

async function signedInUser(page: Page) {
  const cookie = (await page.browserContext().cookies()).find((candidate) => candidate.name === 'stepwise_session');
  expect(cookie).toBeDefined();
  const me = await apiAt(stack.url, 'GET', '/user', { headers: { cookie: `stepwise_session=${cookie!.value}` } });
  expect(me.status).toBe(200);
  expect(me.body.authToken).toBe(cookie!.value);
  return me.body;
}

it('signs in with OpenID Connect from the login page, through the provider’s form', async () => {
  await useProvider({ kind: 'oidc', issuer: op.issuer, client_id: op.clientId, client_secret: op.clientSecret });
  const sub = `oidc-${uniqueSuffix()}`;
  op.accounts.set(sub, { email: `${sub}@example.com`, email_verified: true, name: 'Olga Browser' });
  const page = await signInThroughCompany(sub);
  expect(page.url()).toBe(`${siteRoot}/logout`);
  expect(await page.$eval('main', (main) => main.textContent)).toContain('Olga Browser');
  const user = await signedInUser(page);
  expect(user).toMatchObject({ username: 'Olga Browser', email: `${sub}@example.com` });
});

it('signs in with SAML from the login page, through the IdP’s form and its posted answer', async () => {
  await useProvider({
    kind: 'saml',
    idp_entity_id: IDP_ENTITY_ID,
    idp_sso_url: idp.ssoUrl,
    idp_certificates: [IDP_CERT],
  });
  const nameId = `saml-${uniqueSuffix()}`;
  idp.users.set(nameId, { email: [`${nameId}@example.com`], displayName: ['Sam Browser'] });
  const page = await signInThroughCompany(nameId);
  expect(page.url()).toBe(`${siteRoot}/logout`);
  const user = await signedInUser(page);
  expect(user).toMatchObject({ username: 'Sam Browser', email: `${nameId}@example.com` });
});
