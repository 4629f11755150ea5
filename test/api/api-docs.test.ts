/**
 * The API's own docs over HTTP (decisions 176-178): the interactive reference page and its
 * policy, the renderer served from the bundle, the static page, and a revisionid the document
 * marks required exactly where the service answers 422 without it.
 */
import { describe, expect, it } from 'vitest';
import { api, createUser, site } from '../support/api.ts';
import { addStep, createGuide, ownSteps } from './guide-fixtures.ts';

describe('GET /doc', () => {
  it('serves the reference page: the renderer script from this origin, started by a script the CSP names', async () => {
    const response = await api('GET', '/doc');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/text\/html/);
    expect(response.text).toContain('<script src="/api/2.0/doc/renderer.js"></script>');
    expect(response.text).toContain('<a href="/api/2.0/doc/static">');
    const csp = response.headers.get('content-security-policy')!;
    expect(csp).toMatch(/script-src 'self' 'sha256-[A-Za-z0-9+/=]+'/);
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toMatch(/https?:|\*/);
    expect(response.text).not.toMatch(/https?:\/\//);
  });

  it('serves the renderer and scorm-again from their packages, gzipped only where Accept-Encoding allows', async () => {
    const scripts = [
      (headers: Record<string, string>) => api('GET', '/doc/renderer.js', { headers }),
      (headers: Record<string, string>) => site('GET', '/player/scorm-again.js', { headers }),
    ];
    for (const get of scripts) {
      const gzipped = await get({ 'accept-encoding': 'gzip' });
      expect(gzipped.status).toBe(200);
      expect(gzipped.headers.get('content-type')).toMatch(/javascript/);
      expect(gzipped.headers.get('content-encoding')).toBe('gzip');
      expect(gzipped.headers.get('vary')).toBe('accept-encoding');
      const plain = await get({ 'accept-encoding': 'identity' });
      expect(plain.headers.get('content-encoding')).toBeNull();
      // fetch decodes gzip: both are the same script.
      expect(gzipped.text).toBe(plain.text);
      expect(plain.text.length).toBeGreaterThan(100_000);
      expect(gzipped.headers.get('etag')).toBe(plain.headers.get('etag'));
      // gzip;q=0 refuses gzip (RFC 9110 12.5.3): the plain script.
      const refused = await get({ 'accept-encoding': 'gzip;q=0, identity' });
      expect(refused.headers.get('content-encoding')).toBeNull();
    }
  });

  it('the static page says what public means on a private site and renders Markdown', async () => {
    const response = await api('GET', '/doc/static');
    expect(response.status).toBe(200);
    expect(response.text).not.toMatch(/<script/i);
    expect(response.text).toContain('<code>/user/token/impersonate</code>');
    const guides = response.text.split('<section').find((section) => section.includes('<code>/guides</code></h3>'))!;
    expect(guides).toContain('Public on public sites; requires a token on private sites (the default).');
    // Backticks of the descriptions become <code> (schemas in <pre> keep their JSON as it is).
    expect(response.text.replace(/<pre>[\s\S]*?<\/pre>/g, '')).not.toMatch(/`[^`<]+`/);
  });
});

describe('a required revisionid, in the document and on the wire', () => {
  it('PATCH of a step: required in openapi.json, and 422 missing_field without it', async () => {
    const document = (await api('GET', '/openapi.json')).body;
    const parameter = document.paths['/guides/{guideid}/steps/{stepid}'].patch.parameters.find(
      (p: { name: string }) => p.name === 'revisionid',
    );
    expect(parameter).toMatchObject({ in: 'query', required: true });

    const author = await createUser({ privileges: ['Author'] });
    const guide = await addStep(author.token, (await createGuide(author.token)).guideid, { title: 'One' });
    const step = ownSteps(guide)[0];
    const response = await api('PATCH', `/guides/${guide.guideid}/steps/${step.stepid}`, {
      token: author.token,
      body: { title: 'Changed' },
    });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual([expect.objectContaining({ field: 'revisionid', code: 'missing_field' })]);
  });
});
