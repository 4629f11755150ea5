/** Quizzes: import (survey-core checks), read, delete, attach to guides and wikis, v1/v2 lists, categories. */
import { describe, expect, it } from 'vitest';
import { api, createUser, loginAdmin, uniqueSuffix } from '../support/api.ts';
import { createWiki } from '../support/wikis.ts';
import { createGuide } from './guide-fixtures.ts';
import { importQuiz, safetyQuiz } from './quiz-fixtures.ts';

const LIST_FIELDS = [
  'category',
  'guide_release_version',
  'guide_title',
  'guideid',
  'quiz_last_released',
  'quiz_title',
  'quizid',
  'quizzes_submitted',
];

async function attachGuide(quizid: number, guide: { guideid: number; revisionid: number }) {
  const response = await api('POST', '/quizzes/attach/guide', {
    token: await loginAdmin(),
    query: { revisionid: guide.revisionid },
    body: { quizid, guideid: guide.guideid },
  });
  expect(response.status).toBe(201);
  return response.body;
}

describe('POST /quizzes/import', () => {
  it('creates a quiz (201) and its first revision; GET returns the definition with questionOrder', async () => {
    const author = await createUser({ privileges: ['Author'] });
    const created = await importQuiz({ category: 'Safety', pass_threshold: 75, max_attempts: 2 }, author.token);
    expect(created).toMatchObject({
      category: 'Safety',
      pass_threshold: 75,
      max_attempts: 2,
      enabled: true,
      question_count: 4,
      questionOrder: 'initial',
    });
    expect(created.quiz_revisionid).toBeGreaterThan(0);
    const read = await api('GET', `/quizzes/${created.quizid}`, { token: author.token });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      quizid: created.quizid,
      quiz_revisionid: created.quiz_revisionid,
      questionOrder: 'initial',
      title: created.quiz_title,
    });
    expect(read.body).not.toHaveProperty('questionsOrder');
    expect(read.body.pages[0]).toMatchObject({ questionOrder: 'random' });
    expect(read.body.pages[0]).not.toHaveProperty('questionsOrder');
    expect(read.body.pages[0].elements[0].correctAnswer).toBe('Notify');
  });

  it('shows plain users the definition without the answer key', async () => {
    const { quizid } = await importQuiz();
    const user = await createUser();
    const read = await api('GET', `/quizzes/${quizid}`, { token: user.token });
    expect(read.status).toBe(200);
    expect(read.text).not.toContain('correctAnswer');
    expect(read.body.pages[0].elements).toHaveLength(5);
  });

  it('accepts the definition as JSON text, or the body as the definition itself', async () => {
    const asText = await api('POST', '/quizzes/import', {
      token: await loginAdmin(),
      body: { definition: JSON.stringify(safetyQuiz('As text')) },
    });
    expect(asText.status).toBe(201);
    expect(asText.body.quiz_title).toBe('As text');
    const asBody = await api('POST', '/quizzes/import', {
      token: await loginAdmin(),
      body: { ...safetyQuiz('As body'), category: 'Bodies' },
    });
    expect(asBody.status).toBe(201);
    expect(asBody.body).toMatchObject({ quiz_title: 'As body', category: 'Bodies' });
    expect(asBody.body).not.toHaveProperty('category', undefined);
  });

  it('refuses invalid documents with the reason (422)', async () => {
    const token = await loginAdmin();
    const cases: Array<[unknown, string]> = [
      [{ elements: [{ type: 'text', correctAnswer: 'a' }] }, 'requiredproperty'],
      [
        {
          elements: [
            { type: 'text', name: 'q', correctAnswer: 'a' },
            { type: 'text', name: 'q' },
          ],
        },
        'name/duplicate',
      ],
      [{ elements: [{ type: 'radiogroup', name: 'q', choices: ['a'], correctAnswer: 'z' }] }, 'value/not-a-choice'],
      [{ elements: [{ type: 'comment', name: 'q' }] }, 'no_graded_question'],
      [
        { elements: [{ type: 'matrix', name: 'm', rows: ['r'], columns: ['c'], correctAnswer: { r: 'c' } }] },
        'ungradable',
      ],
      ['{"pages": [', 'invalid'],
      [[1, 2], 'invalid'],
    ];
    for (const [definition, code] of cases) {
      const response = await api('POST', '/quizzes/import', { token, body: { definition, quiz_title: 'Bad' } });
      expect(response.status, JSON.stringify(definition)).toBe(422);
      expect(response.body.errors.map((error: { code: string }) => error.code)).toContain(code);
      expect(response.body.message).toBeTruthy();
    }
    const untitled = await api('POST', '/quizzes/import', {
      token,
      body: { definition: { elements: [{ type: 'boolean', name: 'b', correctAnswer: true }] } },
    });
    expect(untitled.status).toBe(422);
    expect(untitled.body.errors[0]).toMatchObject({ field: 'quiz_title', code: 'missing_field' });
    const empty = await api('POST', '/quizzes/import', { token, body: { category: 'x' } });
    expect(empty.body.errors[0]).toMatchObject({ field: 'definition', code: 'missing_field' });
    const threshold = await api('POST', '/quizzes/import', {
      token,
      body: { definition: safetyQuiz(), pass_threshold: 101 },
    });
    expect(threshold.status).toBe(422);
  });
});

