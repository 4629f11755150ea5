/**
 * Imports by URL: the package is fetched server-side from a test HTTP server on 127.0.0.1.
 * The test stack allow-lists the host `127.0.0.1` (STEPWISE_FETCH_ALLOW_HOSTS); the same server
 * under a name that is not allow-listed, metadata addresses and redirects into them are refused.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, loginAdmin } from '../support/api.ts';
import { scorm12Package } from '../support/module-packages.ts';
import { createImport, finished } from '../support/modules.ts';

let admin: string;
let server: http.Server;
let base: string;
let packageZip: Buffer;

beforeAll(async () => {
  admin = await loginAdmin();
  packageZip = await scorm12Package('Fetched Course');
  server = http.createServer((req, res) => {
    const url = new URL(req.url!, 'http://x');
    if (url.pathname === '/course.zip') {
      res.writeHead(200, { 'content-type': 'application/zip', 'content-length': packageZip.length });
      return res.end(packageZip);
    }
    if (url.pathname === '/redirect') {
      res.writeHead(302, { location: url.searchParams.get('to')! });
      return res.end();
    }
    res.writeHead(404);
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function startByUrl(url: string) {
  const { importid, moduleid } = await createImport(admin);
  const response = await api('POST', `/external_training_modules/imports/${importid}/start/byUrl`, { token: admin, body: { url } });
  return { importid, moduleid, response };
}

describe('POST /external_training_modules/imports/{importid}/start/byUrl', () => {
  it('fetches the package server-side and imports it', async () => {
    const { importid, moduleid, response } = await startByUrl(`${base}/course.zip`);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ status: 'running', source: 'url', url: `${base}/course.zip` });
    const result = await finished(admin, importid);
    expect(result).toMatchObject({ status: 'complete', percent: 100 });
    const [version] = (await api('GET', `/external_training_modules/${moduleid}/imports`, { token: admin })).body.imports;
    expect(version).toMatchObject({ title: 'Fetched Course', size: packageZip.length, source: 'url' });
  });

  it('refuses (422) the same server under a name that is not allow-listed, and private or metadata addresses', async () => {
    const port = new URL(base).port;
    for (const url of [
      `http://localhost:${port}/course.zip`,
      'http://169.254.169.254/latest/meta-data/iam/security-credentials/',
      'http://[fd00:ec2::254]/latest/meta-data/',
      'http://10.0.0.8/course.zip',
      'http://[::ffff:192.168.1.10]/course.zip',
      'file:///etc/passwd',
    ]) {
      const { response } = await startByUrl(url);
      expect(response.status, url).toBe(422);
      expect(response.body.errors[0], url).toMatchObject({ field: 'url', code: 'url_not_allowed' });
    }
    const { response } = await startByUrl('not a url');
    expect(response.body.errors[0]).toMatchObject({ field: 'url', code: 'invalid_url' });
  });

  it('re-checks redirects when fetching: a redirect to the metadata service fails the import', async () => {
    const { importid, response } = await startByUrl(`${base}/redirect?to=${encodeURIComponent('http://169.254.169.254/latest/meta-data/')}`);
    expect(response.status).toBe(200);
    const result = await finished(admin, importid);
    expect(result.status).toBe('failed');
    expect(result.error).toMatchObject({ code: 'url_not_allowed' });
    expect(result.error.message).toContain('169.254.169.254');
  });

  it('fails the import when the server does not deliver the file', async () => {
    const { importid } = await startByUrl(`${base}/missing.zip`);
    const result = await finished(admin, importid);
    expect(result).toMatchObject({ status: 'failed', error: { code: 'fetch_failed' } });
    expect(result.error.message).toContain('404');
  });

  it('404 for an unknown import, 409 once it was started', async () => {
    expect((await api('POST', '/external_training_modules/imports/999999999/start/byUrl', { token: admin, body: { url: `${base}/course.zip` } })).status).toBe(404);
    const { importid } = await startByUrl(`${base}/course.zip`);
    const again = await api('POST', `/external_training_modules/imports/${importid}/start/byUrl`, { token: admin, body: { url: `${base}/course.zip` } });
    expect(again.status).toBe(409);
    await finished(admin, importid);
  });
});
