/**
 * Hostile input at the boundary (issue 12 items 1, 4, 5): lone UTF-16 surrogates are refused
 * with 422 on their field before anything is stored, records stored with one before the fix
 * still read back, offsets and nesting depth are bounded, numbers are finite and in range.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { api, createUser, loginAdmin, uniqueSuffix, type TestUser } from '../support/api.ts';
import { createWiki } from '../support/wikis.ts';
import { category, createGuide } from './guide-fixtures.ts';
import { importQuiz } from './quiz-fixtures.ts';
import { localDb } from '../support/local-db.ts';

/** JSON.stringify writes it as the escape `\ud800`, which JSON.parse turns back into a lone surrogate. */
const LONE = 'x\ud800';

let admin: string;
let user: TestUser;

beforeAll(async () => {
  admin = await loginAdmin();
  user = await createUser();
});

function expect422On(response: { status: number; body: any; text: string }, field: string, code = 'invalid_unicode') {
  expect(response.status, response.text).toBe(422);
  expect(response.body.errors).toContainEqual(expect.objectContaining({ field, code }));
}

describe('lone surrogates are refused before anything is stored', () => {
  it('PATCH /users/{self} username: 422, the username stays, the user reads, lists, searches and logs in', async () => {
    const before = await api('GET', `/users/${user.userid}`, { token: admin });
    const patched = await api('PATCH', `/users/${user.userid}`, { token: user.token, body: { username: LONE } });
    expect422On(patched, 'username');
    const after = await api('GET', `/users/${user.userid}`, { token: admin });
    expect(after.status).toBe(200);
    expect(after.body.username).toBe(before.body.username);
    expect((await api('GET', '/users', { token: admin })).status).toBe(200);
    expect(
      (await api('GET', `/users/search/${encodeURIComponent(before.body.username)}`, { token: admin })).status,
    ).toBe(200);
    expect((await api('POST', '/user/token', { body: { email: user.email, password: user.password } })).status).toBe(
      201,
    );
  });

  it('[[links]] in about text: 422 on about_raw', async () => {
    const patched = await api('PATCH', `/users/${user.userid}`, {
      token: user.token,
      body: { about_raw: `See [[${LONE}]]` },
    });
    expect422On(patched, 'about_raw');
  });

  it('POST /users with a lone surrogate in the username: 422, no user', async () => {
    const email = `lone.${uniqueSuffix()}@example.com`;
    const created = await api('POST', '/users', {
      token: admin,
      body: { email, username: LONE, password: `pw-${uniqueSuffix()}-Secret` },
    });
    expect422On(created, 'username');
    expect((await api('GET', `/users/email/${encodeURIComponent(email)}`, { token: admin })).status).toBe(404);
  });

  it('POST /wikis with a lone surrogate in the title or in a [[link]]: 422, no page', async () => {
    const title = `${LONE} ${uniqueSuffix()}`;
    expect422On(
      await api('POST', '/wikis', { token: admin, body: { namespace: 'WIKI', title, contents: 'Text.' } }),
      'title',
    );
    expect422On(
      await api('POST', '/wikis', {
        token: admin,
        body: { namespace: 'WIKI', title: `Ok ${uniqueSuffix()}`, contents: `See [[${LONE}]].` },
      }),
      'contents',
    );
    const list = await api('GET', '/wikis/WIKI', { token: admin, query: { display: 'titles', limit: 200 } });
    expect(list.status).toBe(200);
  });

  it('PATCH /wikis with a lone surrogate in the title: 422, the page keeps its title', async () => {
    const page = await createWiki();
    const patched = await api('PATCH', `/wikis/WIKI/${encodeURIComponent(page.title)}`, {
      token: admin,
      query: { revisionid: page.revisionid },
      body: { title: LONE },
    });
    expect422On(patched, 'title');
    expect((await api('GET', `/wikis/WIKI/${encodeURIComponent(page.title)}`, { token: admin })).status).toBe(200);
  });

  it('POST /courses and POST /guides with a lone surrogate in the title: 422', async () => {
    expect422On(
      await api('POST', '/courses', { token: admin, body: { title: LONE, contents: 'x', stages: [] } }),
      'title',
    );
    expect422On(
      await api('POST', '/guides', { token: admin, body: { category: await category(), type: 'how-to', title: LONE } }),
      'title',
    );
  });

  it('POST /work_log with a lone surrogate workorderid: 422; the work log lists', async () => {
    const guide = await createGuide(admin);
    expect422On(
      await api('POST', '/work_log', { token: user.token, body: { guideid: guide.guideid, workorderid: LONE } }),
      'workorderid',
    );
    expect((await api('GET', '/work_log', { token: admin })).status).toBe(200);
  });

  it('a lone surrogate in a key or deep in an array is named by its path', async () => {
    const response = await api('POST', '/wikis', {
      token: admin,
      body: { namespace: 'WIKI', title: 'T', contents: 'x', flags: ['ok', LONE], [LONE]: 1 },
    });
    expect(response.status).toBe(422);
    const fields = response.body.errors.map((error: { field: string }) => error.field);
    expect(fields).toContain('flags.1');
    expect(fields).toContain('x\ufffd');
    // The error body itself is well-formed: the bad key is echoed with U+FFFD.
    expect(response.text.includes('\\ud800')).toBe(false);
  });

  it('a lone surrogate inside JSON text of a field (quiz response_json) is a 422 on that field', async () => {
    const quiz = await importQuiz();
    const saved = await api('POST', '/quizzes/sessions/save', {
      token: user.token,
      body: { quizid: quiz.quizid, response_json: JSON.stringify({ device: LONE }) },
    });
    expect422On(saved, 'response_json.device');
  });
});

