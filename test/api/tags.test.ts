import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, loginAdmin, uniqueSuffix, type TestUser } from '../support/api.ts';
import { anAuthor, createWiki, wikiPath, type CreatedWiki } from '../support/wikis.ts';

let admin: string;
let author: TestUser;
let otherAuthor: TestUser;
let reader: TestUser;
let category: CreatedWiki;

async function createGuide(token: string, isPublic: boolean): Promise<number> {
  const response = await api('POST', '/guides', {
    token,
    body: { category: category.title, type: 'how-to', title: `Tagged ${uniqueSuffix()}`, public: isPublic },
  });
  if (response.status !== 201) throw new Error(`createGuide: ${response.status} ${response.text}`);
  return response.body.guideid;
}

beforeAll(async () => {
  admin = await loginAdmin();
  [author, otherAuthor, reader] = await Promise.all([anAuthor(), createUser({ privileges: ['Author'] }), createUser()]);
  category = await createWiki({ namespace: 'CATEGORY' }, author.token);
});

describe('guide tags', () => {
  it("PUT creates the tag on first use, lower-cased; GET lists the guide's tags; DELETE removes (204)", async () => {
    const guideid = await createGuide(author.token, true);
    const word = `Battery ${uniqueSuffix()}`;
    const tagged = await api('PUT', `/guides/${guideid}/tag`, { token: author.token, body: { tag: `  ${word}  ` } });
    expect(tagged.status).toBe(200);
    expect(tagged.body).toEqual([word.toLowerCase()]);
    const again = await api('PUT', `/guides/${guideid}/tag`, {
      token: author.token,
      body: { tag: word.toUpperCase() },
    });
    expect(again.status).toBe(200);
    expect(again.body).toEqual([word.toLowerCase()]);
    await api('PUT', `/guides/${guideid}/tag`, { token: admin, body: { tag: 'aaa first' } });

    const list = await api('GET', `/guides/${guideid}/tags`, { token: reader.token });
    expect(list.status).toBe(200);
    expect(list.body).toEqual(['aaa first', word.toLowerCase()]);
    const site = await api('GET', '/tags', { token: reader.token, query: { limit: 200 } });
    expect(site.status).toBe(200);
    expect(site.body).toContain('aaa first');

    const removed = await api('DELETE', `/guides/${guideid}/tag`, { token: author.token, body: { tag: word } });
    expect(removed.status).toBe(204);
    expect((await api('GET', `/guides/${guideid}/tags`, { token: reader.token })).body).toEqual(['aaa first']);
    const missing = await api('DELETE', `/guides/${guideid}/tag`, { token: author.token, body: { tag: word } });
    expect(missing.status).toBe(404);
    // The tag itself stays on the site's list.
    const after = await api('GET', '/tags', { token: reader.token, query: { limit: 200, offset: 0 } });
    expect(after.body.length).toBeGreaterThan(0);
  });

  it('who may tag: the author, Authors who can see the guide, Admins; not plain users (403)', async () => {
    const publicGuide = await createGuide(author.token, true);
    expect(
      (await api('PUT', `/guides/${publicGuide}/tag`, { token: reader.token, body: { tag: 'nope' } })).status,
    ).toBe(403);
    expect(
      (await api('DELETE', `/guides/${publicGuide}/tag`, { token: reader.token, body: { tag: 'nope' } })).status,
    ).toBe(403);
    expect(
      (await api('PUT', `/guides/${publicGuide}/tag`, { token: otherAuthor.token, body: { tag: 'fine' } })).status,
    ).toBe(200);
    const privateGuide = await createGuide(author.token, false);
    expect(
      (await api('PUT', `/guides/${privateGuide}/tag`, { token: otherAuthor.token, body: { tag: 'x' } })).status,
    ).toBe(403);
    expect((await api('GET', `/guides/${privateGuide}/tags`, { token: reader.token })).status).toBe(403);
    expect((await api('PUT', `/guides/${privateGuide}/tag`, { token: admin, body: { tag: 'x' } })).status).toBe(200);
  });

  it('validates the tag (422) and the guide (404)', async () => {
    const guideid = await createGuide(author.token, true);
    const empty = await api('PUT', `/guides/${guideid}/tag`, { token: author.token, body: { tag: '   ' } });
    expect(empty.status).toBe(422);
    expect(empty.body.errors[0].field).toBe('tag');
    expect(
      (await api('PUT', `/guides/${guideid}/tag`, { token: author.token, body: { tag: 'x'.repeat(65) } })).status,
    ).toBe(422);
    const missing = await api('PUT', `/guides/${guideid}/tag`, { token: author.token, body: {} });
    expect(missing.body.errors[0]).toMatchObject({ field: 'tag', code: 'missing_field' });
    expect((await api('PUT', '/guides/999999999/tag', { token: admin, body: { tag: 'x' } })).status).toBe(404);
    expect((await api('GET', '/guides/999999999/tags', { token: admin })).status).toBe(404);
    expect((await api('GET', '/tags')).status).toBe(401);
  });
});

describe('wiki tags', () => {
  it('tags a page (Authors), lists and removes the tag', async () => {
    const page = await createWiki({}, author.token);
    const tagged = await api('PUT', wikiPath(page, '/tag'), { token: author.token, body: { tag: 'Torque' } });
    expect(tagged.status).toBe(200);
    expect(tagged.body).toEqual(['torque']);
    const list = await api('GET', wikiPath(page, '/tags'), { token: reader.token });
    expect(list.body).toEqual(['torque']);
    expect((await api('PUT', wikiPath(page, '/tag'), { token: reader.token, body: { tag: 'x' } })).status).toBe(403);
    expect((await api('DELETE', wikiPath(page, '/tag'), { token: author.token, body: { tag: 'torque' } })).status).toBe(
      204,
    );
    expect((await api('GET', wikiPath(page, '/tags'), { token: reader.token })).body).toEqual([]);
    expect((await api('DELETE', wikiPath(page, '/tag'), { token: author.token, body: { tag: 'torque' } })).status).toBe(
      404,
    );
  });

  it('404 for an unknown page or namespace', async () => {
    expect((await api('GET', `/wikis/WIKI/Missing_${uniqueSuffix()}/tags`, { token: reader.token })).status).toBe(404);
    expect((await api('PUT', `/wikis/NOPE/x/tag`, { token: author.token, body: { tag: 'x' } })).status).toBe(404);
  });

  it("a page re-created under a deleted page's title starts without tags", async () => {
    const page = await createWiki({}, author.token);
    await api('PUT', wikiPath(page, '/tag'), { token: author.token, body: { tag: 'gone' } });
    expect(
      (await api('DELETE', wikiPath(page), { token: author.token, query: { revisionid: page.revisionid } })).status,
    ).toBe(204);
    const reborn = await createWiki({ title: page.title }, author.token);
    expect((await api('GET', wikiPath(reborn, '/tags'), { token: reader.token })).body).toEqual([]);
  });
});
