/**
 * The comments crawler against a live source (the test stack): threads, replies, reply links
 * and the aggregates replies move (reply_count, replied_date, a step's comment_count) equal what
 * the API stored.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, loginAdmin, uniqueSuffix } from '../support/api.ts';
import { createWiki, type CreatedWiki } from '../support/wikis.ts';
import { commentsCrawler } from '../../infra/ops/migrate/resources/comments.ts';
import { guidesCrawler } from '../../infra/ops/migrate/resources/guides.ts';
import { contentSite, type ContentSite } from './support/content-fixtures.ts';
import { memoryCrawl, refusing, storedItem, storedPartition, type MemoryCrawl } from './support/crawl-harness.ts';

let site: ContentSite;
let page: CreatedWiki;
let commentids: number[];
let threadid: number;
let stepid: number;
let crawl: MemoryCrawl;

async function comment(token: string, context: string, contextid: number, body: Record<string, unknown> = {}) {
  const response = await api('POST', `/comments/${context}/${contextid}`, {
    token,
    body: { text: `Comment ${uniqueSuffix()}`, ...body },
  });
  expect(response.status, `${context} ${contextid}: ${response.text}`).toBe(201);
  return response.body.commentid as number;
}

beforeAll(async () => {
  site = await contentSite();
  page = await createWiki({ namespace: 'WIKI' });
  stepid = site.guide.steps[0].stepid;
  threadid = await comment(site.reader.token, 'guide', site.guide.guideid);
  commentids = [
    threadid,
    await comment(site.author.token, 'guide', site.guide.guideid, { parentid: threadid }),
    await comment(site.reader.token, 'step', stepid),
    await comment(site.author.token, 'wiki', page.wikiid),
  ];
  crawl = memoryCrawl(await loginAdmin());
  await crawl.run(guidesCrawler, commentsCrawler);
});

describe('comments crawler', () => {
  it('writes threads and replies as stored, guide of a step comment included', async () => {
    for (const commentid of commentids) {
      const stored = await storedItem(`COMMENT#${commentid}`, 'COMMENT');
      expect(stored).toBeDefined();
      expect(crawl.item(`COMMENT#${commentid}`, 'COMMENT')).toEqual(stored);
    }
    expect(crawl.item(`COMMENT#${commentids[2]}`, 'COMMENT')).toMatchObject({ guideid: site.guide.guideid });
    expect(crawl.item(`COMMENT#${threadid}`, 'COMMENT')).toMatchObject({ reply_count: 1 });
  });

  it('writes the reply links and the step comment count as stored', async () => {
    const links = await storedPartition(`COMMENT#${threadid}`, 'REPLY#');
    expect(links).toHaveLength(1);
    expect(crawl.item(String(links[0].pk), String(links[0].sk))).toEqual(links[0]);
    const step = await storedItem(`STEP#${stepid}`, 'STEP');
    expect(step).toMatchObject({ comment_count: 1 });
    expect(crawl.item(`STEP#${stepid}`, 'STEP')).toEqual(step);
  });

  it('moves the comment counter past every id and marks each thread done', () => {
    expect(crawl.ids.get('comment')).toBeGreaterThanOrEqual(Math.max(...commentids));
    expect(crawl.completed).toContain(`comment:${threadid}`);
  });

  it('reports comments the source refuses (403) as unexposed instead of failing', async () => {
    const limited = memoryCrawl(await loginAdmin());
    await limited.runWith(refusing(limited.context, ['/comments']), commentsCrawler);
    expect(limited.unexposedDetail('comments')).toContain('403');
    expect(limited.item(`COMMENT#${threadid}`, 'COMMENT')).toBeUndefined();
  });
});