describe('records stored with a lone surrogate before the fix read back', () => {
  it('a user whose username has one: the user reads, lists and logs in', async () => {
    const poisoned = await createUser();
    await localDb().send(
      new UpdateCommand({
        TableName: 'stepwise',
        Key: { pk: `USER#${poisoned.userid}`, sk: 'USER' },
        UpdateExpression: 'SET username = :name',
        ExpressionAttributeValues: { ':name': LONE },
      }),
    );
    const stored = await localDb().send(
      new GetCommand({ TableName: 'stepwise', Key: { pk: `USER#${poisoned.userid}`, sk: 'USER' } }),
    );
    expect(stored.Item?.username).toBe(LONE);

    const read = await api('GET', `/users/${poisoned.userid}`, { token: admin });
    expect(read.status).toBe(200);
    expect(read.body.url).toContain('x%EF%BF%BD');
    expect((await api('GET', '/users', { token: admin, query: { order: 'DESC' } })).status).toBe(200);
    expect((await api('GET', '/user', { token: poisoned.token })).status).toBe(200);
    expect(
      (await api('POST', '/user/token', { body: { email: poisoned.email, password: poisoned.password } })).status,
    ).toBe(201);
  });

  it('a wiki page whose title has one: the list reads and an Admin deletes it by wikiid', async () => {
    const page = await createWiki();
    await localDb().send(
      new UpdateCommand({
        TableName: 'stepwise',
        Key: { pk: `WIKI#${page.wikiid}`, sk: 'WIKI' },
        UpdateExpression: 'SET title = :title',
        ExpressionAttributeValues: { ':title': LONE },
      }),
    );
    expect((await api('GET', '/wikis/WIKI', { token: admin, query: { limit: 200 } })).status).toBe(200);

    expect(
      (await api('DELETE', `/wikis/id/${page.wikiid}`, { token: user.token, query: { revisionid: page.revisionid } }))
        .status,
    ).toBe(403);
    expect422On(await api('DELETE', `/wikis/id/${page.wikiid}`, { token: admin }), 'revisionid', 'missing_field');
    expect(
      (await api('DELETE', `/wikis/id/${page.wikiid}`, { token: admin, query: { revisionid: page.revisionid + 1000 } }))
        .status,
    ).toBe(409);
    const deleted = await api('DELETE', `/wikis/id/${page.wikiid}`, {
      token: admin,
      query: { revisionid: page.revisionid },
    });
    expect(deleted.status, deleted.text).toBe(204);
    const gone = await localDb().send(
      new GetCommand({ TableName: 'stepwise', Key: { pk: `WIKI#${page.wikiid}`, sk: 'WIKI' } }),
    );
    expect(gone.Item).toBeUndefined();
    expect(
      (await api('DELETE', `/wikis/id/${page.wikiid}`, { token: admin, query: { revisionid: page.revisionid } }))
        .status,
    ).toBe(404);
  });
});

describe('offsets, nesting and numbers are bounded', () => {
  it('offset 2^31 is a 422 on offset; 100000 is served', async () => {
    const huge = await api('GET', '/users', { token: admin, query: { offset: 2 ** 31 } });
    expect422On(huge, 'offset', 'custom');
    expect((await api('GET', '/users', { token: admin, query: { offset: 100000 } })).status).toBe(200);
    expect((await api('GET', '/users', { token: admin, query: { offset: 100001 } })).status).toBe(422);
  });

  it('a page past item 100000 is a 422 on page (courses, course assignees)', async () => {
    expect422On(
      await api('GET', '/courses', { token: admin, query: { page: 999999999, pageSize: 200 } }),
      'page',
      'custom',
    );
    expect((await api('GET', '/courses', { token: admin, query: { page: 2, pageSize: 200 } })).status).toBe(200);
  });

  it('JSON nested 10,000 deep is a 422 on body, decided before parsing', async () => {
    const deep = `{"quizid": 1, "response_json": ${'['.repeat(10_000)}${']'.repeat(10_000)}}`;
    const response = await api('POST', '/quizzes/sessions/save', { token: user.token, rawBody: deep });
    expect422On(response, 'body', 'too_deep');
    // Brackets inside strings do not count.
    const flat = await api('POST', '/wikis', {
      token: admin,
      body: { namespace: 'WIKI', title: `Brackets ${uniqueSuffix()}`, contents: '['.repeat(10_000) },
    });
    expect(flat.status, flat.text).toBe(201);
  });

  it('JSON text nested 10,000 deep inside response_json is a 422 on that field', async () => {
    const quiz = await importQuiz();
    const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
    expect422On(
      await api('POST', '/quizzes/sessions/save', {
        token: user.token,
        body: { quizid: quiz.quizid, response_json: deep },
      }),
      'response_json',
      'too_deep',
    );
  });

  it('parts[].quantity 1e300 is a 422 on that field; a sane quantity is stored', async () => {
    const guide = await createGuide(admin);
    const huge = await api('PATCH', `/guides/${guide.guideid}`, {
      token: admin,
      query: { revisionid: guide.revisionid },
      rawBody: '{"parts": [{"text": "Bolt", "quantity": 1e300}]}',
    });
    expect(huge.status, huge.text).toBe(422);
    expect(huge.body.errors[0].field).toBe('parts.0.quantity');
    const fine = await api('PATCH', `/guides/${guide.guideid}`, {
      token: admin,
      query: { revisionid: guide.revisionid },
      body: { parts: [{ text: 'Bolt', quantity: 2.5 }] },
    });
    expect(fine.status, fine.text).toBe(200);
  });
});
