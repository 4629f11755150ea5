/**
 * What Dozuki's own apps need to parse Stepwise's answers (issue 25 §5, §6; decisions 194–196):
 * the keys the Android parsers read with getJSONObject/getInt/getString are there and not null,
 * what the apps send is taken, and the lists the apps read in one request come whole and gzip.
 */
import http from 'node:http';
import { gunzipSync } from 'node:zlib';
import { describe, expect, inject, it } from 'vitest';
import { api, apiUrl, createUser, site, type TestUser } from '../support/api.ts';
import { addStep, createGuide, LINES, publish } from './guide-fixtures.ts';
import { wholeListItems } from '../bench/whole-list.ts';
import { writeItems } from '../bench/seed-table.ts';

/** What JSONHelper.parseImage reads: an object with an integer `id` and a string `original`. */
function expectAppImage(image: any): void {
  expect(image).toBeTypeOf('object');
  expect(image).not.toBeNull();
  expect(Number.isInteger(image.id)).toBe(true);
  expect(image.original).toBeTypeOf('string');
  // Not -1: the Android app reads -1 as a local image not uploaded yet.
  expect(image.id).not.toBe(-1);
}

/** What Comment(JSONObject) and parseUserLight read of a comment and its author. */
function expectAppComment(comment: any): void {
  for (const key of ['commentid', 'contextid', 'rating', 'date', 'modified_date', 'replied_date'])
    expect(Number.isInteger(comment[key]), key).toBe(true);
  for (const key of ['locale', 'title', 'context', 'text_raw', 'text_rendered', 'status'])
    expect(comment[key], key).toBeTypeOf('string');
  expect(Number.isInteger(comment.author.userid)).toBe(true);
  expect(comment.author.username).toBeTypeOf('string');
  expect(Number.isInteger(comment.author.reputation)).toBe(true);
  expectAppImage(comment.author.image);
}

describe('user images and authors (issue 25 §5)', () => {
  it('a guide with a comment and a reply parses: every author has an Image, the default avatar is served', async () => {
    const author = await createUser({ privileges: ['Author'] });
    const reader = await createUser();
    const guide = await publish(author.token, await addStep(author.token, (await createGuide(author.token)).guideid));
    const comment = await api('POST', `/comments/guide/${guide.guideid}`, {
      token: reader.token,
      body: { text: 'Which hex key size fits the nozzle?' },
    });
    expect(comment.status).toBe(201);
    const reply = await api('POST', `/comments/guide/${guide.guideid}`, {
      token: author.token,
      body: { text: 'A 2 mm key fits it.', parentid: comment.body.commentid },
    });
    expect(reply.status).toBe(201);

    const full = await api('GET', `/guides/${guide.guideid}`, { token: reader.token });
    expect(full.status).toBe(200);
    expect(full.body.author.userid).toBe(author.userid);
    expectAppImage(full.body.author.image);
    expect(full.body.comments).toHaveLength(1);
    expectAppComment(full.body.comments[0]);
    expect(full.body.comments[0].replies).toHaveLength(1);
    expectAppComment(full.body.comments[0].replies[0]);
    // A guide's own image may stay null: parseImage takes optJSONObject there.
    expect(full.body.image).toBeNull();

    // The default avatar: a shipped PNG at the URL of every size.
    const avatar = full.body.author.image;
    expect(avatar).toMatchObject({ id: -32, guid: 'default_avatar_placeholder_guid' });
    for (const url of [avatar.original, avatar.thumbnail, `${avatar.original}.medium`]) {
      const path = new URL(url).pathname;
      const served = await fetch(new URL(path, apiUrl()));
      expect(served.status, path).toBe(200);
      expect(served.headers.get('content-type')).toBe('image/png');
      const bytes = Buffer.from(await served.arrayBuffer());
      expect(bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
    }
    // Open on a private site (the apps load avatars without a token); other names are 404.
    expect((await site('GET', '/assets/default-avatar.large')).status).toBe(200);
    expect((await site('GET', '/assets/default-avatar.png')).status).toBe(404);

    const listed = await api('GET', '/comments', { token: reader.token, query: { context: 'guide', limit: 200 } });
    const mine = listed.body.find((one: any) => one.commentid === comment.body.commentid);
    expectAppComment(mine);
    // User lists and the self form carry it too.
    const self = await api('GET', '/user', { token: reader.token });
    expectAppImage(self.body.image);
  });
});

describe('what the apps send (issue 25 §5)', () => {
  it('takes new step lines with lineid 0 or null, and a guide type in any letter case', async () => {
    const author = await createUser({ privileges: ['Author'] });
    const guide = await createGuide(author.token, { type: 'How-to' });
    expect(guide.type).toBe('how-to');
    const lines = [
      { ...LINES[0], lineid: 0 },
      { ...LINES[1], lineid: null },
    ];
    const added = await addStep(author.token, guide.guideid, { lines });
    const step = added.steps.find((one: any) => one.guideid === guide.guideid);
    expect(step.lines).toHaveLength(2);
    for (const line of step.lines) expect(line.lineid).toBeGreaterThan(0);
    const edited = await api('PATCH', `/guides/${guide.guideid}`, {
      token: author.token,
      query: { revisionid: added.revisionid },
      body: { type: 'HOW-TO' },
    });
    expect(edited.status).toBe(200);
    expect(edited.body.type).toBe('how-to');
    // A type the site does not have is still the real service's 422.
    const wrong = await api('POST', '/guides', {
      token: author.token,
      body: { category: guide.category, type: 'Nope' },
    });
    expect(wrong.status).toBe(422);
  });

  it('an embed carries every field the Android Embed parser reads, and a link has a src', async () => {
    const user = await createUser();
    for (const url of ['https://www.youtube.com/watch?v=dQw4w9WgXcQ', 'https://docs.example.com/manual']) {
      const embed = await api('POST', '/user/media/embeds', { token: user.token, body: { url } });
      expect(embed.status).toBe(201);
      for (const key of ['url', 'version', 'html', 'provider_url', 'type', 'title'])
        expect(embed.body[key], key).toBeTypeOf('string');
      for (const key of ['width', 'height', 'embedid']) expect(Number.isInteger(embed.body[key]), key).toBe(true);
      expect(embed.body.version).toBe('1.0');
      expect(embed.body.html).toMatch(/ src="[^"]+"/);
    }
  });
});

/** GET with a chosen Accept-Encoding, the bytes as sent (fetch would decompress them). */
function rawGet(
  path: string,
  token: string,
  acceptEncoding?: string,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { authorization: `api ${token}` };
    if (acceptEncoding) headers['accept-encoding'] = acceptEncoding;
    http
      .get(`${apiUrl()}${path}`, { headers }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, bytes: Buffer.concat(chunks) }),
        );
        response.on('error', reject);
      })
      .on('error', reject);
  });
}

