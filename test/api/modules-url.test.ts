/**
 * Imports by URL: the package is fetched server-side from a test HTTP server on 127.0.0.1.
 * The test stack allow-lists the host `127.0.0.1` (STEPWISE_FETCH_ALLOW_HOSTS); the same server
 * under a name that is not allow-listed, metadata addresses and redirects into them are refused,
 * with answers that say only "not allowed" or "could not be fetched".
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
  const response = await api('POST', `/external_training_modules/imports/${importid}/start/byUrl`, {
    token: admin,
    body: { url },
  });
  return { importid, moduleid, response };
}

describe('POST /external_training_modules/imports/{importid}/start/byUrl', () => {
  it('fetches the package server-side and imports it', async () => {
    const { importid, moduleid, response } = await startByUrl(`${base}/course.zip`);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ status: 'running', source: 'url', url: `${base}/course.zip` });
    const result = await finished(admin, importid);
    expect(result).toMatchObject({ status: 'complete', percent: 100 });
    const [version] = (await api('GET', `/external_training_modules/${moduleid}/imports`, { token: admin })).body
      .imports;
    expect(version).toMatchObject({ title: 'Fetched Course', size: packageZip.length, source: 'url' });
  });

  it('refuses (422, "not allowed") private and metadata addresses and other schemes, naming nothing', async () => {
    for (const url of [
      'http://169.254.169.254/latest/meta-data/iam/security-credentials/',
      'http://[fd00:ec2::254]/latest/meta-data/',
      'http://10.0.0.8/course.zip',
      'http://[::ffff:192.168.1.10]/course.zip',
      'file:///etc/passwd',
    ]) {
      const { response } = await startByUrl(url);
      expect(response.status, url).toBe(422);
      expect(response.body.errors, url).toEqual([
        { field: 'url', code: 'url_not_allowed', message: 'The URL is not allowed' },
      ]);
    }
    const { response } = await startByUrl('not a url');
    expect(response.body.errors[0]).toMatchObject({ field: 'url', code: 'invalid_url' });
  });

  it('answers a name resolving to a private address exactly like a name that does not exist', async () => {
    const port = new URL(base).port;
    // localhost is not allow-listed (only 127.0.0.1 is) and resolves to loopback.
    const internal = (await startByUrl(`http://localhost:${port}/course.zip`)).response;
    const missing = (await startByUrl(`http://no-such-host.invalid:${port}/course.zip`)).response;
    expect(internal.status).toBe(422);
    expect(internal.body).toEqual(missing.body);
    expect(internal.body.errors).toEqual([
      { field: 'url', code: 'fetch_failed', message: 'The URL could not be fetched' },
    ]);
  });

  it('re-checks redirects when fetching: a redirect to the metadata service fails the import, naming nothing', async () => {
    const { importid, response } = await startByUrl(
      `${base}/redirect?to=${encodeURIComponent('http://169.254.169.254/latest/meta-data/')}`,
    );
    expect(response.status).toBe(200);
    const result = await finished(admin, importid);
    expect(result.status).toBe('failed');
    expect(result.error).toMatchObject({ code: 'url_not_allowed', message: 'The URL is not allowed' });
  });

  it('fails the import when the server does not deliver the file, saying only that', async () => {
    const { importid } = await startByUrl(`${base}/missing.zip`);
    const result = await finished(admin, importid);
    expect(result).toMatchObject({
      status: 'failed',
      error: { code: 'fetch_failed', message: 'The URL could not be fetched' },
    });
  });

  it('404 for an unknown import, 409 once it was started', async () => {
    expect(
      (
        await api('POST', '/external_training_modules/imports/999999999/start/byUrl', {
          token: admin,
          body: { url: `${base}/course.zip` },
        })
      ).status,
    ).toBe(404);
    const { importid } = await startByUrl(`${base}/course.zip`);
    const again = await api('POST', `/external_training_modules/imports/${importid}/start/byUrl`, {
      token: admin,
      body: { url: `${base}/course.zip` },
    });
    expect(again.status).toBe(409);
    await finished(admin, importid);
  });
});
