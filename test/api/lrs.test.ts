/**
 * The site's own LRS over HTTP (docs/lrs.md): credentials, the version header, statements
 * (validation, conflicts, batches all or nothing, filters, voiding, `more`, formats,
 * attachments), documents (ETags, preconditions, merge) and the alternate request syntax.
 */
import { createHash, createSign, generateKeyPairSync, randomUUID } from 'node:crypto';
import { SIGNER_KEY, SIGNER_X5C } from '../support/xapi-signer.ts';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, loginAdmin, site, type RequestOptions } from '../support/api.ts';

let admin: string;
let basic: string;

const V = { 'x-experience-api-version': '1.0.3' };

async function credential(scopes: string[]): Promise<string> {
  const created = await api('POST', '/admin/lrs_credentials', { token: admin, body: { name: 'Test client', scopes } });
  expect(created.status).toBe(201);
  return `Basic ${Buffer.from(`${created.body.key}:${created.body.secret}`).toString('base64')}`;
}

function lrs(method: string, path: string, options: RequestOptions & { auth?: string } = {}) {
  return site(method, `/xapi${path}`, {
    ...options,
    headers: {
      ...V,
      authorization: options.auth ?? basic,
      ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(options.headers ?? {}),
    },
  });
}

function statement(extra: Record<string, unknown> = {}) {
  return {
    actor: { mbox: `mailto:learner-${randomUUID()}@example.com`, name: 'Learner' },
    verb: { id: 'http://adlnet.gov/expapi/verbs/completed', display: { 'en-US': 'completed' } },
    object: { id: `http://example.com/activities/${randomUUID()}` },
    ...extra,
  };
}

beforeAll(async () => {
  admin = await loginAdmin();
  basic = await credential(['all']);
});

describe('credentials and the version header', () => {
  it('makes a credential shown once, lists it without the secret, and revokes it', async () => {
    const created = await api('POST', '/admin/lrs_credentials', {
      token: admin,
      body: { name: 'Revoked soon', scopes: ['statements/read'] },
    });
    expect(created.body.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(created.body.endpoint).toMatch(/\/xapi\/$/);
    const listed = await api('GET', '/admin/lrs_credentials', { token: admin });
    expect(JSON.stringify(listed.body)).not.toContain(created.body.secret);
    const auth = `Basic ${Buffer.from(`${created.body.key}:${created.body.secret}`).toString('base64')}`;
    expect((await lrs('GET', '/statements', { auth })).status).toBe(200);
    expect((await api('DELETE', `/admin/lrs_credentials/${created.body.key}`, { token: admin })).status).toBe(204);
    expect((await lrs('GET', '/statements', { auth })).status).toBe(401);
    const wrong = `Basic ${Buffer.from(`${created.body.key}:nope`).toString('base64')}`;
    const refused = await lrs('GET', '/statements', { auth: wrong });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('x-experience-api-version')).toBe('1.0.3');
  });

  it('answers about without credentials, and needs a known version header elsewhere', async () => {
    const about = await site('GET', '/xapi/about');
    expect(about.status).toBe(200);
    expect(about.body.version).toEqual(expect.arrayContaining(['1.0.3', '2.0.0']));
    const missing = await site('GET', '/xapi/statements', { headers: { authorization: basic } });
    expect(missing.status).toBe(400);
    const unknown = await lrs('GET', '/statements', { headers: { 'x-experience-api-version': '0.95' } });
    expect(unknown.status).toBe(400);
    const two = await lrs('GET', '/statements', { headers: { 'x-experience-api-version': '2.0.0' } });
    expect(two.headers.get('x-experience-api-version')).toBe('2.0.0');
  });

  it('holds a credential to its scopes', async () => {
    const reader = await credential(['statements/read']);
    expect((await lrs('POST', '/statements', { auth: reader, body: statement() })).status).toBe(403);
    const writer = await credential(['statements/write']);
    expect((await lrs('GET', '/statements', { auth: writer })).status).toBe(403);
    const mine = await credential(['statements/write', 'statements/read/mine']);
    const own = await lrs('POST', '/statements', { auth: mine, body: statement() });
    await lrs('POST', '/statements', { body: statement() });
    const listed = await lrs('GET', '/statements', { auth: mine });
    expect(listed.body.statements.map((s: { id: string }) => s.id)).toEqual(own.body);
  });
});

