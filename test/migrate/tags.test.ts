/**
 * The tags crawler against a live source (the test stack): tag items and the tags on guides and
 * wiki pages equal what the API stored, but for TAG_ATTRIBUTES_NOT_EXPOSED (who tagged, when).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, loginAdmin, uniqueSuffix } from '../support/api.ts';
import { createWiki, wikiPath, type CreatedWiki } from '../support/wikis.ts';
import { guidesCrawler } from '../../infra/ops/migrate/resources/guides.ts';
import { TAG_ATTRIBUTES_NOT_EXPOSED, tagsCrawler } from '../../infra/ops/migrate/resources/tags.ts';
import { contentSite, type ContentSite } from './support/content-fixtures.ts';
import { memoryCrawl, refusing, storedItem, withoutAttributes, type MemoryCrawl } from './support/crawl-harness.ts';

// A limited crawl reads every guide of the shared test stack, which grows with the suite it runs in.
const LIMITED_CRAWL_MS = 240_000;

let site: ContentSite;
let page: CreatedWiki;
let guideTag: string;
let wikiTag: string;
let crawl: MemoryCrawl;

beforeAll(async () => {
  site = await contentSite();
  page = await createWiki({ namespace: 'WIKI' });
  guideTag = `nozzle ${uniqueSuffix()}`;
  wikiTag = `manual ${uniqueSuffix()}`;
  const admin = await loginAdmin();
  const onGuide = await api('PUT', `/guides/${site.guide.guideid}/tag`, { token: admin, body: { tag: guideTag } });
  expect(onGuide.status).toBeLessThan(300);
  const onWiki = await api('PUT', wikiPath(page, '/tag'), { token: admin, body: { tag: wikiTag } });
  expect(onWiki.status).toBeLessThan(300);
  crawl = memoryCrawl(admin);
  await crawl.run(guidesCrawler, tagsCrawler);
});

async function expectCrawledAsStored(pk: string, sk: string) {
  const stored = await storedItem(pk, sk);
  expect(stored, `${pk} ${sk} stored`).toBeDefined();
  expect(withoutAttributes(crawl.item(pk, sk), TAG_ATTRIBUTES_NOT_EXPOSED)).toEqual(
    withoutAttributes(stored, TAG_ATTRIBUTES_NOT_EXPOSED),
  );
}

describe('tags crawler', () => {
  it('writes every tag of the site as stored', async () => {
    await expectCrawledAsStored(`TAG#${guideTag}`, 'TAG');
    await expectCrawledAsStored(`TAG#${wikiTag}`, 'TAG');
  });

  it('writes the tags on guides and on wiki pages as stored', async () => {
    await expectCrawledAsStored(`TAGGED#GUIDE#${site.guide.guideid}`, `TAG#${guideTag}`);
    await expectCrawledAsStored(`TAGGED#WIKI#${page.wikiid}`, `TAG#${wikiTag}`);
    expect(crawl.completed).toContain(`tags:guide:${site.guide.guideid}`);
    expect(crawl.isUnexposed('who tagged a document and when')).toBe(true);
  });

  it(
    "reports a document's tags the source refuses (403) as unexposed and carries the rest",
    async () => {
      const limited = memoryCrawl(await loginAdmin());
      await limited.runWith(
        refusing(limited.context, [`/guides/${site.guide.guideid}/tags`]),
        guidesCrawler,
        tagsCrawler,
      );
      expect(limited.unexposedDetail('tags of documents')).toContain('403');
      expect(limited.item(`TAGGED#GUIDE#${site.guide.guideid}`, `TAG#${guideTag}`)).toBeUndefined();
      expect(limited.item(`TAGGED#WIKI#${page.wikiid}`, `TAG#${wikiTag}`)).toBeDefined();
    },
    LIMITED_CRAWL_MS,
  );
});
