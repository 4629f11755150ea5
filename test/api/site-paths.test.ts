/**
 * Paths of the site outside /api/2.0 (decision 187): routed by the same table, through the same
 * gateway and fallback as the API, but at the site root and not in the OpenAPI document.
 */
import { describe, expect, it } from 'vitest';
import { robotsTxt } from '../../functions/pages/pages.routes.ts';
import { api, site } from '../support/api.ts';

describe('site paths outside /api/2.0', () => {
  it('GET /robots.txt answers anonymously on a private site, keeping every crawler out', async () => {
    const response = await site('GET', '/robots.txt');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(response.text).toBe('User-agent: *\nDisallow: /\n');
  });

  it('a public site lets crawlers read pages but not the API', () => {
    expect(robotsTxt(false)).toBe('User-agent: *\nDisallow: /api/\n');
  });

  it('goes through the fallback like any route: trailing slash, wrong method, unknown path', async () => {
    expect((await site('GET', '/robots.txt/')).text).toBe('User-agent: *\nDisallow: /\n');
    const wrongMethod = await site('POST', '/robots.txt');
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET, HEAD');
    expect((await site('GET', '/no-such-page')).status).toBe(404);
  });

  it('is not an API path, and API paths are not site paths', async () => {
    expect((await api('GET', '/robots.txt')).status).toBe(404);
    expect((await site('GET', '/guides')).status).toBe(404);
  });

  it('is not in the OpenAPI document', async () => {
    const document = await api('GET', '/openapi.json');
    expect(document.status).toBe(200);
    expect(Object.keys(document.body.paths)).not.toContain('/robots.txt');
  });
});
