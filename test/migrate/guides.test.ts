/**
 * The guides crawler against a live source (the test stack): every item it writes for a guide
 * and its steps equals, attribute by attribute, the item the API stored under the same key,
 * except the attributes API 2.0 cannot expose (listed with reasons next to the crawler).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, loginAdmin } from '../support/api.ts';
import {
  GUIDE_ATTRIBUTES_NOT_EXPOSED,
  GUIDE_SNAPSHOT_ATTRIBUTES_NOT_EXPOSED,
  guidesCrawler,
} from '../../infra/ops/migrate/resources/guides.ts';
import { contentSite, type ContentSite } from './support/content-fixtures.ts';
import {
  memoryCrawl,
  storedItem,
  storedPartition,
  withoutAttributes,
  type MemoryCrawl,
} from './support/crawl-harness.ts';

const pad = (id: number) => String(id).padStart(12, '0');

let site: ContentSite;
let crawl: MemoryCrawl;

beforeAll(async () => {
  site = await contentSite();
  crawl = memoryCrawl(await loginAdmin());
  await crawl.run(guidesCrawler);
});

async function expectCrawledAsStored(pk: string, sk: string, notExposed: readonly string[] = []) {
  const stored = await storedItem(pk, sk);
  expect(stored, `${pk} ${sk} stored`).toBeDefined();
  const crawled = crawl.item(pk, sk);
  expect(crawled, `${pk} ${sk} crawled`).toBeDefined();
  expect(withoutAttributes(crawled, notExposed)).toEqual(withoutAttributes(stored, notExposed));
}

describe('guides crawler', () => {
  it('writes the guide item as stored: ids, revision, dates, author, steps, grants, media, flags', async () => {
    const { guideid } = site.guide;
    await expectCrawledAsStored(`GUIDE#${guideid}`, 'GUIDE', GUIDE_ATTRIBUTES_NOT_EXPOSED);
    const crawled = crawl.item(`GUIDE#${guideid}`, 'GUIDE')!;
    expect(crawled).toMatchObject({
      revisionid: site.guide.revisionid,
      grant_userids: [site.reader.userid],
      grant_teamids: [site.team.teamid],
      prerequisites: [site.prerequisite.guideid],
      documents: [site.documentid],
      image: site.images[0],
    });
    await expectCrawledAsStored(`GUIDE#${site.prerequisite.guideid}`, 'GUIDE', GUIDE_ATTRIBUTES_NOT_EXPOSED);
  });

  it("writes the current revision's snapshot, the links and the search words as stored", async () => {
    const { guideid, revisionid } = site.guide;
    await expectCrawledAsStored(`GUIDE#${guideid}`, `REV#${pad(revisionid)}`, GUIDE_SNAPSHOT_ATTRIBUTES_NOT_EXPOSED);
    await expectCrawledAsStored(`USER#${site.author.userid}`, `AUTHORED#GUIDE#${pad(guideid)}`);
    await expectCrawledAsStored('FEATURED#GUIDE', pad(guideid));
    const guide = await storedItem(`GUIDE#${guideid}`, 'GUIDE');
    for (const token of guide!.search_tokens as string[])
      await expectCrawledAsStored('SEARCH#GUIDE', `${token}#${pad(guideid)}`);
  });

  it('writes every step and its current snapshot as stored, media as ids', async () => {
    const stored = await storedItem(`GUIDE#${site.guide.guideid}`, 'GUIDE');
    const refs = stored!.steps as Array<{ stepid: number; revisionid: number }>;
    expect(refs).toHaveLength(4);
    for (const ref of refs) {
      await expectCrawledAsStored(`STEP#${ref.stepid}`, 'STEP');
      await expectCrawledAsStored(`STEP#${ref.stepid}`, `REV#${pad(ref.revisionid)}`);
    }
    const media = refs.map((ref) => crawl.item(`STEP#${ref.stepid}`, 'STEP')!.media);
    expect(media).toEqual([
      { type: 'image', data: site.images },
      { type: 'video', data: site.videoid },
      { type: 'embed', data: site.embedid },
      null,
    ]);
  });

  it('carries nothing a guide does not have: the crawled guide partition holds only what the API stored', async () => {
    const { guideid } = site.guide;
    const storedKeys = new Set((await storedPartition(`GUIDE#${guideid}`)).map((item) => String(item.sk)));
    const crawledKeys = [...crawl.items.values()]
      .filter((item) => item.pk === `GUIDE#${guideid}`)
      .map((item) => item.sk);
    for (const sk of crawledKeys) expect(storedKeys.has(String(sk))).toBe(true);
  });

  it('moves the guide, step and revision counters past the ids it carried', () => {
    expect(crawl.ids.get('guide')).toBeGreaterThanOrEqual(site.guide.guideid);
    expect(crawl.ids.get('step')).toBeGreaterThanOrEqual(Math.max(...site.guide.steps.map((s) => s.stepid)));
    expect(crawl.ids.get('revision')).toBeGreaterThanOrEqual(site.guide.revisionid);
    expect(crawl.isUnexposed('guide and step revisions older than the current one')).toBe(true);
  });

  it('reports grants the source refuses (403 to a non-editor) as unexposed and carries the guide', async () => {
    const outsider = await createUser();
    // A public guide is readable by anyone, but its grant lists are for its editors.
    expect((await api('GET', `/guides/${site.guide.guideid}/users`, { token: outsider.token })).status).toBe(403);
    const limited = memoryCrawl(outsider.token);
    await limited.run(guidesCrawler);
    expect(limited.unexposedDetail('guide user grants')).toContain('403');
    expect(limited.item(`GUIDE#${site.guide.guideid}`, 'GUIDE')).toMatchObject({ grant_userids: [] });
    // The private prerequisite is not listed to an outsider at all.
    expect(limited.item(`GUIDE#${site.prerequisite.guideid}`, 'GUIDE')).toBeUndefined();
  });
});
