/**
 * HEAD wherever GET answers (RFC 9110 §9.3.2, issues 40 and 42): pages and site routes as well as
 * the API (the route matrix checks every API GET route), with the GET's status and headers and no
 * body; an unknown path is a 404 without a body. Site routes the matrix does not reach are tested
 * one by one: a document's file at `/igi/{guid}/{filename}`, the learner's home `/Manage` and a
 * module's player `/ExternalTrainingModule/{id}`.
 */
import { describe, expect, it } from 'vitest';
import { api, createUser, loginAdmin, site } from '../support/api.ts';
import { scorm12Package } from '../support/module-packages.ts';
import { importPackage } from '../support/modules.ts';
import { uploadReadyFile } from './guide-fixtures.ts';

/** HEAD answers as GET does, headers that describe the body included, without the body. */
async function sameAsGet(path: string, headers: Record<string, string> = {}, compare = ['content-type']) {
  const [get, head] = await Promise.all([site('GET', path, { headers }), site('HEAD', path, { headers })]);
  expect(head.status, `${path}: ${head.text}`).toBe(get.status);
  expect(head.text).toBe('');
  for (const name of compare) expect(head.headers.get(name), name).toBe(get.headers.get(name));
  return head;
}

describe('HEAD', () => {
  it('a page answers HEAD with its status and content type and no body', async () => {
    const get = await site('GET', '/login');
    const head = await site('HEAD', '/login');
    expect(head.status).toBe(get.status);
    expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
    expect(head.text).toBe('');
  });

  it('an API route answers HEAD as GET, a token and its headers included; an unknown path is 404 without a body', async () => {
    const admin = await loginAdmin();
    const get = await api('GET', '/user', { token: admin });
    const head = await api('HEAD', '/user', { token: admin });
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(head.headers.get('cache-control')).toBe(get.headers.get('cache-control'));
    expect((await api('HEAD', '/user')).status).toBe(401);
    const unknown = await api('HEAD', '/no/such/route');
    expect(unknown.status).toBe(404);
    expect(unknown.text).toBe('');
    const wrong = await api('PUT', '/user/token', { body: {} });
    expect(wrong.status).toBe(405);
  });

  it('a SCIM read answers HEAD with its ETag and no body', async () => {
    const admin = await loginAdmin();
    const minted = await api('POST', '/admin/api_tokens', { token: admin, body: { name: 'HEAD', scopes: ['scim'] } });
    const headers = { authorization: `Bearer ${minted.body.token}` };
    const get = await site('GET', '/scim/v2/ServiceProviderConfig', { headers });
    const head = await site('HEAD', '/scim/v2/ServiceProviderConfig', { headers });
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
  });

  it("per site route: a document file, the learner's home and a module's player answer HEAD as GET", async () => {
    const [admin, user] = await Promise.all([loginAdmin(), createUser()]);
    const documentid = await uploadReadyFile(user.token, 'valve torque.pdf', Buffer.from('%PDF-1.4\n% torque\n'));
    const document = (await api('GET', `/media/documents/${documentid}`, { token: user.token })).body;
    const file = await sameAsGet(new URL(document.download_url).pathname, {}, [
      'content-type',
      'content-length',
      'content-disposition',
      'etag',
    ]);
    expect(file.status).toBe(200);
    expect((await site('HEAD', `/igi/${'f'.repeat(32)}/x.pdf`)).status).toBe(404);

    const home = await sameAsGet('/Manage', { authorization: `api ${user.token}` }, ['content-type', 'cache-control']);
    expect(home.status).toBe(200);
    const anonymous = await site('HEAD', '/Manage');
    expect(anonymous.status).toBe(302);
    expect(anonymous.headers.get('location')).toBe('/login?returnTo=%2FManage');
    // An acknowledgement's page (decision 331): HEAD as GET for a release the reader has none for.
    const acknowledgement = await sameAsGet('/Manage/acknowledgements/999999999', {
      authorization: `api ${user.token}`,
    });
    expect(acknowledgement.status).toBe(404);
    const anonymousAcknowledgement = await site('HEAD', '/Manage/acknowledgements/999999999');
    expect(anonymousAcknowledgement.status).toBe(302);

    const module = await importPackage(admin, await scorm12Package(`Head check ${Date.now()}`));
    expect(module.result.status).toBe('complete');
    const current = await api('PUT', `/external_training_modules/${module.moduleid}/current`, {
      token: admin,
      body: { importid: module.importid },
    });
    expect(current.status, current.text).toBe(200);
    const player = await sameAsGet(`/ExternalTrainingModule/${module.moduleid}`, { authorization: `api ${admin}` }, [
      'content-type',
      'content-security-policy',
    ]);
    expect(player.status).toBe(200);
    expect((await sameAsGet('/ExternalTrainingModule/999999999', { authorization: `api ${admin}` })).status).toBe(404);
  });
});
