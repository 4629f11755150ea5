/**
 * The view-history crawler against a live source (the test stack): a user's views equal the
 * items the API stored, both index keys included.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, loginAdmin, type TestUser } from '../support/api.ts';
import { createWiki, wikiPath } from '../support/wikis.ts';
import { viewHistoryCrawler } from '../../infra/ops/migrate/resources/view-history.ts';
import { memoryCrawl, refusing, storedPartition, type MemoryCrawl } from './support/crawl-harness.ts';

let viewer: TestUser;
let crawl: MemoryCrawl;

async function crawlViews(refused: string[] = []): Promise<MemoryCrawl> {
  const run = memoryCrawl(await loginAdmin());
  run.context.known.add('user', viewer.userid);
  await run.runWith(refusing(run.context, refused), viewHistoryCrawler);
  return run;
}

beforeAll(async () => {
  viewer = await createUser();
  const page = await createWiki({ namespace: 'WIKI' });
  expect((await api('GET', wikiPath(page), { token: viewer.token })).status).toBe(200);
  crawl = await crawlViews();
});

describe('view-history crawler', () => {
  it("writes a user's views as stored", async () => {
    const stored = await storedPartition(`VIEWS#USER#${viewer.userid}`);
    expect(stored.length).toBeGreaterThan(0);
    const crawled = [...crawl.items.values()].filter((item) => item.pk === `VIEWS#USER#${viewer.userid}`);
    expect(new Set(crawled)).toEqual(new Set(stored));
    expect(crawl.completed).toEqual([`views:user:${viewer.userid}`]);
  });

  it("reports a user's history the source refuses (403) as unexposed instead of failing", async () => {
    const limited = await crawlViews(['/user_view_history/user/']);
    expect(limited.unexposedDetail('view histories of users')).toContain('403');
    expect(limited.items.size).toBe(0);
  });
});
