import { describe, expect, it } from 'vitest';
import { ADMIN, api, apiUrl, createUser, loginAdmin } from '../support/api.ts';

describe('formats', () => {
  it('answers JSON by default and indents it with ?pretty', async () => {
    const token = await loginAdmin();
    const plain = await api('GET', '/users/1', { token });
    expect(plain.headers.get('content-type')).toMatch(/application\/json/);
    expect(plain.text).not.toContain('\n');
    const pretty = await api('GET', '/users/1', { token, query: { pretty: '' } });
    expect(pretty.text).toContain('\n  "userid": 1');
    const notPretty = await api('GET', '/users/1', { token, query: { pretty: '0' } });
    expect(notPretty.text).not.toContain('\n');
  });

  it('answers XML for Accept: application/xml and for ?format=xml', async () => {
    const token = await loginAdmin();
    const byHeader = await api('GET', '/users/1', { token, headers: { accept: 'application/xml' } });
    expect(byHeader.headers.get('content-type')).toMatch(/application\/xml/);
    expect(byHeader.text).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<response><userid>1<\/userid>/);
    expect(byHeader.text).toContain('<privileges><item>Admin</item></privileges>');
    const byQuery = await api('GET', '/users/1', { token, query: { format: 'xml' } });
    expect(byQuery.text).toContain('<unique_username>admin</unique_username>');
    const error = await api('GET', '/users/1', { query: { format: 'xml' } });
    expect(error.status).toBe(401);
    expect(error.text).toContain('<message>Authentication required</message>');
  });
});

describe('request bodies', () => {
  it('parses JSON whatever the Content-Type says, or none', async () => {
    const none = await api('POST', '/user/token', { rawBody: JSON.stringify(ADMIN) });
    expect(none.status).toBe(201);
    const form = await api('POST', '/user/token', {
      rawBody: JSON.stringify(ADMIN),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(201);
  });

  it('answers 400 for invalid JSON', async () => {
    const response = await api('POST', '/user/token', {
      rawBody: '{"email": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ message: 'Invalid JSON in request body' });
  });

  it('answers 422 with per-field errors for a wrong body', async () => {
    const response = await api('POST', '/user/token', { body: { email: 5 } });
    expect(response.status).toBe(422);
    expect(response.body.message).toMatch(/email/);
    expect(response.body.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: 'email', code: 'invalid_type' }),
        expect.objectContaining({ field: 'password', code: 'missing_field' }),
      ]),
    );
  });
});

describe('routing', () => {
  it('tolerates a trailing slash', async () => {
    const token = await loginAdmin();
    const response = await api('GET', '/users/1/', { token });
    expect(response.status).toBe(200);
    expect(response.body.userid).toBe(1);
  });

  it('answers 404 "Endpoint not found" for an unknown route', async () => {
    const response = await api('GET', '/no/such/route');
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ message: 'Endpoint not found' });
  });

  it('answers 405 with Allow for a known path and a wrong method', async () => {
    const response = await api('PUT', '/user/token', { body: {} });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST, DELETE');
  });

  it('ignores unknown query parameters', async () => {
    const token = await loginAdmin();
    const response = await api('GET', '/users', { token, query: { somethingElse: 'x', limit: 1 } });
    expect(response.status).toBe(200);
    expect(response.body).toHaveLength(1);
  });

  it('rejects a malformed Authorization header as 401', async () => {
    const response = await api('GET', '/user', { headers: { authorization: 'Bearer abc' } });
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ message: 'Invalid login: send the token as "Authorization: api <token>"' });
    const bare = await api('GET', '/user', { headers: { authorization: 'abc' } });
    expect(bare.body.message).toContain('Authorization: api <token>');
  });
});

describe('CORS', () => {
  it('sends CORS headers on every response, errors included', async () => {
    const ok = await api('POST', '/user/token', { body: ADMIN });
    const missing = await api('GET', '/nowhere');
    for (const response of [ok, missing]) expect(response.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('answers preflight requests', async () => {
    const response = await fetch(`${apiUrl()}/users/1`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://example.org',
        'access-control-request-method': 'PATCH',
        'access-control-request-headers': 'authorization',
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-methods')).toContain('PATCH');
    expect(response.headers.get('access-control-allow-headers')).toMatch(/Authorization/);
    // The deployed HTTP API says the same (test/infra/api-stack.test.ts): one CORS_MAX_AGE_SECONDS.
    expect(response.headers.get('access-control-max-age')).toBe('3600');
  });

  it('lets a browser on another origin read X-Request-Id, Idempotent-Replayed, the X-Stepwise- hints and xAPI headers', async () => {
    const response = await fetch(`${apiUrl()}/users/1`, { headers: { origin: 'https://example.org' } });
    expect(response.headers.get('x-request-id')).toBeTruthy();
    expect(response.headers.get('access-control-expose-headers')).toBe(
      'X-Request-Id, Idempotent-Replayed, X-Stepwise-Current-Revisionid, X-Stepwise-Ignored-Fields, ' +
        'X-Experience-API-Version, X-Experience-API-Consistent-Through, ETag, Last-Modified',
    );
  });
});

describe('documentation', () => {
  it('serves the OpenAPI 3.1 document built from the route table', async () => {
    const response = await api('GET', '/openapi.json');
    expect(response.status).toBe(200);
    expect(response.body.openapi).toBe('3.1.0');
    expect(response.body.paths['/user/token'].post.requestBody.content['application/json'].schema.required).toEqual([
      'email',
      'password',
    ]);
    expect(response.body.paths['/users/searchnames/{search}'].get.deprecated).toBe(true);
    expect(
      response.body.paths['/teams/{teamid}/users/{userid}'].put.parameters.map((p: { name: string }) => p.name),
    ).toEqual(['teamid', 'userid', 'Idempotency-Key']);
  });

  it('serves a readable static docs page at /api/2.0/doc/static (test/api/api-docs.test.ts: the rest)', async () => {
    const response = await api('GET', '/doc/static');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/text\/html/);
    expect(response.text).toContain('<code>/user/token/impersonate</code>');
    expect(response.text).not.toMatch(/<script/i);
  });
});

describe('roles', () => {
  it('Author and User roles nest under Admin', async () => {
    const author = await createUser({ privileges: ['Author'] });
    const me = await api('GET', '/user', { token: author.token });
    expect(me.body.privileges).toEqual(['Author']);
    expect((await api('POST', '/teams', { token: author.token, body: { name: 'X' } })).status).toBe(403);
  });
});