describe('GET /quizzes/{quizid}', () => {
  it('404 for an unknown quiz; a disabled quiz only for Authors and Admins', async () => {
    const user = await createUser();
    expect((await api('GET', '/quizzes/999999999', { token: user.token })).status).toBe(404);
    const { quizid } = await importQuiz({ enabled: false });
    expect((await api('GET', `/quizzes/${quizid}`, { token: user.token })).status).toBe(403);
    expect((await api('GET', `/quizzes/${quizid}`, { token: await loginAdmin() })).body.enabled).toBe(false);
  });
});

describe('POST /quizzes/delete and GET /quizzes/categories', () => {
  it("deletes each valid id, reports the invalid; categories keep deleted and disabled quizzes' categories", async () => {
    const suffix = uniqueSuffix();
    const gone = await importQuiz({ category: `Deleted ${suffix}` });
    await importQuiz({ category: `Disabled ${suffix}`, enabled: false });
    const response = await api('POST', '/quizzes/delete', {
      token: await loginAdmin(),
      body: { quizids: [gone.quizid, 999999999, gone.quizid] },
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ deleted: [gone.quizid], invalid: [999999999] });
    expect((await api('GET', `/quizzes/${gone.quizid}`, { token: await loginAdmin() })).status).toBe(404);
    const again = await api('POST', '/quizzes/delete', {
      token: await loginAdmin(),
      body: { quizids: [gone.quizid] },
    });
    expect(again.body).toEqual({ deleted: [], invalid: [gone.quizid] });
    const categories = await api('GET', '/quizzes/categories', { token: await loginAdmin() });
    expect(categories.status).toBe(200);
    const names = categories.body.map((entry: { name: string }) => entry.name);
    expect(names).toEqual(expect.arrayContaining([`Deleted ${suffix}`, `Disabled ${suffix}`]));
    expect(Object.keys(categories.body[0])).toEqual(['name']);
  });

  it('refuses an empty id list (422)', async () => {
    expect((await api('POST', '/quizzes/delete', { token: await loginAdmin(), body: { quizids: [] } })).status).toBe(
      422,
    );
  });
});

