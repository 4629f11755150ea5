/**
 * Users: every account GET /users lists, read in full through GET /users/{userid} (an Admin's
 * token sees email, sso and employee ids), with the badges each earned. Items are built by
 * shared/db/entities/user.ts and badge.ts, so uniqueness claims, search words and the creator
 * link are the ones the API itself writes.
 */
import { userCreateWrites, type UserRecord } from '../../../../shared/db/entities/user.ts';
import { badgePut, type BadgeRecord } from '../../../../shared/db/entities/badge.ts';
import { searchTokens } from '../../../../shared/domain/search-tokens.ts';
import type { Role } from '../../../../shared/domain/caller.ts';
import type { UserProfileView } from '../../../../shared/views/user-views.ts';
import { itemsOfWrites, type CrawlContext, type ResourceCrawler } from '../crawl.ts';
import { forEachPageOrUnexposed, listOrUnexposed } from './content-source.ts';

/** The password hash of a migrated account: no password matches it; the reset flow sets one. */
export const NO_PASSWORD = '!';

/**
 * User attributes API 2.0 does not hand out, so a crawled user item cannot equal the stored one
 * there (test/migrate/users.test.ts compares every other attribute):
 * - password_hash: never leaves an API; migrated users set a password through the reset flow.
 * - flags: GET /user/flags answers the caller's flags merged with the site's, for the caller only.
 * - version: an internal optimistic-lock counter; a migrated user starts at 1.
 */
export const USER_ATTRIBUTES_NOT_EXPOSED = ['password_hash', 'flags', 'version'] as const;

/** The stored record of a user as its profile shows it. */
export function userRecordFromProfile(profile: UserProfileView, createdBy: number | null): UserRecord {
  return {
    userid: profile.userid,
    username: profile.username,
    unique_username: profile.unique_username,
    email: profile.email ?? '',
    password_hash: NO_PASSWORD,
    privileges: profile.privileges as Role[],
    teams: [...profile.teams].sort((a, b) => a - b),
    join_date: profile.join_date,
    reputation: profile.reputation,
    // A built-in avatar (negative id, the source's default) is no avatar here: the destination
    // shows its own default avatar rather than URLs of the source site (decision 195).
    image: profile.image && profile.image.id >= 0 ? profile.image : null,
    location: profile.location,
    summary: profile.summary,
    about_raw: profile.about_raw === false ? '' : profile.about_raw,
    sso_userid: profile.sso_userid ?? null,
    employee_id: profile.employee_id ?? null,
    created_by: createdBy,
    flags: [],
    badge_counts: profile.badge_counts,
    search_tokens: searchTokens(profile.username, profile.unique_username),
    version: 1,
  };
}

async function crawlUser(context: CrawlContext, userid: number, createdBy: number | null): Promise<void> {
  const profile = await context.api.find<UserProfileView>(`/users/${userid}`);
  if (!profile) {
    context.report.skipped(`user ${userid}`, 'listed, but GET /users/{userid} refused or lost it');
    return;
  }
  if (profile.email === undefined) {
    context.report.unexposed('user email addresses', 'only an Admin token reads them; users without one are skipped');
    context.report.skipped(`user ${userid}`, 'no email address exposed to this token');
    return;
  }
  const badges = await context.api.find<BadgeRecord[]>(`/users/${userid}/badges`);
  if (!badges) context.report.unexposed('user badges', `GET /users/${userid}/badges was refused`);
  const user = userRecordFromProfile(profile, createdBy);
  await context.sink.items(itemsOfWrites([...userCreateWrites(user), ...(badges ?? []).map(badgePut)]));
}

export const usersCrawler: ResourceCrawler = {
  name: 'users',
  async crawl(context) {
    const self = await context.api.get<{ userid: number }>('/user');
    // Only the caller's own creations are listed; everyone else's creator is not exposed.
    const created = await listOrUnexposed<{ userid: number }>(
      context,
      'users created by the migrating account',
      '/users/created_users',
    );
    const createdBySelf = new Set((created ?? []).map((user) => user.userid));
    context.report.unexposed('password hashes', 'migrated users set their password through the reset flow');
    context.report.unexposed('per-user feature flags', 'GET /user/flags merges them with the site flags');
    context.report.unexposed(
      'the creator of users created by other accounts',
      'GET /users/created_users is per caller',
    );
    await forEachPageOrUnexposed<{ userid: number }>(
      context,
      'users',
      '/users',
      async (page) => {
        for (const { userid } of page) {
          context.known.add('user', userid);
          context.sink.idSeen('user', userid);
          const unit = `user:${userid}`;
          if (context.isDone(unit)) continue;
          await crawlUser(context, userid, createdBySelf.has(userid) ? self.userid : null);
          await context.completed(unit);
        }
      },
      { order: 'ASC' },
    );
  },
};
