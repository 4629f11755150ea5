/**
 * View history: for every user the users crawler found, the guides and wiki pages they viewed
 * (GET /user_view_history/user/{userid}, the user and Admins). Items are built by
 * shared/db/entities/view-history.ts. Note that crawling a Stepwise source reads its guides and
 * pages, which adds views of the migrating account to the source's own history.
 */
import { viewItem } from '../../../../shared/db/entities/view-history.ts';
import type { ViewHistoryEntryView } from '../../../../shared/views/view-history-views.ts';
import type { ResourceCrawler } from '../crawl.ts';
import { listOrUnexposed } from './content-source.ts';

export const viewHistoryCrawler: ResourceCrawler = {
  name: 'view-history',
  after: ['users'],
  async crawl(context) {
    for (const userid of context.known.all('user')) {
      const unit = `views:user:${userid}`;
      if (context.isDone(unit)) continue;
      const views = await listOrUnexposed<ViewHistoryEntryView>(
        context,
        'view histories of users',
        `/user_view_history/user/${userid}`,
      );
      const items = (views ?? []).map((view) => viewItem({ ...view, docid: Number(view.docid) }));
      if (items.length > 0) await context.sink.items(items);
      await context.completed(unit);
    }
  },
};
