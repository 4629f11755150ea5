import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, loginAdmin, uniqueSuffix, type TestUser } from '../support/api.ts';
import { anAuthor, createWiki, wikiPath } from '../support/wikis.ts';

let admin: string;
let author: TestUser;
let reader: TestUser;

beforeAll(async () => {
  admin = await loginAdmin();
  [author, reader] = await Promise.all([anAuthor(), createUser()]);
});

describe('POST /wikis', () => {
  it('creates a page (201) with rendered contents, the real revisionid and its author', async () => {
    const title = `Torque ${uniqueSuffix()}`;
    const response = await api('POST', '/wikis', {
      token: author.token,
      body: {
        namespace: 'WIKI',
        title,
        contents: "== Torque ==\nUse the '''calibrated''' wrench.",
        description: 'Settings',
      },
    });
    expect(response.status).toBe(201);
    const wiki = response.body;
    expect(wiki).toMatchObject({
      namespace: 'WIKI',
      title,
      display_title: title,
      langid: 'en',
      description: 'Settings',
      can_edit: true,
      source_revisionid: null,
    });
    expect(wiki.wikiid).toBeGreaterThan(0);
    expect(wiki.revisionid).toBeGreaterThan(0);
    expect(wiki.contents_rendered).toContain('<h2>Torque</h2>');
    expect(wiki.contents_rendered).toContain('<strong>calibrated</strong>');
    expect(wiki.contents_json.type).toBe('doc');
    expect(wiki.author.userid).toBe(author.userid);
    expect(wiki.url).toMatch(/\/Wiki\/Torque_/);
    expect(wiki.fullUrl).toBe(wiki.url);
  });

  it('requires contents (422 missing_field), like the real service', async () => {
    const response = await api('POST', '/wikis', {
      token: author.token,
      body: { namespace: 'CATEGORY', title: `C ${uniqueSuffix()}` },
    });
    expect(response.status).toBe(422);
    expect(response.body.errors).toContainEqual(expect.objectContaining({ field: 'contents', code: 'missing_field' }));
  });

  it('validates namespace, title and parent (422) and is for Authors (403)', async () => {
    const bad = async (body: Record<string, unknown>, field: string) => {
      const response = await api('POST', '/wikis', {
        token: author.token,
        body: { namespace: 'WIKI', title: `T ${uniqueSuffix()}`, contents: '', ...body },
      });
      expect(response.status, JSON.stringify(body)).toBe(422);
      expect(response.body.errors[0].field).toBe(field);
    };
    await bad({ namespace: 'NOPE' }, 'namespace');
    await bad({ namespace: 'COURSE' }, 'namespace');
    await bad({ title: 'a/b' }, 'title');
    await bad({ title: '   ' }, 'title');
    await bad({ parent: `Missing ${uniqueSuffix()}` }, 'parent');
    await bad({ namespace: 'INFO', parent: 'Anything' }, 'parent');
    await bad({ langid: 'xx' }, 'langid');
    const forbidden = await api('POST', '/wikis', {
      token: reader.token,
      body: { namespace: 'WIKI', title: 'X', contents: '' },
    });
    expect(forbidden.status).toBe(403);
  });

  it('keeps titles unique within a namespace only', async () => {
    const title = `Shared ${uniqueSuffix()}`;
    await createWiki({ namespace: 'WIKI', title });
    const again = await api('POST', '/wikis', {
      token: admin,
      body: { namespace: 'WIKI', title: title.replace(/ /g, '_'), contents: 'x' },
    });
    expect(again.status).toBe(422);
    expect(again.body.errors[0]).toMatchObject({ field: 'title', code: 'already_exists' });
    const otherNamespace = await api('POST', '/wikis', {
      token: admin,
      body: { namespace: 'INFO', title, contents: 'x' },
    });
    expect(otherNamespace.status).toBe(201);
  });

  it('concurrent creates of one namespace+title: exactly one 201', async () => {
    const title = `Race ${uniqueSuffix()}`;
    const responses = await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        api('POST', '/wikis', { token: admin, body: { namespace: 'CATEGORY', title, contents: `writer ${index}` } }),
      ),
    );
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(1);
    expect(statuses.filter((status) => status === 422)).toHaveLength(7);
    const list = await api('GET', '/wikis/CATEGORY', { token: reader.token, query: { display: 'titles', limit: 200 } });
    expect(list.body.filter((entry: string) => entry === title)).toHaveLength(1);
  });

  it('renders hostile markup inert', async () => {
    const contents = [
      '<script>alert(1)</script>',
      '<img src=x onerror=alert(1)>',
      '<a href="javascript:alert(1)">click</a>',
      '[javascript:alert(1) click]',
      '[link|javascript:alert(1)|x]',
      '<div onmouseover="alert(1)">hover</div>',
      '[http://example.com fine]',
    ].join('\n\n');
    const wiki = await createWiki({ contents }, author.token);
    const read = await api('GET', wikiPath(wiki), { token: reader.token });
    for (const html of [wiki.contents_rendered as string, read.body.contents_rendered as string]) {
      expect(html).not.toMatch(/<script/i);
      expect(html).not.toMatch(/<img/i);
      expect(html).not.toMatch(/<div/i);
      expect(html).not.toMatch(/\son\w+\s*=/i);
      expect(html).not.toMatch(/href="javascript:/i);
      expect(html).not.toMatch(/javascript:/i);
      expect(html).toContain('<a href="http://example.com"');
    }
    expect(read.body.contents_raw).toBe(contents);
  });
});