describe('lists the apps read in one answer (issue 25 §6)', () => {
  const COUNT = 250; // over the 200 every other list is clamped to
  let user: TestUser;

  it('the offline sync: favorites read once without a limit come whole, gzip when asked', async () => {
    user = await createUser();
    // Guides far past the id counter, authored by and favorited by a fresh user.
    const first = 7_000_000 + (user.userid % 1000) * 1000;
    await writeItems(inject('ddbEndpoint'), wholeListItems(user.userid, first, COUNT, { guides: true }));

    // As ApiSyncAdapter does it: one GET, no limit, every favorite in the answer.
    const favorites = await rawGet('/user/favorites/guides', user.token, 'gzip, deflate');
    expect(favorites.status).toBe(200);
    expect(favorites.headers['content-encoding']).toBe('gzip');
    expect(favorites.headers.vary).toContain('accept-encoding');
    const list = JSON.parse(gunzipSync(favorites.bytes).toString('utf8'));
    expect(list).toHaveLength(COUNT);
    expect(list.map((one: any) => one.guide.guideid)).toEqual(Array.from({ length: COUNT }, (_, i) => first + i));
    for (const one of list.slice(0, 3)) {
      expect(Number.isInteger(one.guide.modified_date)).toBe(true);
      expect(one.guide.title).toBeTypeOf('string');
    }
    expect(favorites.bytes.length).toBeLessThan(gunzipSync(favorites.bytes).length / 4);

    // Without Accept-Encoding: the same answer, plain.
    const plain = await rawGet('/user/favorites/guides', user.token);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(plain.bytes.toString('utf8'))).toHaveLength(COUNT);
    // q=0 refuses gzip.
    expect((await rawGet('/user/favorites/guides?limit=5', user.token, 'gzip;q=0')).headers['content-encoding']).toBe(
      undefined,
    );

    // An explicit limit is honoured; other users' lists keep the 200 clamp.
    expect((await api('GET', '/user/favorites/guides', { token: user.token, query: { limit: 10 } })).body).toHaveLength(
      10,
    );
    const theirs = await api('GET', `/users/${user.userid}/favorites/guides`, {
      token: user.token,
      query: { limit: 10000 },
    });
    expect(theirs.body).toHaveLength(200);
  });

  it('GET /user/guides?limit=10000 is one answer; the default page stays 20', async () => {
    const all = await api('GET', '/user/guides', { token: user.token, query: { limit: 10000 } });
    expect(all.status).toBe(200);
    expect(all.body).toHaveLength(COUNT);
    expect(all.headers.get('content-encoding')).toBe('gzip');
    expect((await api('GET', '/user/guides', { token: user.token })).body).toHaveLength(20);
    // A small answer is not worth a deflate.
    const small = await rawGet('/user/guides?limit=1', user.token, 'gzip');
    expect(small.headers['content-encoding']).toBeUndefined();
  });
});
