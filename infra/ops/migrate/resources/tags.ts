/**
 * Tags: every tag of the site (GET /tags) and the tags on each guide the guides crawler found
 * (GET /guides/{guideid}/tags) and on each wiki page (GET /wikis/{namespace}/{title}/tags).
 * Items are built by shared/db/entities/tag.ts. API 2.0 shows tags as bare names, so who put a
 * tag on a document and when are not exposed (TAG_ATTRIBUTES_NOT_EXPOSED).
 */
import { documentTagPut, tagPut, type TaggedDocType } from '../../../../shared/db/entities/tag.ts';
import { nowSeconds } from '../../../../shared/clock.ts';
import type { WikiListItem } from '../../../../shared/views/wiki-views.ts';
import { itemsOfWrites, type CrawlContext, type ResourceCrawler } from '../crawl.ts';
import { forEachPageOrUnexposed, listOrUnexposed } from './content-source.ts';
import { CRAWLED_WIKI_NAMESPACES } from './wikis.ts';

/**
 * Tag attributes API 2.0 does not hand out: a tag's created_date and a document tag's `userid`
 * and `date`. The crawler writes the migrating account and the time of the crawl.
 */
export const TAG_ATTRIBUTES_NOT_EXPOSED = ['created_date', 'userid', 'date'] as const;

interface Carrier {
  userid: number;
  now: number;
}

async function crawlDocumentTags(
  context: CrawlContext,
  carrier: Carrier,
  target: { docType: TaggedDocType; docid: number },
  path: string,
): Promise<void> {
  const tags = await listOrUnexposed<string>(context, 'tags of documents', path);
  if (!tags || tags.length === 0) return;
  const writes = tags.map((tag) => documentTagPut(target, tag, { userid: carrier.userid }, carrier.now));
  await context.sink.items(itemsOfWrites(writes));
}

export const tagsCrawler: ResourceCrawler = {
  name: 'tags',
  after: ['guides', 'wikis'],
  async crawl(context) {
    context.report.unexposed('who tagged a document and when', 'API 2.0 shows tags as bare names');
    const self = await context.api.get<{ userid: number }>('/user');
    const carrier: Carrier = { userid: self.userid, now: nowSeconds() };
    if (!context.isDone('tags:all')) {
      await forEachPageOrUnexposed<string>(context, 'the site\u2019s tags', '/tags', async (page) => {
        await context.sink.items(itemsOfWrites(page.map((tag) => tagPut(tag, carrier.now))));
      });
      await context.completed('tags:all');
    }
    for (const guideid of context.known.all('guide')) {
      const unit = `tags:guide:${guideid}`;
      if (context.isDone(unit)) continue;
      await crawlDocumentTags(context, carrier, { docType: 'GUIDE', docid: guideid }, `/guides/${guideid}/tags`);
      await context.completed(unit);
    }
    for (const namespace of CRAWLED_WIKI_NAMESPACES) {
      await forEachPageOrUnexposed<WikiListItem>(
        context,
        `${namespace} wiki pages`,
        `/wikis/${namespace}`,
        async (page) => {
          for (const wiki of page) {
            const unit = `tags:wiki:${wiki.wikiid}`;
            if (context.isDone(unit)) continue;
            const path = `/wikis/${namespace}/${encodeURIComponent(wiki.title)}/tags`;
            await crawlDocumentTags(context, carrier, { docType: 'WIKI', docid: wiki.wikiid }, path);
            await context.completed(unit);
          }
        },
      );
    }
  },
};
