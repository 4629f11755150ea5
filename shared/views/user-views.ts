/**
 * The wire shapes of a user (reference/wire-format.md §2.2): the summary form used in lists,
 * the profile form of GET /users/{userid}, and the self form of login, register and GET /user.
 */
import type { UserRecord } from '../db/entities/user.ts';
import type { ImageView, UserSummaryView } from './common-schemas.ts';
import { urlSlug } from '../domain/text.ts';
import { renderWiki } from '../domain/wiki-syntax/index.ts';

export function userUrl(siteUrl: string, user: Pick<UserRecord, 'userid' | 'username'>): string {
  return `${siteUrl}/User/${user.userid}/${urlSlug(user.username)}`;
}

export function userSummary(user: UserRecord, siteUrl: string): UserSummaryView {
  return {
    userid: user.userid,
    username: user.username,
    unique_username: user.unique_username,
    join_date: user.join_date,
    image: user.image as ImageView | null,
    reputation: user.reputation,
    url: userUrl(siteUrl, user),
    teams: user.teams,
    privileges: user.privileges,
  };
}

/** About text is wiki syntax; the wire sends `false` (not null) when it is empty. */
function renderAbout(raw: string, siteUrl: string): string | false {
  if (!raw) return false;
  return renderWiki(raw, { siteUrl }).html;
}

export function userProfile(user: UserRecord, siteUrl: string, options: { private: boolean }) {
  return {
    ...userSummary(user, siteUrl),
    location: user.location,
    summary: user.summary,
    about_raw: user.about_raw || false,
    about_rendered: renderAbout(user.about_raw, siteUrl),
    certification_count: 0,
    badge_counts: user.badge_counts,
    // Contact and identity fields only for the user and Admins.
    ...(options.private ? { email: user.email, sso_userid: user.sso_userid, employee_id: user.employee_id } : {}),
  };
}

export function userSelf(user: UserRecord, siteUrl: string, authToken?: string) {
  return {
    ...userProfile(user, siteUrl, { private: true }),
    links: { manage: '/Manage' },
    latitude: null,
    longitude: null,
    ...(authToken ? { authToken } : {}),
  };
}
