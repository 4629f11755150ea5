/**
 * Favorites and completions: for every user the users crawler found, the guides they marked
 * (GET /users/{userid}/favorites/guides and /users/{userid}/completions) with the date of each
 * mark. Items are built by shared/db/entities/guide-mark.ts.
 */
import { guideMarkItem, type GuideMarkKind } from '../../../../shared/db/entities/guide-mark.ts';
import type { GuideMarkView } from '../../../../shared/views/guide-mark-views.ts';
import type { CrawlContext, ResourceCrawler } from '../crawl.ts';
import { listOrUnexposed } from './content-source.ts';

const MARK_LISTS: Record<GuideMarkKind, { what: string; path: (userid: number) => string }> = {
  FAVORITE: { what: 'favorite guides of users', path: (userid) => `/users/${userid}/favorites/guides` },
  COMPLETED: { what: 'guide completions of users', path: (userid) => `/users/${userid}/completions` },
};

async function crawlMarks(context: CrawlContext, userid: number): Promise<void> {
  const items: Record<string, unknown>[] = [];
  for (const [kind, list] of Object.entries(MARK_LISTS) as Array<[GuideMarkKind, (typeof MARK_LISTS)[GuideMarkKind]]>) {
    const marks = await listOrUnexposed<GuideMarkView>(context, list.what, list.path(userid));
    for (const mark of marks ?? [])
      items.push(guideMarkItem(kind, { userid, guideid: mark.guide.guideid, date: mark.date }));
  }
  if (items.length > 0) await context.sink.items(items);
}

export const marksCrawler: ResourceCrawler = {
  name: 'marks',
  after: ['users'],
  async crawl(context) {
    context.report.unexposed(
      'marks on guides the migrating account cannot read',
      'a user\u2019s favorites and completions list only guides the reader may see',
    );
    for (const userid of context.known.all('user')) {
      const unit = `marks:user:${userid}`;
      if (context.isDone(unit)) continue;
      await crawlMarks(context, userid);
      await context.completed(unit);
    }
  },
};