describe('statements', () => {
  it('stores a PUT statement once: the same again is 204, a different one 409', async () => {
    const id = randomUUID();
    const body = statement();
    expect((await lrs('PUT', '/statements', { query: { statementId: id }, body })).status).toBe(204);
    expect((await lrs('PUT', '/statements', { query: { statementId: id }, body })).status).toBe(204);
    const other = { ...body, verb: { id: 'http://adlnet.gov/expapi/verbs/attempted' } };
    expect((await lrs('PUT', '/statements', { query: { statementId: id }, body: other })).status).toBe(409);
    const read = await lrs('GET', '/statements', { query: { statementId: id } });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id, verb: body.verb, version: '1.0.0' });
    expect(read.body.stored).toBeDefined();
    expect(read.body.authority.account.name).toBeDefined();
    expect(read.headers.get('last-modified')).toBeTruthy();
    expect(read.headers.get('x-experience-api-consistent-through')).toBeTruthy();
  });

  it.each([
    ['an unknown property', { foo: 1 }],
    ['a bad mbox', { actor: { mbox: 'learner@example.com' } }],
    ['two identifiers', { actor: { mbox: 'mailto:a@example.com', openid: 'http://a.example.com' } }],
    ['a verb id that is not an IRI', { verb: { id: 'completed' } }],
    ['a bad language map', { verb: { id: 'http://x.example.com/v', display: { 'not a tag': 'x' } } }],
    ['a scaled score out of range', { result: { score: { scaled: 1.5 } } }],
    ['raw above max', { result: { score: { raw: 11, min: 0, max: 10 } } }],
    ['a bad duration', { result: { duration: '3 minutes' } }],
    ['a timestamp without a zone', { timestamp: '2026-01-01T10:00:00' }],
    ['a timestamp with -00:00', { timestamp: '2026-01-01T10:00:00-00:00' }],
    ['a registration that is no UUID', { context: { registration: 'abc' } }],
    [
      'platform with an Agent object',
      { object: { objectType: 'Agent', mbox: 'mailto:b@example.com' }, context: { platform: 'x' } },
    ],
    ['a null', { result: null }],
    ['a bad version', { version: '0.9' }],
    ['voiding without a StatementRef', { verb: { id: 'http://adlnet.gov/expapi/verbs/voided' } }],
    [
      'a SubStatement in a SubStatement',
      {
        object: {
          objectType: 'SubStatement',
          actor: { mbox: 'mailto:c@example.com' },
          verb: { id: 'http://x.example.com/v' },
          object: { objectType: 'SubStatement' },
        },
      },
    ],
  ])('refuses %s with 400 and the reason', async (_, change) => {
    const answer = await lrs('POST', '/statements', { body: statement(change) });
    expect(answer.status).toBe(400);
    expect(answer.body.message).toMatch(/statement\./);
  });

  it('stores a batch all or nothing', async () => {
    const registration = randomUUID();
    const good = statement({ context: { registration } });
    const bad = statement({ context: { registration }, result: { success: 'yes' } });
    expect((await lrs('POST', '/statements', { body: [good, bad] })).status).toBe(400);
    expect((await lrs('GET', '/statements', { query: { registration } })).body.statements).toEqual([]);
    const batch = Array.from({ length: 30 }, () => statement({ context: { registration } }));
    const stored = await lrs('POST', '/statements', { body: batch });
    expect(stored.status).toBe(200);
    expect(stored.body).toHaveLength(30);
    const read = await lrs('GET', '/statements', { query: { registration, ascending: 'true' } });
    expect(read.body.statements.map((s: { id: string }) => s.id)).toEqual(stored.body);
    const repeated = randomUUID();
    const twice = [statement({ id: repeated }), statement({ id: repeated })];
    expect((await lrs('POST', '/statements', { body: twice })).status).toBe(400);
  });

  it('stores batches of 100, several at once', async () => {
    const registration = randomUUID();
    const parent = { parent: [{ id: 'http://example.com/course/batch' }] };
    const batch = () =>
      Array.from({ length: 100 }, () => statement({ context: { registration, contextActivities: parent } }));
    const answers = await Promise.all([1, 2, 3].map(() => lrs('POST', '/statements', { body: batch() })));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
    const read = await lrs('GET', '/statements', { query: { registration, limit: 500 } });
    expect(read.body.statements).toHaveLength(300);
  });

  it('filters by agent, verb, activity and related ones, pages with more, and since/until', async () => {
    const agent = { mbox: `mailto:filter-${randomUUID()}@example.com` };
    const activity = `http://example.com/activities/${randomUUID()}`;
    const parent = `http://example.com/courses/${randomUUID()}`;
    const first = statement({ actor: agent, object: { id: activity } });
    const second = statement({ actor: agent, context: { contextActivities: { parent: [{ id: parent }] } } });
    const third = statement({ actor: agent, verb: { id: 'http://adlnet.gov/expapi/verbs/passed' } });
    const ids: string[] = [];
    for (const s of [first, second, third]) ids.push((await lrs('POST', '/statements', { body: s })).body[0]);
    const byAgent = await lrs('GET', '/statements', { query: { agent: JSON.stringify(agent) } });
    expect(byAgent.body.statements.map((s: { id: string }) => s.id)).toEqual([...ids].reverse());
    const byVerb = await lrs('GET', '/statements', {
      query: { agent: JSON.stringify(agent), verb: 'http://adlnet.gov/expapi/verbs/passed' },
    });
    expect(byVerb.body.statements.map((s: { id: string }) => s.id)).toEqual([ids[2]]);
    expect((await lrs('GET', '/statements', { query: { activity } })).body.statements).toHaveLength(1);
    expect((await lrs('GET', '/statements', { query: { activity: parent } })).body.statements).toHaveLength(0);
    const related = await lrs('GET', '/statements', { query: { activity: parent, related_activities: 'true' } });
    expect(related.body.statements.map((s: { id: string }) => s.id)).toEqual([ids[1]]);

    const page = await lrs('GET', '/statements', { query: { agent: JSON.stringify(agent), limit: 2 } });
    expect(page.body.statements).toHaveLength(2);
    expect(page.body.more).toMatch(/^\/xapi\/statements\?more=/);
    const next = await site('GET', page.body.more, { headers: { ...V, authorization: basic } });
    expect(next.body.statements.map((s: { id: string }) => s.id)).toEqual([ids[0]]);
    expect(next.body.more).toBe('');

    const stored = (await lrs('GET', '/statements', { query: { statementId: ids[1] } })).body.stored;
    const since = await lrs('GET', '/statements', { query: { agent: JSON.stringify(agent), since: stored } });
    expect(since.body.statements.map((s: { id: string }) => s.id)).toEqual([ids[2]]);
    const until = await lrs('GET', '/statements', { query: { agent: JSON.stringify(agent), until: stored } });
    expect(until.body.statements.map((s: { id: string }) => s.id)).toEqual([ids[1], ids[0]]);
    expect((await lrs('GET', '/statements', { query: { unknown: '1' } })).status).toBe(400);
  });

  it('voids a statement: gone from queries and by id, found by voidedStatementId; a voiding statement cannot be voided', async () => {
    const target = (await lrs('POST', '/statements', { body: statement() })).body[0];
    const voiding = statement({
      verb: { id: 'http://adlnet.gov/expapi/verbs/voided' },
      object: { objectType: 'StatementRef', id: target },
    });
    const voidId = (await lrs('POST', '/statements', { body: voiding })).body[0];
    expect((await lrs('GET', '/statements', { query: { statementId: target } })).status).toBe(404);
    const voided = await lrs('GET', '/statements', { query: { voidedStatementId: target } });
    expect(voided.status).toBe(200);
    expect(voided.body.id).toBe(target);
    const again = statement({
      verb: { id: 'http://adlnet.gov/expapi/verbs/voided' },
      object: { objectType: 'StatementRef', id: voidId },
    });
    expect((await lrs('POST', '/statements', { body: again })).status).toBe(400);
  });

  it('answers format=ids and canonical', async () => {
    const body = statement({
      verb: { id: 'http://x.example.com/v', display: { 'en-US': 'did', 'fr-FR': 'a fait' } },
      object: { id: 'http://x.example.com/a', definition: { name: { 'en-US': 'A' } } },
    });
    const id = (await lrs('POST', '/statements', { body })).body[0];
    const ids = await lrs('GET', '/statements', { query: { statementId: id, format: 'ids' } });
    expect(ids.body.verb).toEqual({ id: 'http://x.example.com/v' });
    expect(ids.body.object).toEqual({ id: 'http://x.example.com/a' });
    expect(ids.body.actor.name).toBeUndefined();
    const canonical = await lrs('GET', '/statements', {
      query: { statementId: id, format: 'canonical' },
      headers: { 'accept-language': 'fr-FR' },
    });
    expect(canonical.body.verb.display).toEqual({ 'fr-FR': 'a fait' });
  });

  it('takes attachments as multipart/mixed and gives them back with attachments=true', async () => {
    const content = Buffer.from('certificate of completion');
    const sha2 = createHash('sha256').update(content).digest('hex');
    const body = statement({
      attachments: [
        {
          usageType: 'http://example.com/attachment-usage/certificate',
          display: { 'en-US': 'Certificate' },
          contentType: 'text/plain',
          length: content.length,
          sha2,
        },
      ],
    });
    const missing = await lrs('POST', '/statements', { body });
    expect(missing.status).toBe(400);
    const boundary = 'abcABC0123';
    const multipart = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Type: application/json\r\n\r\n${JSON.stringify(body)}\r\n`),
      Buffer.from(`--${boundary}\r\nContent-Type: text/plain\r\nContent-Transfer-Encoding: binary\r\n`),
      Buffer.from(`X-Experience-API-Hash: ${sha2}\r\n\r\n`),
      content,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const stored = await lrs('POST', '/statements', {
      rawBody: multipart,
      headers: { 'content-type': `multipart/mixed; boundary=${boundary}` },
    });
    expect(stored.status).toBe(200);
    const read = await lrs('GET', '/statements', { query: { statementId: stored.body[0], attachments: 'true' } });
    expect(read.headers.get('content-type')).toMatch(/^multipart\/mixed; boundary=/);
    expect(read.text).toContain('certificate of completion');
    expect(read.text.toLowerCase()).toContain(`x-experience-api-hash: ${sha2}`);
  });
});

describe('signed statements', () => {
  function jws(payload: unknown, alg = 'RS256'): string {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const head = Buffer.from(JSON.stringify({ alg })).toString('base64url');
    const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
    const signature = createSign('RSA-SHA256').update(`${head}.${body}`).sign(privateKey).toString('base64url');
    return `${head}.${body}.${signature}`;
  }

  async function postSigned(signed: Record<string, unknown>, token: string) {
    const bytes = Buffer.from(token);
    const sha2 = createHash('sha256').update(bytes).digest('hex');
    const body = {
      ...signed,
      attachments: [
        {
          usageType: 'http://adlnet.gov/expapi/attachments/signature',
          display: { 'en-US': 'Signature' },
          contentType: 'application/octet-stream',
          length: bytes.length,
          sha2,
        },
      ],
    };
    const boundary = 'signed0123';
    return lrs('POST', '/statements', {
      rawBody: Buffer.concat([
        Buffer.from(`--${boundary}\r\nContent-Type: application/json\r\n\r\n${JSON.stringify(body)}\r\n`),
        Buffer.from(
          `--${boundary}\r\nContent-Type: application/octet-stream\r\nX-Experience-API-Hash: ${sha2}\r\n\r\n`,
        ),
        bytes,
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]),
      headers: { 'content-type': `multipart/mixed; boundary=${boundary}` },
    });
  }

  it('takes a JWS whose payload is the statement, and refuses another payload or algorithm', async () => {
    const signed = statement({ id: randomUUID() });
    expect((await postSigned(signed, jws(signed))).status).toBe(200);
    const other = statement({ id: randomUUID() });
    const mismatch = await postSigned(other, jws(statement()));
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.message).toMatch(/payload/);
    expect((await postSigned(other, jws(other, 'HS256'))).status).toBe(400);
    expect((await postSigned(other, 'not.a-jws')).status).toBe(400);
    // A payload segment with a character outside base64url is refused, not decoded around it.
    const [head, body, signature] = jws(other).split('.');
    const stray = await postSigned(other, `${head}.${body!.slice(0, 8)}*${body!.slice(8)}.${signature}`);
    expect(stray.status).toBe(400);
    expect(stray.body.message).toMatch(/payload is not base64url JSON/);
  });

  it('verifies a JWS against its x5c certificate, RS384 and RS512 alike, and refuses a forged one', async () => {
    const signedWith = (payload: unknown, alg: string, key: string) => {
      const head = Buffer.from(JSON.stringify({ alg, x5c: [SIGNER_X5C] })).toString('base64url');
      const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
      const signature = createSign(`RSA-SHA${alg.slice(2)}`)
        .update(`${head}.${body}`)
        .sign(key);
      return `${head}.${body}.${signature.toString('base64url')}`;
    };
    for (const alg of ['RS384', 'RS512']) {
      const signed = statement({ id: randomUUID() });
      const answer = await postSigned(signed, signedWith(signed, alg, SIGNER_KEY));
      expect(answer.status, answer.text).toBe(200);
    }
    const forged = statement({ id: randomUUID() });
    const otherKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({
      type: 'pkcs8',
      format: 'pem',
    });
    const refused = await postSigned(forged, signedWith(forged, 'RS256', String(otherKey)));
    expect([refused.status, refused.body.message]).toEqual([400, expect.stringMatching(/x5c certificate/)]);
  });
});

describe('documents', () => {
  const activityId = `http://example.com/activities/${randomUUID()}`;
  const agent = JSON.stringify({ mbox: 'mailto:docs@example.com' });

  it('keeps state with ETags, merges JSON on POST, lists ids since, and deletes all', async () => {
    const query = { activityId, agent, stateId: 'bookmark' };
    expect((await lrs('PUT', '/activities/state', { query, body: { page: 1 } })).status).toBe(204);
    expect((await lrs('POST', '/activities/state', { query, body: { done: false } })).status).toBe(204);
    const read = await lrs('GET', '/activities/state', { query });
    expect(read.body).toEqual({ page: 1, done: false });
    const etag = read.headers.get('etag');
    expect(etag).toMatch(/^"[0-9a-f]{40}"$/);
    const stale = await lrs('PUT', '/activities/state', { query, body: {}, headers: { 'if-match': '"0000"' } });
    expect(stale.status).toBe(412);
    const fresh = await lrs('PUT', '/activities/state', { query, body: { page: 2 }, headers: { 'if-match': etag! } });
    expect(fresh.status).toBe(204);
    const plain = await lrs('PUT', '/activities/state', {
      query: { activityId, agent, stateId: 'notes' },
      rawBody: 'plain text',
      headers: { 'content-type': 'text/plain' },
    });
    expect(plain.status).toBe(204);
    const merge = await lrs('POST', '/activities/state', {
      query: { activityId, agent, stateId: 'notes' },
      body: { a: 1 },
    });
    expect(merge.status).toBe(400);
    const ids = await lrs('GET', '/activities/state', { query: { activityId, agent } });
    expect(ids.body.sort()).toEqual(['bookmark', 'notes']);
    const future = await lrs('GET', '/activities/state', {
      query: { activityId, agent, since: '2999-01-01T00:00:00Z' },
    });
    expect(future.body).toEqual([]);
    expect((await lrs('DELETE', '/activities/state', { query: { activityId, agent } })).status).toBe(204);
    expect((await lrs('GET', '/activities/state', { query })).status).toBe(404);
  });

  it('needs a precondition to overwrite a profile (409), and honours If-None-Match', async () => {
    const query = { agent, profileId: `profile-${randomUUID()}` };
    const created = await lrs('PUT', '/agents/profile', { query, body: { x: 1 }, headers: { 'if-none-match': '*' } });
    expect(created.status).toBe(204);
    expect((await lrs('PUT', '/agents/profile', { query, body: { x: 2 } })).status).toBe(409);
    const exists = await lrs('PUT', '/agents/profile', { query, body: { x: 2 }, headers: { 'if-none-match': '*' } });
    expect(exists.status).toBe(412);
    const activityProfile = await lrs('PUT', '/activities/profile', {
      query: { activityId, profileId: 'p' },
      body: {},
    });
    expect(activityProfile.status).toBe(204);
    expect((await lrs('GET', '/activities/profile', { query: { activityId } })).body).toEqual(['p']);
    expect((await lrs('GET', '/activities/state', { query: { activityId } })).status).toBe(400);
  });

  it('keeps a document too large for its item in the bucket, and removes it with the document', async () => {
    const query = { activityId, agent, stateId: `large-${randomUUID()}` };
    const large = Buffer.alloc(300 * 1024, 'x');
    const headers = { 'content-type': 'application/octet-stream' };
    expect((await lrs('PUT', '/activities/state', { query, rawBody: large, headers })).status).toBe(204);
    const read = await lrs('GET', '/activities/state', { query });
    expect(read.status).toBe(200);
    expect(read.text.length).toBe(large.length);
    expect(read.headers.get('etag')).toBe(`"${createHash('sha1').update(large).digest('hex')}"`);
    expect((await lrs('DELETE', '/activities/state', { query })).status).toBe(204);
    expect((await lrs('GET', '/activities/state', { query })).status).toBe(404);
    const tooLarge = await lrs('PUT', '/activities/state', {
      query,
      rawBody: Buffer.alloc(5 * 1024 * 1024 + 1),
      headers,
    });
    expect(tooLarge.status).toBe(413);
  });

  it('answers activities with their definition and agents as a Person', async () => {
    const id = `http://example.com/activities/${randomUUID()}`;
    await lrs('POST', '/statements', { body: statement({ object: { id, definition: { name: { en: 'Torque' } } } }) });
    const activity = await lrs('GET', '/activities', { query: { activityId: id } });
    expect(activity.body).toEqual({ objectType: 'Activity', id, definition: { name: { en: 'Torque' } } });
    const person = await lrs('GET', '/agents', { query: { agent } });
    // The Person aggregates what the LRS knows: the mbox's sha1sum, and the names seen with it.
    expect(person.body).toEqual({
      objectType: 'Person',
      mbox: ['mailto:docs@example.com'],
      mbox_sha1sum: [createHash('sha1').update('mailto:docs@example.com').digest('hex')],
    });
    const named = { mbox: `mailto:named-${randomUUID()}@example.com` };
    await lrs('POST', '/statements', {
      body: [statement({ actor: { ...named, name: 'Ada' } }), statement({ actor: { ...named, name: 'Ada L.' } })],
    });
    const known = await lrs('GET', '/agents', { query: { agent: JSON.stringify(named) } });
    expect(known.body.name.sort()).toEqual(['Ada', 'Ada L.']);
  });
});

describe('the alternate request syntax', () => {
  it('takes a form POST with method=PUT carrying headers and content', async () => {
    const id = randomUUID();
    const form = new URLSearchParams({
      Authorization: basic,
      'X-Experience-API-Version': '1.0.3',
      'Content-Type': 'application/json',
      content: JSON.stringify(statement()),
      statementId: id,
    });
    const answer = await site('POST', '/xapi/statements?method=PUT', {
      rawBody: form.toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(answer.status).toBe(204);
    expect((await lrs('GET', '/statements', { query: { statementId: id } })).status).toBe(200);
  });
});
