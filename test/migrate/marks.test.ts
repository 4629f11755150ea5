/**
 * The marks crawler against a live source (the test stack): favorites and completions of each
 * user equal the items the API stored, dates included.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, loginAdmin } from '../support/api.ts';
import { marksCrawler } from '../../infra/ops/migrate/resources/marks.ts';
import { contentSite, type ContentSite } from './support/content-fixtures.ts';
import { memoryCrawl, refusing, storedPartition, type MemoryCrawl } from './support/crawl-harness.ts';

let site: ContentSite;
let crawl: MemoryCrawl;

/** A crawl of the marks of the site's users only (as if the users crawler had found just them). */
async function crawlMarks(prefixesRefused: string[] = []): Promise<MemoryCrawl> {
  const run = memoryCrawl(await loginAdmin());
  for (const user of [site.author, site.reader]) run.context.known.add('user', user.userid);
  await run.runWith(refusing(run.context, prefixesRefused), marksCrawler);
  return run;
}

beforeAll(async () => {
  site = await contentSite();
  const { guideid } = site.guide;
  for (const path of [`/user/favorites/guides/${guideid}`, `/guides/${guideid}/completed`]) {
    expect((await api('PUT', path, { token: site.reader.token })).status).toBeLessThan(300);
  }
  const favorite = `/user/favorites/guides/${site.prerequisite.guideid}`;
  expect((await api('PUT', favorite, { token: site.author.token })).status).toBeLessThan(300);
  crawl = await crawlMarks();
});

describe('marks crawler', () => {
  it("writes every user's favorites and completions as stored", async () => {
    for (const user of [site.author, site.reader]) {
      for (const prefix of ['FAVORITE#GUIDE#', 'COMPLETED#GUIDE#']) {
        const stored = await storedPartition(`USER#${user.userid}`, prefix);
        const crawled = [...crawl.items.values()].filter(
          (item) => item.pk === `USER#${user.userid}` && String(item.sk).startsWith(prefix),
        );
        expect(crawled).toEqual(stored);
      }
    }
    expect(crawl.completed).toEqual([`marks:user:${site.author.userid}`, `marks:user:${site.reader.userid}`]);
    const readerMarks = [...crawl.items.values()].filter((item) => item.pk === `USER#${site.reader.userid}`);
    expect(readerMarks).toHaveLength(2);
  });

  it("reports a user's marks the source refuses (403) as unexposed and carries the others", async () => {
    const limited = await crawlMarks([`/users/${site.reader.userid}/favorites`]);
    expect(limited.unexposedDetail('favorite guides of users')).toContain('403');
    const readerMarks = [...limited.items.values()].filter((item) => item.pk === `USER#${site.reader.userid}`);
    expect(readerMarks.map((item) => item.entity)).toEqual(['CompletedGuide']);
    expect([...limited.items.values()].some((item) => item.pk === `USER#${site.author.userid}`)).toBe(true);
  });
});
