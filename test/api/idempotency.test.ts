/**
 * Idempotency-Key (issue 30 §1, decision 223): over HTTP against the local stack, and the
 * in-flight and too-large cases through the router's step itself against the stack's table
 * (a request held open, an answer too large to keep, made on purpose).
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { ADMIN, api, createUser, loginAdmin, uniqueSuffix } from '../support/api.ts';
import { runServicesOnStackTable } from '../support/local-db.ts';

const key = () => `key-${uniqueSuffix()}`;

describe('Idempotency-Key over HTTP', () => {
  it('answers the first answer again for the same request, without doing the work twice', async () => {
    const admin = await loginAdmin();
    const name = `Idem team ${uniqueSuffix()}`;
    const headers = { 'Idempotency-Key': `"${key()}"` };
    const first = await api('POST', '/teams', { token: admin, body: { name }, headers });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await api('POST', '/teams', { token: admin, body: { name }, headers });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    // CORS and a request id of its own, as any answer.
    expect(again.headers.get('access-control-allow-origin')).toBe('*');
    expect(again.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    const teams = await api('GET', '/teams', { token: admin, query: { limit: 200 } });
    const list = (Array.isArray(teams.body) ? teams.body : teams.body.teams) as Array<{ name: string }>;
    expect(list.filter((team) => team.name === name)).toHaveLength(1);
  });

  it('refuses the same key with another body (422), and does not do that work', async () => {
    const admin = await loginAdmin();
    const headers = { 'Idempotency-Key': key() };
    const first = await api('POST', '/teams', { token: admin, body: { name: `A ${uniqueSuffix()}` }, headers });
    expect(first.status).toBe(201);
    const other = `B ${uniqueSuffix()}`;
    const reused = await api('POST', '/teams', { token: admin, body: { name: other }, headers });
    expect(reused.status).toBe(422);
    expect(reused.body.errors[0]).toMatchObject({ field: 'Idempotency-Key', code: 'key_reused' });
    const teams = await api('GET', '/teams', { token: admin, query: { limit: 200 } });
    const list = (Array.isArray(teams.body) ? teams.body : teams.body.teams) as Array<{ name: string }>;
    expect(list.some((team) => team.name === other)).toBe(false);
  });

  it('keeps keys per caller: the same key from another caller is its own request', async () => {
    const admin = await loginAdmin();
    const other = await createUser({ privileges: ['Admin'] });
    const headers = { 'Idempotency-Key': key() };
    const name = `Shared key ${uniqueSuffix()}`;
    const mine = await api('POST', '/teams', { token: admin, body: { name }, headers });
    const theirs = await api('POST', '/teams', { token: other.token, body: { name: `${name} 2` }, headers });
    expect(mine.status).toBe(201);
    expect(theirs.status).toBe(201);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.body.teamid).not.toBe(mine.body.teamid);
  });

  it('authenticates before any replay: a kept answer is never given without the token', async () => {
    const admin = await loginAdmin();
    const headers = { 'Idempotency-Key': key() };
    const body = { name: `Auth first ${uniqueSuffix()}` };
    expect((await api('POST', '/teams', { token: admin, body, headers })).status).toBe(201);
    const anonymous = await api('POST', '/teams', { body, headers });
    expect(anonymous.status).toBe(401);
    const user = await createUser();
    expect((await api('POST', '/teams', { token: user.token, body, headers })).status).toBe(403);
  });

  it('does not keep a failed answer: the key is free for the corrected request', async () => {
    const admin = await loginAdmin();
    const headers = { 'Idempotency-Key': key() };
    const wrong = await api('POST', '/teams', { token: admin, body: { name: 5 }, headers });
    expect(wrong.status).toBe(422);
    const right = await api('POST', '/teams', { token: admin, body: { name: `Fixed ${uniqueSuffix()}` }, headers });
    expect(right.status).toBe(201);
    expect(right.headers.get('idempotent-replayed')).toBeNull();
  });

  it('refuses the header on routes that make credentials (422), and a malformed key (400)', async () => {
    const login = await api('POST', '/user/token', {
      body: { email: ADMIN.email, password: ADMIN.password },
      headers: { 'Idempotency-Key': key() },
    });
    expect(login.status).toBe(422);
    expect(login.body.errors[0]).toMatchObject({ field: 'Idempotency-Key', code: 'not_replayable' });
    const admin = await loginAdmin();
    const impersonate = await api('POST', '/user/token/impersonate', {
      token: admin,
      body: { userid: 1 },
      headers: { 'Idempotency-Key': key() },
    });
    expect(impersonate.status).toBe(422);
    const malformed = await api('POST', '/teams', {
      token: admin,
      body: { name: `Bad key ${uniqueSuffix()}` },
      headers: { 'Idempotency-Key': 'has space' },
    });
    expect(malformed.status).toBe(400);
  });

  it('is allowed by CORS and documented on every write', async () => {
    const preflight = await fetch(`${inject('apiUrl')}/teams`, { method: 'OPTIONS' });
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/Idempotency-Key/);
    expect(preflight.headers.get('access-control-expose-headers')).toMatch(/Idempotent-Replayed/);
    const document = await api('GET', '/openapi.json');
    const post = document.body.paths['/teams'].post;
    expect(post.parameters.map((parameter: { name: string }) => parameter.name)).toContain('Idempotency-Key');
    const login = document.body.paths['/user/token'].post;
    expect((login.parameters ?? []).map((parameter: { name: string }) => parameter.name)).not.toContain(
      'Idempotency-Key',
    );
  });
});

runServicesOnStackTable();
let idempotency: typeof import('../../shared/http/idempotency.ts');

describe('Idempotency-Key in the router step, on the stack table', () => {
  beforeAll(async () => {
    idempotency = await import('../../shared/http/idempotency.ts');
  });

  const route = { method: 'POST', path: '/things', auth: 'user', summary: 'test', handler: () => ({}) } as never;
  const event = (body: string) =>
    ({
      rawPath: '/api/2.0/things',
      rawQueryString: '',
      body,
      requestContext: { http: { method: 'POST' } },
    }) as unknown as APIGatewayProxyEventV2;
  const caller = (userid: number) => ({ userid, username: 'u', privileges: ['User'], teams: [] }) as never;

  it('answers 409 while the first request with the key is still running, then the first answer', async () => {
    const headers = { 'idempotency-key': key() };
    const request = { route, event: event('{}'), headers, caller: caller(990001) };
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let runs = 0;
    const work = async () => {
      runs += 1;
      await held;
      return { statusCode: 201, headers: { 'content-type': 'application/json' }, body: '{"id":1}' };
    };
    const first = idempotency.idempotent(request, work);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await expect(idempotency.idempotent(request, work)).rejects.toMatchObject({ name: 'ConflictError' });
    release();
    expect((await first).statusCode).toBe(201);
    const replay = await idempotency.idempotent(request, work);
    expect(replay).toMatchObject({ statusCode: 201, body: '{"id":1}' });
    expect(replay.headers?.['idempotent-replayed']).toBe('true');
    expect(runs).toBe(1);
    // The item Powertools wrote is the one entity-schemas.ts declares for its key.
    const { queryAll } = await import('../../shared/db/paging.ts');
    const { entityOfKey, itemProblem } = await import('../../shared/db/entity-schemas.ts');
    const items = await queryAll({ partition: 'IDEMPOTENCY#990001' } as never);
    expect(items.length).toBeGreaterThan(0);
    for (const item of items as Array<Record<string, unknown>>) {
      const shape = entityOfKey(String(item.pk), String(item.sk));
      expect(shape?.entity).toBe('IdempotencyRecord');
      expect(itemProblem(shape!, item)).toBeUndefined();
    }
  });

  it('does not keep an answer too large for one item: a repeat of its key is 409', async () => {
    const headers = { 'idempotency-key': key() };
    const request = { route, event: event('{"big":true}'), headers, caller: caller(990002) };
    const big = 'x'.repeat(idempotency.MAX_KEPT_ANSWER_BYTES + 1);
    let runs = 0;
    const work = async () => {
      runs += 1;
      return { statusCode: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(big) };
    };
    const first = await idempotency.idempotent(request, work);
    expect(first.body).toBe(JSON.stringify(big));
    await expect(idempotency.idempotent(request, work)).rejects.toMatchObject({ name: 'ConflictError' });
    expect(runs).toBe(1);
  });

  it('does not keep a server error: the key runs again', async () => {
    const headers = { 'idempotency-key': key() };
    const request = { route, event: event('{}'), headers, caller: caller(990003) };
    let runs = 0;
    const work = async () => {
      runs += 1;
      return { statusCode: runs === 1 ? 500 : 200, body: '{}' };
    };
    expect((await idempotency.idempotent(request, work)).statusCode).toBe(500);
    expect((await idempotency.idempotent(request, work)).statusCode).toBe(200);
    expect(runs).toBe(2);
  });
});