describe('GET /wikis/{namespace}/{title}', () => {
  it('reads a page by title (underscores read as spaces); CATEGORY reads show revisionid null', async () => {
    const category = await createWiki({ namespace: 'CATEGORY', title: `Camera ${uniqueSuffix()}` });
    const read = await api('GET', `/wikis/CATEGORY/${encodeURIComponent(category.title.replace(/ /g, '_'))}`, {
      token: reader.token,
    });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      wikiid: category.wikiid,
      title: category.title,
      revisionid: null,
      can_edit: false,
    });
    expect(category.revisionid).toBeGreaterThan(0);
    const wiki = await createWiki();
    const wikiRead = await api('GET', wikiPath(wiki), { token: reader.token });
    expect(wikiRead.body.revisionid).toBe(wiki.revisionid);
  });

  it('404 for an unknown title or namespace; 401 without a token', async () => {
    expect((await api('GET', `/wikis/WIKI/Missing_${uniqueSuffix()}`, { token: reader.token })).status).toBe(404);
    expect((await api('GET', '/wikis/NOPE/Anything', { token: reader.token })).status).toBe(404);
    expect((await api('GET', '/wikis/NOPE', { token: reader.token })).status).toBe(404);
    expect((await api('GET', '/wikis/WIKI/Anything')).status).toBe(401);
  });
});

describe('GET /wikis/{namespace}', () => {
  it('lists pages alphabetically with offset/limit; display=titles; modifiedSince', async () => {
    const prefix = `Aaa list ${uniqueSuffix()}`;
    const created = [];
    for (const letter of ['c', 'a', 'b'])
      created.push(
        await createWiki({ namespace: 'ITEM', title: `${prefix} ${letter}`, contents: `Text of ${letter}` }),
      );
    const all = await api('GET', '/wikis/ITEM', { token: reader.token, query: { limit: 200 } });
    expect(all.status).toBe(200);
    const mine = all.body.filter((item: { title: string }) => item.title.startsWith(prefix));
    expect(mine.map((item: { title: string }) => item.title)).toEqual(
      ['a', 'b', 'c'].map((letter) => `${prefix} ${letter}`),
    );
    expect(mine[0]).toMatchObject({ dataType: 'wiki', namespace: 'ITEM', text: 'Text of a' });
    const titles = await api('GET', '/wikis/ITEM', { token: reader.token, query: { display: 'titles', limit: 200 } });
    expect(titles.body).toEqual(expect.arrayContaining([`${prefix} a`, `${prefix} b`]));
    const index = titles.body.indexOf(`${prefix} a`);
    const second = await api('GET', '/wikis/ITEM', {
      token: reader.token,
      query: { display: 'titles', offset: index + 1, limit: 1 },
    });
    expect(second.body).toEqual([`${prefix} b`]);
    const future = await api('GET', '/wikis/ITEM', {
      token: reader.token,
      query: { modifiedSince: Math.floor(Date.now() / 1000) + 3600 },
    });
    expect(future.body).toEqual([]);
    const badLimit = await api('GET', '/wikis/ITEM', { token: reader.token, query: { limit: 'x' } });
    expect(badLimit.status).toBe(422);
  });
});

