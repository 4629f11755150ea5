/**
 * HEAD wherever GET answers (RFC 9110 §9.3.2, issue 40): pages and site routes as well as the
 * API (the route matrix checks every API GET route), with the GET's status and headers and no
 * body; an unknown path is a 404 without a body.
 */
import { describe, expect, it } from 'vitest';
import { api, loginAdmin, site } from '../support/api.ts';

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
});