describe('POST /quizzes/attach/guide', () => {
  it('makes a new guide revision and a guide quiz revision (new guide_revisionid, current quiz_revisionid)', async () => {
    const token = await loginAdmin();
    const guide = await createGuide(token);
    const quiz = await importQuiz();
    const attached = await attachGuide(quiz.quizid, guide);
    expect(attached).toMatchObject({
      quizid: quiz.quizid,
      quiz_revisionid: quiz.quiz_revisionid,
      doctype: 'guide',
      guideid: guide.guideid,
    });
    expect(attached.guide_revisionid).toBeGreaterThan(guide.revisionid);
    const after = await api('GET', `/guides/${guide.guideid}`, { token });
    expect(after.body.revisionid).toBe(attached.guide_revisionid);
    expect(after.body.title).toBe(guide.title);
  });

  it("needs the guide's current revisionid: missing 422, stale 409 with the current guide", async () => {
    const token = await loginAdmin();
    const guide = await createGuide(token);
    const { quizid } = await importQuiz();
    const missing = await api('POST', '/quizzes/attach/guide', { token, body: { quizid, guideid: guide.guideid } });
    expect(missing.status).toBe(422);
    expect(missing.body.errors[0]).toMatchObject({ field: 'revisionid', code: 'missing_field' });
    const first = await attachGuide(quizid, guide);
    const stale = await api('POST', '/quizzes/attach/guide', {
      token,
      query: { revisionid: guide.revisionid },
      body: { quizid, guideid: guide.guideid },
    });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ guideid: guide.guideid, revisionid: first.guide_revisionid });
  });

  it('404 for an unknown quiz or guide; 403 for an Author who may not edit the guide', async () => {
    const token = await loginAdmin();
    const guide = await createGuide(token);
    const { quizid } = await importQuiz();
    expect(
      (
        await api('POST', '/quizzes/attach/guide', {
          token,
          query: { revisionid: guide.revisionid },
          body: { quizid: 999999999, guideid: guide.guideid },
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await api('POST', '/quizzes/attach/guide', {
          token,
          query: { revisionid: 1 },
          body: { quizid, guideid: 999999999 },
        })
      ).status,
    ).toBe(404);
    const outsider = await createUser({ privileges: ['Author'] });
    const forbidden = await api('POST', '/quizzes/attach/guide', {
      token: outsider.token,
      query: { revisionid: guide.revisionid },
      body: { quizid, guideid: guide.guideid },
    });
    expect(forbidden.status).toBe(403);
  });
});

describe('POST /quizzes/attach/wiki', () => {
  it('saves a wiki quiz revision with the current wiki_revisionid and quiz_revisionid', async () => {
    const wiki = await createWiki();
    const quiz = await importQuiz();
    const response = await api('POST', '/quizzes/attach/wiki', {
      token: await loginAdmin(),
      body: { quizid: quiz.quizid, wikiid: wiki.wikiid },
    });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      quizid: quiz.quizid,
      quiz_revisionid: quiz.quiz_revisionid,
      doctype: 'wiki',
      wikiid: wiki.wikiid,
      wiki_revisionid: wiki.revisionid,
    });
    expect(
      (
        await api('POST', '/quizzes/attach/wiki', {
          token: await loginAdmin(),
          body: { quizid: quiz.quizid, wikiid: 999999999 },
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await api('POST', '/quizzes/attach/wiki', {
          token: await loginAdmin(),
          body: { quizid: 999999999, wikiid: wiki.wikiid },
        })
      ).status,
    ).toBe(404);
  });
});

