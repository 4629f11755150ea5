/**
 * The glossary exists only on sites with several languages. The shared test stack has one
 * (en), so it checks the refusal; a second, short-lived stack with STEPWISE_LANGUAGES=en,de
 * checks the glossary itself.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, apiAt, loginAdmin, uniqueSuffix } from '../support/api.ts';
import { startStackProcess, type RunningStack } from '../support/local-stack-process.ts';

describe('on a one-language site', () => {
  it('every glossary request is refused with 403 and a clear message', async () => {
    const admin = await loginAdmin();
    const list = await api('GET', '/translation_glossary/entries', { token: admin });
    expect(list.status).toBe(403);
    expect(list.body.message).toMatch(/several languages/);
    const put = await api('PUT', '/translation_glossary/entries', {
      token: admin,
      body: { entries: [{ term: 'wrench' }] },
    });
    expect(put.status).toBe(403);
    expect(put.body.message).toMatch(/several languages/);
    // No entry can exist here, so an entryid names nothing.
    expect((await api('DELETE', '/translation_glossary/entries/1', { token: admin })).status).toBe(404);
  });
});

describe('on a site with English and German', () => {
  let stack: RunningStack;
  let admin: string;
  let author: string;
  let user: string;

  /** A request to the second stack (through apiAt, so answers are checked against their response schemas). */
  function call(method: string, path: string, options: { token?: string; body?: unknown } = {}) {
    return apiAt(stack.url, method, path, options);
  }

  async function account(privileges: string[] | undefined) {
    const suffix = uniqueSuffix();
    const email = `g.${suffix}@example.com`;
    const password = `pw-${suffix}-Secret`;
    const created = await call('POST', '/users', {
      token: admin,
      body: { email, username: `G ${suffix}`, password, unique_username: `g_${suffix}` },
    });
    if (privileges) await call('PATCH', `/users/${created.body.userid}`, { token: admin, body: { privileges } });
    return (await call('POST', '/user/token', { body: { email, password } })).body.authToken as string;
  }

  beforeAll(async () => {
    stack = await startStackProcess({
      STEPWISE_LANGUAGES: 'en,de',
      STEPWISE_ADMIN_EMAIL: 'admin@example.com',
      STEPWISE_ADMIN_PASSWORD: 'stepwise-admin',
    });
    admin = (await call('POST', '/user/token', { body: { email: 'admin@example.com', password: 'stepwise-admin' } }))
      .body.authToken;
    [author, user] = await Promise.all([account(['Author']), account(undefined)]);
  }, 60_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('adds, changes and deletes entries in one request; GET lists them alphabetically', async () => {
    const added = await call('PUT', '/translation_glossary/entries', {
      token: author,
      body: {
        entries: [
          {
            term: 'Torque wrench',
            translations: [{ langid: 'de', translation: 'Drehmomentschlüssel' }],
            notes: 'Tool',
          },
          { term: 'bearing', translations: [{ langid: 'de', translation: 'Lager' }] },
          { term: 'obsolete' },
        ],
      },
    });
    expect(added.status).toBe(200);
    expect(added.body.saved).toHaveLength(3);
    const [wrench, bearing, obsolete] = added.body.saved;
    expect(wrench).toMatchObject({
      term: 'Torque wrench',
      langid: 'en',
      translations: [{ langid: 'de', translation: 'Drehmomentschlüssel' }],
      notes: 'Tool',
    });

    const listed = await call('GET', '/translation_glossary/entries', { token: user });
    expect(listed.status).toBe(200);
    expect(listed.body.map((entry: { term: string }) => entry.term)).toEqual(['bearing', 'obsolete', 'Torque wrench']);

    // One request: rename one entry, drop the other's only translation, delete the third.
    const changed = await call('PUT', '/translation_glossary/entries', {
      token: author,
      body: {
        entries: [
          { entryid: wrench.entryid, term: 'Torque spanner' },
          { entryid: bearing.entryid, translations: [] },
        ],
        delete: [obsolete.entryid],
      },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.deleted).toEqual([obsolete.entryid]);
    const after = await call('GET', '/translation_glossary/entries', { token: user });
    expect(after.body).toEqual([
      expect.objectContaining({ entryid: bearing.entryid, term: 'bearing', translations: [] }),
      expect.objectContaining({
        entryid: wrench.entryid,
        term: 'Torque spanner',
        translations: [{ langid: 'de', translation: 'Drehmomentschlüssel' }],
        notes: 'Tool',
      }),
    ]);
    // The old term is free again.
    const reused = await call('PUT', '/translation_glossary/entries', {
      token: author,
      body: { entries: [{ term: 'torque WRENCH' }] },
    });
    expect(reused.status).toBe(200);
  });

  it('is all or nothing: one bad change leaves everything as it was (422 names the field)', async () => {
    const first = await call('PUT', '/translation_glossary/entries', {
      token: author,
      body: { entries: [{ term: 'screw' }] },
    });
    const screw = first.body.saved[0];
    const failed = await call('PUT', '/translation_glossary/entries', {
      token: author,
      body: { entries: [{ term: 'nut' }, { term: 'SCREW' }], delete: [screw.entryid] },
    });
    // The delete of "screw" and the add of "SCREW" touch one term: refused before writing.
    expect(failed.status).toBe(422);
    const taken = await call('PUT', '/translation_glossary/entries', {
      token: author,
      body: { entries: [{ term: 'washer' }, { term: 'Screw' }] },
    });
    expect(taken.status).toBe(422);
    expect(taken.body.errors).toContainEqual(
      expect.objectContaining({ field: 'entries.1.term', code: 'already_exists' }),
    );
    const terms = (await call('GET', '/translation_glossary/entries', { token: user })).body.map(
      (entry: { term: string }) => entry.term,
    );
    expect(terms).toContain('screw');
    expect(terms).not.toContain('washer');
    expect(terms).not.toContain('nut');
  });

  it('validates translations, entryids and the request (422)', async () => {
    const put = (body: unknown) => call('PUT', '/translation_glossary/entries', { token: author, body });
    const english = await put({
      entries: [{ term: `t${uniqueSuffix()}`, translations: [{ langid: 'en', translation: 'x' }] }],
    });
    expect(english.body.errors[0]).toMatchObject({ field: 'entries.0.translations.0.langid', code: 'invalid' });
    const unknownLanguage = await put({
      entries: [{ term: `t${uniqueSuffix()}`, translations: [{ langid: 'fr', translation: 'x' }] }],
    });
    expect(unknownLanguage.status).toBe(422);
    const twice = await put({
      entries: [
        {
          term: `t${uniqueSuffix()}`,
          translations: [
            { langid: 'de', translation: 'a' },
            { langid: 'de', translation: 'b' },
          ],
        },
      ],
    });
    expect(twice.body.errors[0].code).toBe('duplicate');
    const noTerm = await put({ entries: [{ translations: [] }] });
    expect(noTerm.body.errors[0]).toMatchObject({ field: 'entries.0.term', code: 'missing_field' });
    const unknownEntry = await put({ entries: [{ entryid: 999999, notes: 'x' }] });
    expect(unknownEntry.body.errors[0]).toMatchObject({ field: 'entries.0.entryid', code: 'not_found' });
    const unknownDelete = await put({ delete: [999999] });
    expect(unknownDelete.body.errors[0]).toMatchObject({ field: 'delete.0', code: 'not_found' });
    expect((await put({})).status).toBe(422);
  });

  it('DELETE /translation_glossary/entries/{entryid} (204, then 404); Authors only', async () => {
    const created = await call('PUT', '/translation_glossary/entries', {
      token: author,
      body: { entries: [{ term: `gasket ${uniqueSuffix()}` }] },
    });
    const entryid = created.body.saved[0].entryid;
    expect((await call('DELETE', `/translation_glossary/entries/${entryid}`, { token: user })).status).toBe(403);
    expect(
      (await call('PUT', '/translation_glossary/entries', { token: user, body: { entries: [{ term: 'x' }] } })).status,
    ).toBe(403);
    expect((await call('DELETE', `/translation_glossary/entries/${entryid}`, { token: author })).status).toBe(204);
    expect((await call('DELETE', `/translation_glossary/entries/${entryid}`, { token: author })).status).toBe(404);
    expect((await call('GET', '/translation_glossary/entries')).status).toBe(401);
  });

  it('GET pages with offset/limit', async () => {
    const all = (await call('GET', '/translation_glossary/entries', { token: user })).body;
    const second = (await call('GET', '/translation_glossary/entries?offset=1&limit=1', { token: user })).body;
    expect(second).toEqual([all[1]]);
  });
});
