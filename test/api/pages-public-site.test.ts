/**
 * The pages of a public site (STEPWISE_PRIVATE_SITE=false, a stack of its own): a public guide
 * is shown to anonymous readers and may be cached; an anonymous reader of a private one is sent
 * to the login page and back; with the inline limit lowered, the PDF is written to S3 and
 * redirected to.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, type api, apiAt, uniqueSuffix } from '../support/api.ts';
import { startStackProcess, type RunningStack } from '../support/local-stack-process.ts';
import { pdfText } from '../support/pages.ts';

const pathOf = (url: string) => new URL(url).pathname;

describe('a public site', () => {
  let stack: RunningStack;
  const call = (method: string, path: string, options: Parameters<typeof api>[2] = {}) =>
    apiAt(stack.url, method, path, options);
  const page = (path: string, token?: string) =>
    fetch(stack.url.replace(/\/api\/2\.0$/, '') + path, {
      redirect: 'manual',
      headers: token ? { authorization: `api ${token}` } : {},
    });

  beforeAll(async () => {
    stack = await startStackProcess({
      STEPWISE_PRIVATE_SITE: 'false',
      STEPWISE_ADMIN_EMAIL: ADMIN.email,
      STEPWISE_ADMIN_PASSWORD: ADMIN.password,
      // Any PDF goes through S3 here.
      STEPWISE_PDF_INLINE_MAX_BYTES: '1000',
    });
  }, 60_000);
  afterAll(() => stack?.stop());

  it('shows a public guide anonymously (cacheable), sends an anonymous reader of a private one to login', async () => {
    const admin = (await call('POST', '/user/token', { body: ADMIN })).body.authToken as string;
    const category = `Open ${uniqueSuffix()}`;
    await call('POST', '/wikis', { token: admin, body: { namespace: 'CATEGORY', title: category, contents: 'x' } });
    const draft = (
      await call('POST', '/guides', { token: admin, body: { category, type: 'how-to', title: 'Open guide' } })
    ).body;
    await call('POST', `/guides/${draft.guideid}/steps`, {
      token: admin,
      body: { orderby: 1, title: 'First step', lines: [{ text: 'Look.', bullet: 'black', level: 0 }] },
    });
    const before = await page(pathOf(draft.url));
    expect(before.status).toBe(302);
    expect(before.headers.get('location')).toBe(`/login?returnTo=${encodeURIComponent(pathOf(draft.url))}`);
    const current = (await call('GET', `/guides/${draft.guideid}`, { token: admin })).body;
    await call('PUT', `/guides/${draft.guideid}/public`, {
      token: admin,
      query: { revisionid: current.revisionid },
      body: {},
    });
    const open = await page(pathOf(draft.url));
    expect(open.status).toBe(200);
    expect(open.headers.get('cache-control')).toBe('public, max-age=300');
    const html = await open.text();
    expect(html).toContain('<h1>Open guide</h1>');
    expect(html).toContain(`href="/login?returnTo=`);

    // Over the (lowered) inline limit: written to the media bucket and redirected to.
    const pdf = await page(`${pathOf(draft.url)}.pdf`);
    expect(pdf.status).toBe(302);
    const stored = await fetch(pdf.headers.get('location')!);
    expect(stored.status).toBe(200);
    expect(await pdfText(new Uint8Array(await stored.arrayBuffer()))).toContain('First step');
  });
});