describe('GET /quizzes (v2) and POST /quizzes/getQuizzes', () => {
  it("lists entries with exactly the spec's fields; category filter, search over quiz and guide titles, sorting, paging", async () => {
    const token = await loginAdmin();
    const category = `Cat ${uniqueSuffix()}`;
    const guide = await createGuide(token, { title: `Pump overhaul ${uniqueSuffix()}` });
    const a = await importQuiz({ definition: safetyQuiz('Alpha quiz'), category });
    const b = await importQuiz({ definition: safetyQuiz('Beta quiz'), category });
    const c = await importQuiz({ definition: safetyQuiz('Gamma quiz'), category });
    await attachGuide(b.quizid, guide);

    const byCategory = await api('GET', '/quizzes', {
      token,
      query: { category, orderby: 'quiz_title', direction: 'ASC' },
    });
    expect(byCategory.status).toBe(200);
    expect(byCategory.body.map((entry: { quizid: number }) => entry.quizid)).toEqual([a.quizid, b.quizid, c.quizid]);
    expect(Object.keys(byCategory.body[0]).sort()).toEqual(LIST_FIELDS);
    const beta = byCategory.body[1];
    expect(beta).toMatchObject({
      guideid: guide.guideid,
      guide_title: guide.title,
      guide_release_version: null,
      quizzes_submitted: 0,
      category,
    });
    expect(beta.quiz_last_released).toBeGreaterThan(0);
    expect(byCategory.body[0]).toMatchObject({ guideid: null, guide_title: null, quiz_last_released: null });

    const descending = await api('GET', '/quizzes', { token, query: { category, orderby: 'quiz_title' } });
    expect(descending.body.map((entry: { quizid: number }) => entry.quizid)).toEqual([c.quizid, b.quizid, a.quizid]);
    const paged = await api('GET', '/quizzes', {
      token,
      query: { category, orderby: 'quiz_title', direction: 'asc', limit: 1, offset: 1 },
    });
    expect(paged.body.map((entry: { quizid: number }) => entry.quizid)).toEqual([b.quizid]);
    const released = await api('GET', '/quizzes', { token, query: { category } });
    expect(released.body[0].quizid).toBe(b.quizid);

    const byGuideTitle = await api('GET', '/quizzes', {
      token,
      query: { search: guide.title.slice(0, 20).toUpperCase(), category },
    });
    expect(byGuideTitle.body.map((entry: { quizid: number }) => entry.quizid)).toEqual([b.quizid]);
    const byQuizTitle = await api('GET', '/quizzes', { token, query: { search: 'gamma', category } });
    expect(byQuizTitle.body.map((entry: { quizid: number }) => entry.quizid)).toEqual([c.quizid]);

    const v1 = await api('POST', '/quizzes/getQuizzes', {
      token,
      body: { category, orderby: 'guideid', direction: 'DESC', limit: 2 },
    });
    expect(v1.status).toBe(200);
    expect(v1.body).toMatchObject({ total: 3, limit: 2, offset: 0 });
    expect(v1.body.quizzes[0].quizid).toBe(b.quizid);
    const v1Guide = await api('POST', '/quizzes/getQuizzes', { token, body: { guideid: guide.guideid } });
    expect(v1Guide.body.quizzes.map((entry: { quizid: number }) => entry.quizid)).toEqual([b.quizid]);
  });

  it("reflects the guide's current title and latest release version", async () => {
    const token = await loginAdmin();
    const guide = await createGuide(token);
    const quiz = await importQuiz({ category: `Rel ${uniqueSuffix()}` });
    const attached = await attachGuide(quiz.quizid, guide);
    const release = await api('POST', '/guides/releases', {
      token,
      body: { guideid: guide.guideid, release_type: 'major', notes: 'first' },
    });
    expect(release.status).toBe(201);
    const renamed = await api('PATCH', `/guides/${guide.guideid}`, {
      token,
      query: { revisionid: attached.guide_revisionid },
      body: { title: `Renamed ${uniqueSuffix()}` },
    });
    expect(renamed.status).toBe(200);
    const list = await api('GET', '/quizzes', { token, query: { category: quiz.category as string } });
    expect(list.body[0]).toMatchObject({ guide_title: renamed.body.title, guide_release_version: '1.0' });
  });

  it('validates its parameters (422)', async () => {
    const token = await loginAdmin();
    expect((await api('GET', '/quizzes', { token, query: { direction: 'UP' } })).status).toBe(422);
    expect((await api('GET', '/quizzes', { token, query: { orderby: 'popularity' } })).status).toBe(422);
    expect((await api('GET', '/quizzes', { token, query: { limit: 0 } })).status).toBe(422);
    expect((await api('POST', '/quizzes/getQuizzes', { token, body: { offset: -1 } })).status).toBe(422);
  });

  it('publishes the v2 parameter names in the OpenAPI document', async () => {
    const openapi = await api('GET', '/openapi.json');
    const parameters = openapi.body.paths['/quizzes'].get.parameters.map(
      (parameter: { name: string }) => parameter.name,
    );
    expect(parameters).toEqual(
      expect.arrayContaining(['limit', 'offset', 'direction', 'orderby', 'category', 'search']),
    );
  });
});
