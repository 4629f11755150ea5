/**
 * The content origin (decision 270): a package's files answer, with their content types and
 * ranges, on another origin than the site's, to the holder of a launch's token only.
 */
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, loginAdmin, siteUrl } from '../support/api.ts';
import { importPackage } from '../support/modules.ts';
import { scorm12Manifest, zip } from '../support/module-packages.ts';

let admin: string;
const media = randomBytes(4096);

beforeAll(async () => {
  admin = await loginAdmin();
});

async function launched() {
  const { importid } = await importPackage(
    admin,
    await zip({
      'imsmanifest.xml': scorm12Manifest('Origin', 'index.html'),
      'index.html': '<!doctype html><title>Origin</title><script src="js/app.js"></script>',
      'js/app.js': 'window.loaded = true;',
      'media/clip.mp4': media,
    }),
  );
  const preview = await api('GET', `/external_training_modules/imports/${importid}/preview`, { token: admin });
  expect(preview.status).toBe(200);
  return { importid, launch: preview.body.launch_url as string, base: preview.body.content_base_url as string };
}

describe('the content origin', () => {
  it('serves the package on an origin that is not the site, with content types and ranges', async () => {
    const { launch, base } = await launched();
    expect(new URL(launch).origin).not.toBe(new URL(siteUrl()).origin);
    expect(new URL(launch).hostname).not.toBe(new URL(siteUrl()).hostname);
    expect(launch.startsWith(base)).toBe(true);

    const page = await fetch(launch);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await page.text()).toContain('<title>Origin</title>');

    // A relative asset resolves under the same token.
    const script = await fetch(new URL('js/app.js', launch));
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/javascript/);

    const ranged = await fetch(`${base}media/clip.mp4`, { headers: { Range: 'bytes=100-199' } });
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get('content-range')).toBe(`bytes 100-199/${media.length}`);
    expect(Buffer.from(await ranged.arrayBuffer())).toEqual(media.subarray(100, 200));
  });

  it('refuses a changed token, another import, an expired token and paths out of the package', async () => {
    const { importid, base } = await launched();
    const url = new URL(base);
    const [, , , token] = url.pathname.split('/') as [string, string, string, string];
    const [expires, seal] = token.split('.') as [string, string];
    const at = (path: string) => fetch(`${url.origin}${path}`);

    const flipped = `${seal.slice(0, -1)}${seal.endsWith('A') ? 'B' : 'A'}`;
    expect((await at(`/c/${importid}/${expires}.${flipped}/index.html`)).status).toBe(403);
    expect((await at(`/c/${importid + 1}/${token}/index.html`)).status).toBe(403);
    expect((await at(`/c/${importid}/${Number(expires) + 1}.${seal}/index.html`)).status).toBe(403);
    expect((await at(`/c/${importid}/${token}/..%2F..%2Fimports/x`)).status).toBe(404);
    expect((await at(`/c/${importid}/${token}/missing.html`)).status).toBe(404);
    expect((await fetch(`${base}index.html`, { method: 'POST' })).status).toBe(405);
  });
});
