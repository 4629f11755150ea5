/**
 * Badges users earned (GET /users/{userid}/badges). Walks the user list itself rather than the
 * users crawler's known ids, so it needs no other crawler; one unit per user.
 */
import { badgeItem } from '../../../../shared/db/entities/badge.ts';
import { badgeSchema } from '../../../../shared/views/badge-views.ts';
import type { ResourceCrawler } from '../crawl.ts';

const USERS_PAGE = 200;

export const badgesCrawler: ResourceCrawler = {
  name: 'badges',
  async crawl({ api, sink, report, isDone, completed }) {
    for await (const page of api.pages<{ userid: number }>('users', { pageSize: USERS_PAGE })) {
      await Promise.all(
        page.map(async ({ userid }) => {
          const unit = `badges:user:${userid}`;
          if (isDone(unit)) return;
          sink.idSeen('user', userid);
          const answer = await api.find<unknown[]>(`users/${userid}/badges`);
          if (!Array.isArray(answer)) {
            report.skipped('badges of a user', 'the source did not list them to this account');
            await completed(unit);
            return;
          }
          const items: Record<string, unknown>[] = [];
          for (const entry of answer) {
            const badge = badgeSchema.safeParse(entry);
            if (badge.success && badge.data.userid === userid) items.push(badgeItem(badge.data));
            else report.skipped('badge', 'not in the shape Stepwise stores (badgeid, title, level, date)');
          }
          await sink.items(items);
          await completed(unit);
        }),
      );
    }
  },
};