describe('category hierarchy', () => {
  let root: string;
  let middle: string;
  let leaf: string;

  beforeAll(async () => {
    const suffix = uniqueSuffix();
    root = `Root ${suffix}`;
    middle = `Middle ${suffix}`;
    leaf = `Leaf ${suffix}`;
    await createWiki({ namespace: 'CATEGORY', title: root, identification: 'Look at the label under the battery.' });
    await createWiki({ namespace: 'CATEGORY', title: middle, parent: root });
    await createWiki({ namespace: 'CATEGORY', title: leaf, parent: middle, description: 'The smallest' });
  });

  it('display=hierarchy: titles, leaves []; hierarchyOrder: an array whose leaves have no children key', async () => {
    const tree = await api('GET', '/wikis/CATEGORY', { token: reader.token, query: { display: 'hierarchy' } });
    expect(tree.status).toBe(200);
    expect(tree.body[root]).toEqual({ [middle]: { [leaf]: [] } });
    const ordered = await api('GET', '/wikis/CATEGORY', { token: reader.token, query: { display: 'hierarchyOrder' } });
    expect(ordered.body.find((entry: { title: string }) => entry.title === root)).toEqual({
      title: root,
      display_title: root,
      children: [{ title: middle, display_title: middle, children: [{ title: leaf, display_title: leaf }] }],
    });
    const withTitles = await api('GET', '/wikis/CATEGORY', {
      token: reader.token,
      query: { display: 'hierarchy', withDisplayTitles: 1 },
    });
    const node = withTitles.body.find((entry: { title: string }) => entry.title === root);
    expect(node).toEqual({
      title: root,
      display_title: root,
      children: [
        { title: middle, display_title: middle, children: [{ title: leaf, display_title: leaf, children: [] }] },
      ],
    });
    const notHierarchical = await api('GET', '/wikis/INFO', { token: reader.token, query: { display: 'hierarchy' } });
    expect(notHierarchical.status).toBe(422);
  });

  it('a page shows its parent, ancestors and children', async () => {
    const read = await api('GET', `/wikis/CATEGORY/${encodeURIComponent(middle)}`, { token: reader.token });
    expect(read.body.parent).toMatchObject({ title: root, namespace: 'CATEGORY' });
    expect(read.body.ancestors).toEqual([root]);
    expect(read.body.children).toEqual([leaf]);
  });

  it('GET …/children lists direct children; …/identification the identification text', async () => {
    const kids = await api('GET', `/wikis/CATEGORY/${encodeURIComponent(root)}/children`, { token: reader.token });
    expect(kids.status).toBe(200);
    expect(kids.body.map((item: { title: string }) => item.title)).toEqual([middle]);
    const none = await api('GET', `/wikis/CATEGORY/${encodeURIComponent(leaf)}/children`, { token: reader.token });
    expect(none.body).toEqual([]);
    const identification = await api('GET', `/wikis/CATEGORY/${encodeURIComponent(root)}/identification`, {
      token: reader.token,
    });
    expect(identification.status).toBe(200);
    expect(identification.body).toMatchObject({
      title: root,
      identification_raw: 'Look at the label under the battery.',
    });
    expect(identification.body.identification_rendered).toContain('Look at the label');
    expect(identification.body.children.map((child: { title: string }) => child.title)).toEqual([middle]);
    expect(
      (await api('GET', `/wikis/CATEGORY/Missing_${uniqueSuffix()}/children`, { token: reader.token })).status,
    ).toBe(404);
    expect(
      (await api('GET', `/wikis/CATEGORY/Missing_${uniqueSuffix()}/identification`, { token: reader.token })).status,
    ).toBe(404);
  });

  it('PUT …/parent moves a page and refuses cycles', async () => {
    const suffix = uniqueSuffix();
    const [a, b, c] = [`A ${suffix}`, `B ${suffix}`, `C ${suffix}`];
    await createWiki({ namespace: 'CATEGORY', title: a });
    await createWiki({ namespace: 'CATEGORY', title: b, parent: a });
    await createWiki({ namespace: 'CATEGORY', title: c, parent: b });
    const path = (title: string) => `/wikis/CATEGORY/${encodeURIComponent(title)}/parent`;

    const cycle = await api('PUT', path(a), { token: author.token, body: { parent: c } });
    expect(cycle.status).toBe(422);
    expect(cycle.body.errors[0]).toMatchObject({ field: 'parent', code: 'cycle' });
    const self = await api('PUT', path(a), { token: author.token, body: { parent: a } });
    expect(self.body.errors[0].code).toBe('cycle');
    const unknown = await api('PUT', path(a), { token: author.token, body: { parent: `Nope ${suffix}` } });
    expect(unknown.body.errors[0]).toMatchObject({ field: 'parent', code: 'not_found' });
    expect((await api('PUT', path(`Nope ${suffix}`), { token: author.token, body: { parent: null } })).status).toBe(
      404,
    );
    expect((await api('PUT', path(a), { token: reader.token, body: { parent: null } })).status).toBe(403);

    const moved = await api('PUT', path(c), { token: author.token, body: { parent: a } });
    expect(moved.status).toBe(200);
    expect(moved.body.parent.title).toBe(a);
    expect(moved.body.ancestors).toEqual([a]);
    const tree = await api('GET', '/wikis/CATEGORY', { token: reader.token, query: { display: 'hierarchy' } });
    expect(tree.body[a]).toEqual({ [b]: [], [c]: [] });
    const top = await api('PUT', path(c), { token: author.token, body: { parent: null } });
    expect(top.body.parent).toBeNull();
    const after = await api('GET', '/wikis/CATEGORY', { token: reader.token, query: { display: 'hierarchy' } });
    expect(after.body[c]).toEqual([]);
    expect(after.body[a]).toEqual({ [b]: [] });
  });

  it('concurrent opposite moves never form a cycle', async () => {
    const suffix = uniqueSuffix();
    const [x, y] = [`X ${suffix}`, `Y ${suffix}`];
    await createWiki({ namespace: 'WIKI', title: x });
    await createWiki({ namespace: 'WIKI', title: y });
    const [first, second] = await Promise.all([
      api('PUT', `/wikis/WIKI/${encodeURIComponent(x)}/parent`, { token: author.token, body: { parent: y } }),
      api('PUT', `/wikis/WIKI/${encodeURIComponent(y)}/parent`, { token: author.token, body: { parent: x } }),
    ]);
    expect([first.status, second.status].filter((status) => status === 200)).toHaveLength(1);
    expect([first.status, second.status].sort()).toEqual([200, 422]);
    const tree = await api('GET', '/wikis/WIKI', { token: reader.token, query: { display: 'hierarchy' } });
    const nested = tree.body[x] ? tree.body[x][y] : tree.body[y][x];
    expect(nested).toEqual([]);
  });

  it('PUT …/parent with a stale ?revisionid= answers 409 with the page', async () => {
    const page = await createWiki({ namespace: 'WIKI' });
    const stale = await api('PUT', wikiPath(page, '/parent'), {
      token: author.token,
      query: { revisionid: page.revisionid + 1000 },
      body: { parent: null },
    });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ wikiid: page.wikiid, revisionid: page.revisionid });
    expect(stale.headers.get('x-stepwise-current-revisionid')).toBe(String(page.revisionid));
    // Missing on a write that requires it: the query parameter is named as such.
    const missing = await api('PATCH', wikiPath(page), { token: author.token, body: { contents: 'x' } });
    expect(missing.status).toBe(422);
    expect(missing.body.errors[0]).toMatchObject({ field: 'revisionid', code: 'missing_field' });
    expect(missing.body.message).toContain('a query parameter naming the current revision (?revisionid=');
  });

  it('a page with children cannot be deleted (422)', async () => {
    const parent = await createWiki({ namespace: 'CATEGORY' });
    await createWiki({ namespace: 'CATEGORY', parent: parent.title });
    const response = await api('DELETE', wikiPath(parent), {
      token: author.token,
      query: { revisionid: parent.revisionid },
    });
    expect(response.status).toBe(422);
    expect(response.body.errors[0].code).toBe('has_children');
  });
});

