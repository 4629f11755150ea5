/**
 * GET /search/{query} over HTTP against the local stack: the indexer follows the table's stream
 * (DynamoDB Local's, read by the local stack as Lambda reads it), so every assertion waits until
 * the index has caught up. Each run searches for words of its own, so other tests' guides and
 * pages never match.
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { reloadConfig } from '../../shared/config.ts';
import { resetS3ClientForTests } from '../../shared/storage/s3-client.ts';
import { api, createTeam, createUser, loginAdmin, uniqueSuffix, type TestUser } from '../support/api.ts';
import { createWiki } from '../support/wikis.ts';
import { addStep, createGuide, publish } from './guide-fixtures.ts';

const word = `qz${uniqueSuffix()}`;
const other = `vx${uniqueSuffix()}`;

/** Searches until `done` holds (the index trails writes by the stream poll and one index write). */
async function searchUntil(
  path: string,
  token: string | undefined,
  done: (body: any) => boolean,
  timeoutMs = 15_000,
): Promise<any> {
  const started = Date.now();
  for (;;) {
    const response = await api('GET', path, { token });
    expect(response.status, response.text).toBe(200);
    if (done(response.body) || Date.now() - started > timeoutMs) return response.body;
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}

const guideids = (body: any): number[] =>
  body.results.filter((result: any) => result.dataType === 'guide').map((result: any) => result.guideid);

let admin: string;
let outsider: TestUser;
let member: TestUser;
const guides: Record<string, any> = {};
let categoryPage: any;
let teamid: number;
let wikiPage: any;

beforeAll(async () => {
  admin = await loginAdmin();
  [outsider, member] = await Promise.all([createUser(), createUser()]);
  const team = await createTeam();
  teamid = team.teamid;
  const joined = await api('PUT', `/teams/${team.teamid}/users/${member.userid}`, { token: admin });
  expect(joined.status, joined.text).toBe(200);

  const published = async (body: Record<string, unknown>) => publish(admin, await createGuide(admin, body));
  guides.titled = await published({ title: `Replace the ${word} assembly` });
  const stepped = await createGuide(admin, { title: `Clean the rollers ${uniqueSuffix()}` });
  await addStep(admin, stepped.guideid, { lines: [{ text: `Lift the ${word} cover.`, bullet: 'black', level: 0 }] });
  guides.stepLine = await publish(admin, (await api('GET', `/guides/${stepped.guideid}`, { token: admin })).body);
  guides.summary = await published({ title: `Open it up ${uniqueSuffix()}`, summary: `${word} inside` });
  guides.unpublished = await createGuide(admin, { title: `Draft ${word} notes` });
  guides.teamOnly = await createGuide(admin, { title: `Team ${word} procedure` });
  const granted = await api('PUT', `/guides/${guides.teamOnly.guideid}/teams/${team.teamid}`, { token: admin });
  expect(granted.status, granted.text).toBe(200);
  categoryPage = await createWiki({
    namespace: 'CATEGORY',
    title: `Devices ${uniqueSuffix()}`,
    contents: `All ${word} models.`,
  });
  wikiPage = await createWiki({
    namespace: 'WIKI',
    title: `Notes ${uniqueSuffix()}`,
    contents: `How a ${word} wears.`,
  });
  // Everything above is in the index once the last write is.
  await searchUntil(`/search/${word}?filter=wiki`, admin, (body) => body.totalResults === 1);
}, 60_000);

describe('GET /search/{query}', () => {
  it('answers the envelope the apps parse, a title match above a step-line match', async () => {
    const body = await searchUntil(`/search/${word}?filter=guide`, outsider.token, (found) => found.totalResults === 3);
    expect(Object.keys(body)).toEqual(['search', 'limit', 'offset', 'totalResults', 'moreResults', 'results']);
    expect(body).toMatchObject({ search: word, limit: 20, offset: 0, totalResults: 3, moreResults: false });
    const ids = guideids(body);
    expect(new Set(ids)).toEqual(new Set([guides.titled.guideid, guides.stepLine.guideid, guides.summary.guideid]));
    expect(ids.indexOf(guides.titled.guideid)).toBeLessThan(ids.indexOf(guides.stepLine.guideid));
    const first = body.results[ids.indexOf(guides.titled.guideid)];
    expect(first).toMatchObject({ dataType: 'guide', title: guides.titled.title, public: true, locale: 'en' });
  });

  it('leaves out and does not count what the caller may not read: unpublished, team-only', async () => {
    const asMember = await searchUntil(`/search/${word}?filter=guide`, member.token, (b) => b.totalResults === 4);
    expect(asMember.totalResults).toBe(4);
    expect(guideids(asMember)).toContain(guides.teamOnly.guideid);
    expect(guideids(asMember)).not.toContain(guides.unpublished.guideid);
    const asAdmin = await searchUntil(`/search/${word}?filter=guide`, admin, (b) => b.totalResults === 5);
    expect(new Set(guideids(asAdmin))).toEqual(
      new Set([
        guides.titled.guideid,
        guides.stepLine.guideid,
        guides.summary.guideid,
        guides.unpublished.guideid,
        guides.teamOnly.guideid,
      ]),
    );
  });

  it('filters by kind: teardown, device and category, wiki; all of them by default', async () => {
    // The test site allows how-to guides only: teardowns are none of them (test/unit/search-engine.test.ts finds one).
    const teardown = await api('GET', `/search/${word}`, { token: outsider.token, query: { filter: 'teardown' } });
    expect(teardown.body.totalResults).toBe(0);
    for (const filter of ['device', 'category', 'CATEGORY']) {
      const pages = await api('GET', `/search/${word}`, { token: outsider.token, query: { filter } });
      expect(pages.body.totalResults, filter).toBe(1);
      expect(pages.body.results[0]).toMatchObject({
        dataType: 'wiki',
        namespace: 'CATEGORY',
        title: categoryPage.title,
        display_title: categoryPage.title,
        text: expect.stringContaining(word),
        summary: expect.any(String),
        url: expect.stringContaining('/c/'),
      });
    }
    const wiki = await api('GET', `/search/${word}`, { token: outsider.token, query: { filter: 'wiki' } });
    expect(wiki.body.results.map((result: any) => result.wikiid)).toEqual([wikiPage.wikiid]);
    const all = await api('GET', `/search/${word}`, { token: outsider.token });
    expect(all.body.totalResults).toBe(5);
    const both = await api('GET', `/search/${word}`, { token: outsider.token, query: { filter: 'guide,wiki' } });
    expect(both.body.totalResults).toBe(4);
  });

  it('searches one language at a time (langid, default en)', async () => {
    // The test site writes English only (test/unit/search-engine.test.ts keeps two languages apart).
    const german = await api('GET', `/search/${word}`, { token: outsider.token, query: { langid: 'de' } });
    expect(german.body.totalResults).toBe(0);
    const english = await api('GET', `/search/${word}`, { token: outsider.token, query: { langid: 'en' } });
    expect(english.body.totalResults).toBe(5);
  });

  it('pages with offset and limit; totalResults and moreResults describe the whole', async () => {
    const first = await api('GET', `/search/${word}`, { token: outsider.token, query: { limit: 2 } });
    expect(first.body).toMatchObject({ limit: 2, offset: 0, totalResults: 5, moreResults: true });
    expect(first.body.results).toHaveLength(2);
    const last = await api('GET', `/search/${word}`, { token: outsider.token, query: { limit: 2, offset: 4 } });
    expect(last.body).toMatchObject({ limit: 2, offset: 4, totalResults: 5, moreResults: false });
    expect(last.body.results).toHaveLength(1);
    const clamped = await api('GET', `/search/${word}`, { token: outsider.token, query: { limit: 500 } });
    expect(clamped.body.limit).toBe(200);
    const ios = await api('GET', `/search/${word}`, {
      token: outsider.token,
      query: { filter: 'category', limit: 50 },
    });
    expect(ios.body).toMatchObject({ limit: 50, totalResults: 1 });
  });

  it('finds a changed guide by its new words, and forgets a deleted one', async () => {
    const guide = await publish(admin, await createGuide(admin, { title: `Adjust the ${other} belt` }));
    const found = await searchUntil(`/search/${other}`, outsider.token, (b) => b.totalResults === 1);
    expect(guideids(found)).toEqual([guide.guideid]);
    const patched = await api('PATCH', `/guides/${guide.guideid}`, {
      token: admin,
      query: { revisionid: guide.revisionid },
      body: { title: 'Adjust the belt tension' },
    });
    expect(patched.status, patched.text).toBe(200);
    const renamed = await searchUntil(`/search/${other}`, outsider.token, (b) => b.totalResults === 0);
    expect(renamed.totalResults).toBe(0);
    const tension = await api('GET', '/search/belt tension', { token: outsider.token });
    expect(guideids(tension.body)).toContain(guide.guideid);

    const deleted = await api('DELETE', `/guides/${guide.guideid}`, {
      token: admin,
      query: { revisionid: patched.body.revisionid },
    });
    expect(deleted.status, deleted.text).toBe(204);
    const gone = await searchUntil(`/search/tension belt`, admin, (b) => !guideids(b).includes(guide.guideid));
    expect(guideids(gone)).not.toContain(guide.guideid);
  });

  it('refuses an unknown filter (422) and anonymous callers on a private site (401)', async () => {
    const bad = await api('GET', `/search/${word}`, { token: outsider.token, query: { filter: 'guide,recipes' } });
    expect(bad.status).toBe(422);
    expect((await api('GET', `/search/${word}`)).status).toBe(401);
  });
});

describe('GET /search/{query} across segments (decision 289)', () => {
  it('a guide merged into a shard, then taken from the caller in the delta: no result, no count', async () => {
    const lost = `lo${uniqueSuffix()}`;
    const guide = await createGuide(admin, { title: `Calibrate the ${lost} sensor` });
    const granted = await api('PUT', `/guides/${guide.guideid}/teams/${teamid}`, { token: admin });
    expect(granted.status, granted.text).toBe(200);
    const seen = await searchUntil(`/search/${lost}`, member.token, (b) => b.totalResults === 1);
    expect(guideids(seen)).toEqual([guide.guideid]);

    // Fold the delta into the shards (in this process, as the indexer's merges do), so the
    // readable copy of the guide is in a shard and the change below lands in a newer segment.
    Object.assign(process.env, { DDB_ENDPOINT: inject('ddbEndpoint'), S3_ENDPOINT: inject('s3Endpoint') });
    reloadConfig();
    resetS3ClientForTests();
    const store = await import('../../shared/search/index-store.ts');
    const { getSearchIndexHead } = await import('../../shared/db/entities/search-index-head.ts');
    for (let merges = 0; merges < 50 && (await store.mergeOnce()); merges++);
    const merged = (await getSearchIndexHead(store.LAYOUT_FORMAT, true))!.head!;
    expect(merged.languages.en!.shards.length).toBeGreaterThan(0);
    store.forgetHeldIndex();
    const inShard = await store.searchIndex({ text: lost, langid: 'en', kinds: new Set(['guide']) });
    expect(inShard.map((hit) => hit.recordid)).toEqual([guide.guideid]);

    const revoked = await api('DELETE', `/guides/${guide.guideid}/teams/${teamid}`, { token: admin });
    expect(revoked.status, revoked.text).toBe(204);
    // The delta now holds the guide without the team's grant; the shard's copy still has it, hidden.
    const gone = await searchUntil(`/search/${lost}`, member.token, (b) => b.totalResults === 0);
    expect(gone).toMatchObject({ totalResults: 0, results: [] });
    store.forgetHeldIndex();
    const hits = await store.searchIndex({ text: lost, langid: 'en', kinds: new Set(['guide']) });
    expect(hits.map((hit) => [hit.recordid, hit.access?.grant_teamids])).toEqual([[guide.guideid, []]]);
    // The admin still finds it: the guide left the member's results, not the index.
    const asAdmin = await api('GET', `/search/${lost}`, { token: admin });
    expect(guideids(asAdmin.body)).toEqual([guide.guideid]);
    resetS3ClientForTests();
  });
});
