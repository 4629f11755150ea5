/**
 * The releases crawler against a live source (the test stack): each guide's release items and
 * version head equal what the API stored.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, loginAdmin } from '../support/api.ts';
import { guidesCrawler } from '../../infra/ops/migrate/resources/guides.ts';
import { releasesCrawler } from '../../infra/ops/migrate/resources/releases.ts';
import { contentSite, type ContentSite } from './support/content-fixtures.ts';
import { memoryCrawl, refusing, storedItem, type MemoryCrawl } from './support/crawl-harness.ts';

// A limited crawl reads every guide of the shared test stack, which grows with the suite it runs in.
const LIMITED_CRAWL_MS = 240_000;

let site: ContentSite;
let releaseids: number[];
let crawl: MemoryCrawl;

beforeAll(async () => {
  site = await contentSite();
  releaseids = [];
  for (const release_type of ['minor', 'major', 'minor']) {
    const made = await api('POST', '/guides/releases', {
      token: site.author.token,
      body: { guideid: site.guide.guideid, release_type, notes: `${release_type} notes` },
    });
    expect(made.status).toBe(201);
    releaseids.push(made.body.releaseid);
  }
  crawl = memoryCrawl(await loginAdmin());
  await crawl.run(guidesCrawler, releasesCrawler);
});

describe('releases crawler', () => {
  it('writes every release of a guide as stored', async () => {
    for (const releaseid of releaseids) {
      const stored = await storedItem(`RELEASE#${releaseid}`, 'RELEASE');
      expect(stored).toBeDefined();
      expect(crawl.item(`RELEASE#${releaseid}`, 'RELEASE')).toEqual(stored);
    }
  });

  it("writes the guide's version head as stored and moves the release counter past every id", async () => {
    const key = `RELEASEHEAD#guide#${site.guide.guideid}`;
    expect(crawl.item(key, 'HEAD')).toEqual(await storedItem(key, 'HEAD'));
    expect(crawl.item(key, 'HEAD')).toMatchObject({ major: 1, minor: 1 });
    expect(crawl.ids.get('release')).toBeGreaterThanOrEqual(Math.max(...releaseids));
    expect(crawl.completed).toContain(`releases:guide:${site.guide.guideid}`);
  });

  it(
    "reports a guide's releases the source refuses (403) as unexposed and goes on",
    async () => {
      const limited = memoryCrawl(await loginAdmin());
      await limited.runWith(
        refusing(limited.context, [`/guides/${site.guide.guideid}/releases`]),
        guidesCrawler,
        releasesCrawler,
      );
      expect(limited.isUnexposed('releases of some guides')).toBe(true);
      expect(limited.item(`RELEASE#${releaseids[0]}`, 'RELEASE')).toBeUndefined();
      expect(limited.item(`GUIDE#${site.guide.guideid}`, 'GUIDE')).toBeDefined();
    },
    LIMITED_CRAWL_MS,
  );
});