describe('PATCH /wikis/{namespace}/{title}', () => {
  it('makes a new revision; a stale revisionid answers 409 with the current page', async () => {
    const wiki = await createWiki({ contents: 'First' });
    const edited = await api('PATCH', wikiPath(wiki), {
      token: author.token,
      query: { revisionid: wiki.revisionid },
      body: { contents: "''Second''" },
    });
    expect(edited.status).toBe(200);
    expect(edited.body.revisionid).toBeGreaterThan(wiki.revisionid);
    expect(edited.body.contents_rendered).toContain('<em>Second</em>');
    const stale = await api('PATCH', wikiPath(wiki), {
      token: author.token,
      query: { revisionid: wiki.revisionid },
      body: { contents: 'Lost' },
    });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({
      wikiid: wiki.wikiid,
      revisionid: edited.body.revisionid,
      contents_raw: "''Second''",
    });
  });

  it('of concurrent edits naming one revision exactly one succeeds', async () => {
    const wiki = await createWiki({ contents: 'Base' });
    const responses = await Promise.all(
      Array.from({ length: 6 }, (_, index) =>
        api('PATCH', wikiPath(wiki), {
          token: author.token,
          query: { revisionid: wiki.revisionid },
          body: { contents: `Writer ${index}` },
        }),
      ),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([200, 409, 409, 409, 409, 409]);
    const winner = responses.find((response) => response.status === 200)!;
    const read = await api('GET', wikiPath(wiki), { token: reader.token });
    expect(read.body.contents_raw).toBe(winner.body.contents_raw);
  });

  it('a CATEGORY 409 body carries the real revisionid (the GET shows null)', async () => {
    const category = await createWiki({ namespace: 'CATEGORY' });
    const stale = await api('PATCH', wikiPath(category), {
      token: author.token,
      query: { revisionid: 1 },
      body: { description: 'x' },
    });
    expect(stale.status).toBe(409);
    expect(stale.body.revisionid).toBe(category.revisionid);
  });

  it('requires ?revisionid= (422 missing_field) and at least one field', async () => {
    const wiki = await createWiki();
    const missing = await api('PATCH', wikiPath(wiki), { token: author.token, body: { contents: 'x' } });
    expect(missing.status).toBe(422);
    expect(missing.body.errors[0]).toMatchObject({ field: 'revisionid', code: 'missing_field' });
    const empty = await api('PATCH', wikiPath(wiki), {
      token: author.token,
      query: { revisionid: wiki.revisionid },
      body: {},
    });
    expect(empty.status).toBe(422);
    expect(
      (
        await api('PATCH', wikiPath(wiki), {
          token: reader.token,
          query: { revisionid: wiki.revisionid },
          body: { contents: 'x' },
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await api('PATCH', `/wikis/WIKI/Missing_${uniqueSuffix()}`, {
          token: author.token,
          query: { revisionid: 1 },
          body: { contents: 'x' },
        })
      ).status,
    ).toBe(404);
  });

  it('renames a WIKI page (the old title is free again), not a CATEGORY page', async () => {
    const wiki = await createWiki();
    const newTitle = `Renamed ${uniqueSuffix()}`;
    const renamed = await api('PATCH', wikiPath(wiki), {
      token: author.token,
      query: { revisionid: wiki.revisionid },
      body: { title: newTitle },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ title: newTitle, display_title: newTitle });
    expect((await api('GET', wikiPath(wiki), { token: reader.token })).status).toBe(404);
    expect((await api('GET', `/wikis/WIKI/${encodeURIComponent(newTitle)}`, { token: reader.token })).status).toBe(200);
    await createWiki({ title: wiki.title });
    const taken = await api('PATCH', `/wikis/WIKI/${encodeURIComponent(newTitle)}`, {
      token: author.token,
      query: { revisionid: renamed.body.revisionid },
      body: { title: wiki.title },
    });
    expect(taken.status).toBe(422);
    expect(taken.body.errors[0].code).toBe('already_exists');
    const category = await createWiki({ namespace: 'CATEGORY' });
    const refused = await api('PATCH', wikiPath(category), {
      token: author.token,
      query: { revisionid: category.revisionid },
      body: { title: `Other ${uniqueSuffix()}` },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.errors[0]).toMatchObject({ field: 'title', code: 'immutable' });
  });
});

describe('revisions and revert', () => {
  it('lists revisions and restores an earlier one as a new revision', async () => {
    const wiki = await createWiki({ contents: 'Version one' });
    const second = await api('PATCH', wikiPath(wiki), {
      token: author.token,
      query: { revisionid: wiki.revisionid },
      body: { contents: 'Version two' },
    });
    const history = await api('GET', wikiPath(wiki, '/revisions'), { token: reader.token });
    expect(history.status).toBe(200);
    expect(history.body.map((revision: { revisionid: number }) => revision.revisionid)).toEqual([
      second.body.revisionid,
      wiki.revisionid,
    ]);
    expect(history.body[0]).toMatchObject({ current: true, userid: author.userid });

    const reverted = await api('POST', wikiPath(wiki, '/revert'), {
      token: author.token,
      query: { revisionid: second.body.revisionid },
      body: { revisionid: wiki.revisionid },
    });
    expect(reverted.status).toBe(200);
    expect(reverted.body.contents_raw).toBe('Version one');
    expect(reverted.body.revisionid).toBeGreaterThan(second.body.revisionid);
    const after = await api('GET', wikiPath(wiki, '/revisions'), { token: reader.token });
    expect(after.body[0]).toMatchObject({ revisionid: reverted.body.revisionid, reverted_from: wiki.revisionid });
  });

  it('revert: stale 409, unknown revision 422, missing ?revisionid= 422, Authors only', async () => {
    const wiki = await createWiki({ contents: 'One' });
    const second = await api('PATCH', wikiPath(wiki), {
      token: author.token,
      query: { revisionid: wiki.revisionid },
      body: { contents: 'Two' },
    });
    const stale = await api('POST', wikiPath(wiki, '/revert'), {
      token: author.token,
      query: { revisionid: wiki.revisionid },
      body: { revisionid: wiki.revisionid },
    });
    expect(stale.status).toBe(409);
    expect(stale.body.revisionid).toBe(second.body.revisionid);
    const unknown = await api('POST', wikiPath(wiki, '/revert'), {
      token: author.token,
      query: { revisionid: second.body.revisionid },
      body: { revisionid: 999999999 },
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors[0]).toMatchObject({ field: 'revisionid', code: 'not_found' });
    const missing = await api('POST', wikiPath(wiki, '/revert'), {
      token: author.token,
      body: { revisionid: wiki.revisionid },
    });
    expect(missing.body.errors[0]).toMatchObject({ field: 'revisionid', code: 'missing_field' });
    const forbidden = await api('POST', wikiPath(wiki, '/revert'), {
      token: reader.token,
      query: { revisionid: second.body.revisionid },
      body: { revisionid: wiki.revisionid },
    });
    expect(forbidden.status).toBe(403);
  });
});

describe('DELETE /wikis/{namespace}/{title}', () => {
  it('requires ?revisionid= (422 field revisionid, code missing_field), 409 when stale, 204 when current', async () => {
    const wiki = await createWiki({ namespace: 'CATEGORY' });
    const missing = await api('DELETE', wikiPath(wiki), { token: author.token });
    expect(missing.status).toBe(422);
    expect(missing.body.errors).toContainEqual(expect.objectContaining({ field: 'revisionid', code: 'missing_field' }));
    const stale = await api('DELETE', wikiPath(wiki), {
      token: author.token,
      query: { revisionid: wiki.revisionid + 1000 },
    });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ wikiid: wiki.wikiid, revisionid: wiki.revisionid });
    expect(
      (await api('DELETE', wikiPath(wiki), { token: reader.token, query: { revisionid: wiki.revisionid } })).status,
    ).toBe(403);
    const deleted = await api('DELETE', wikiPath(wiki), {
      token: author.token,
      query: { revisionid: wiki.revisionid },
    });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect((await api('GET', wikiPath(wiki), { token: reader.token })).status).toBe(404);
    expect(
      (await api('DELETE', wikiPath(wiki), { token: author.token, query: { revisionid: wiki.revisionid } })).status,
    ).toBe(404);
    // The title is free again.
    await createWiki({ namespace: 'CATEGORY', title: wiki.title });
  });

  it('deleting a child frees its parent for deletion', async () => {
    const parent = await createWiki({ namespace: 'CATEGORY' });
    const child = await createWiki({ namespace: 'CATEGORY', parent: parent.title });
    expect(
      (await api('DELETE', wikiPath(child), { token: author.token, query: { revisionid: child.revisionid } })).status,
    ).toBe(204);
    expect(
      (await api('DELETE', wikiPath(parent), { token: author.token, query: { revisionid: parent.revisionid } })).status,
    ).toBe(204);
  });
});
