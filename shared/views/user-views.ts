/**
 * The wire shapes of a user (docs/wire-fidelity.md §2.2): the summary form used in lists
 * (userSummarySchema, in common-schemas.ts), the profile form of GET /users/{userid}, the self
 * form of GET /user, and the self form with a token that login, register and impersonate answer.
 * Each shape is a zod schema (the routes' `response`, so OpenAPI and the API tests check it) and
 * the builders below return its output type.
 */
import * as z from 'zod/mini';
import type { UserRecord } from '../db/entities/user.ts';
import { userSummarySchema, type ImageView, type UserSummaryView } from './common-schemas.ts';
import { urlSlug } from '../domain/text.ts';
import { renderWiki } from '../domain/wiki-syntax/index.ts';
import { DEFAULT_AVATAR_PATH, IMAGE_SIZES } from '../domain/media.ts';
import { SERVICE_USERID, type ServiceAuthor } from '../domain/caller.ts';

/**
 * The default avatar's image id: negative like the real service's built-in avatars, and not -1,
 * which the Android app reads as "a local image not uploaded yet".
 */
export const DEFAULT_AVATAR_IMAGEID = -32;
export const DEFAULT_AVATAR_GUID = 'default_avatar_placeholder_guid';

/** The Image object of a user without an avatar: the apps dereference every user's `image`. */
export function defaultAvatarImage(siteUrl: string): ImageView {
  const base = `${siteUrl}${DEFAULT_AVATAR_PATH}`;
  const image: ImageView = { id: DEFAULT_AVATAR_IMAGEID, guid: DEFAULT_AVATAR_GUID };
  for (const size of IMAGE_SIZES) image[size.name] = `${base}.${size.name}`;
  image.original = base;
  return image;
}

/**
 * The avatar URL a list row carries (`user_avatar` of the course assignee lists): the real
 * service sends the 140x105 size, of the user's image or of its default avatar.
 */
export const ROW_AVATAR_SIZE = '140x105';

export function defaultAvatarUrl(siteUrl: string, size: string = ROW_AVATAR_SIZE): string {
  return `${siteUrl}${DEFAULT_AVATAR_PATH}.${size}`;
}

/** About text on the wire: a string, or `false` (not null) when empty. */
const aboutText = z.union([z.string(), z.literal(false)]);

export const userProfileSchema = z.object({
  ...userSummarySchema.shape,
  location: z.nullable(z.string()),
  summary: z.nullable(z.string()),
  about_raw: aboutText,
  about_rendered: aboutText,
  certification_count: z.int(),
  badge_counts: z.object({ bronze: z.int(), silver: z.int(), gold: z.int(), total: z.int() }),
  // Contact and identity fields: only for the user themself and Admins.
  email: z.optional(z.string()),
  sso_userid: z.optional(z.nullable(z.string())),
  employee_id: z.optional(z.nullable(z.string())),
});

/** GET /user: the profile with the private fields always present, plus links and position. */
export const userSelfSchema = z.object({
  ...userProfileSchema.shape,
  email: z.string(),
  sso_userid: z.nullable(z.string()),
  employee_id: z.nullable(z.string()),
  links: z.object({ manage: z.string() }),
  latitude: z.nullable(z.number()),
  longitude: z.nullable(z.number()),
});

/** POST /user/token, POST /users, POST /user/token/impersonate: the self form with the new token. */
export const userSelfWithTokenSchema = z.object({ ...userSelfSchema.shape, authToken: z.string() });
/** GET /user: `authToken` only when the session cookie authenticated it (single sign-on). */
export const userSelfMaybeWithTokenSchema = z.object({ ...userSelfSchema.shape, authToken: z.optional(z.string()) });

/** The deprecated GET /users/searchnames/{search}: ids and names only. */
export const userNameSchema = z.object({
  userid: z.int(),
  username: z.string(),
  unique_username: z.nullable(z.string()),
});

/** POST /users/unique_usernames: one available unique_username per name asked about. */
export const uniqueUsernameSuggestionSchema = z.object({ name: z.string(), unique_username: z.string() });

/** POST /users/createByEmails: accounts made, and the addresses that had one or were no address. */
export const createdByEmailsSchema = z.object({
  created: z.array(userSummarySchema),
  existing: z.array(z.string()),
  invalid: z.array(z.string()),
});

export type UserProfileView = z.output<typeof userProfileSchema>;
export type UserSelfView = z.output<typeof userSelfSchema>;
export type UserSelfWithTokenView = z.output<typeof userSelfWithTokenSchema>;
export type UserNameView = z.output<typeof userNameSchema>;
export type CreatedByEmailsView = z.output<typeof createdByEmailsSchema>;

export function userUrl(siteUrl: string, user: Pick<UserRecord, 'userid' | 'username'>): string {
  return `${siteUrl}/User/${user.userid}/${urlSlug(user.username)}`;
}

/**
 * Whether a viewer may see a team id in `teams` (shared/accounts/team-visibility.ts builds it).
 * Without one a summary lists no teams: a summary built without knowing its viewer (an author
 * inside a guide, a comment, a signoff) must not reveal a private team's members (decision 169).
 */
export type ShownTeams = (teamid: number) => boolean;

export function userSummary(user: UserRecord, siteUrl: string, shownTeams?: ShownTeams): UserSummaryView {
  return {
    userid: user.userid,
    username: user.username,
    unique_username: user.unique_username,
    join_date: user.join_date,
    image: (user.image as ImageView | null) ?? defaultAvatarImage(siteUrl),
    reputation: user.reputation,
    url: userUrl(siteUrl, user),
    teams: shownTeams ? user.teams.filter(shownTeams) : [],
    privileges: user.privileges,
  };
}

/**
 * The author of a comment or guide whose account is gone: a summary all the same, because the
 * apps read `author.userid`, `author.username` and `author.image` without a null check.
 */
export function goneUserSummary(userid: number, siteUrl: string): UserSummaryView {
  return {
    userid,
    username: GONE_USERNAME,
    unique_username: null,
    join_date: 0,
    image: defaultAvatarImage(siteUrl),
    reputation: 0,
    url: userUrl(siteUrl, { userid, username: GONE_USERNAME }),
    teams: [],
    privileges: [],
  };
}
const GONE_USERNAME = 'Deleted user';

/**
 * A site API token as the author of what it wrote (decision 244): userid 0, the token's name,
 * no reputation, teams or privileges, the default avatar, and the site as its page (it has none).
 */
export function serviceAuthorSummary(service: ServiceAuthor, siteUrl: string): UserSummaryView {
  return {
    userid: SERVICE_USERID,
    username: service.name,
    unique_username: null,
    join_date: 0,
    image: defaultAvatarImage(siteUrl),
    reputation: 0,
    url: siteUrl,
    teams: [],
    privileges: [],
  };
}

/**
 * A summary of the author: the token that wrote it, the account, or a gone account when the
 * author's record no longer exists.
 */
export const authorSummary = (
  author: UserRecord | undefined,
  userid: number,
  siteUrl: string,
  service?: ServiceAuthor,
): UserSummaryView =>
  service
    ? serviceAuthorSummary(service, siteUrl)
    : author
      ? userSummary(author, siteUrl)
      : goneUserSummary(userid, siteUrl);

export function userName(user: UserRecord): UserNameView {
  return { userid: user.userid, username: user.username, unique_username: user.unique_username };
}

/**
 * Rendered about texts by site and raw text: rendering is a pure function of the two, and a
 * profile read would otherwise parse and render the same text on every request. Bounded; the
 * oldest entry goes first.
 */
const renderedAbout = new Map<string, string>();
const RENDERED_ABOUT_MAX_ENTRIES = 500;

/** About text is wiki syntax; the wire sends `false` (not null) when it is empty. */
function renderAbout(raw: string, siteUrl: string): string | false {
  if (!raw) return false;
  const key = `${siteUrl}\n${raw}`;
  let html = renderedAbout.get(key);
  if (html === undefined) {
    html = renderWiki(raw, { siteUrl }).html;
    if (renderedAbout.size >= RENDERED_ABOUT_MAX_ENTRIES) renderedAbout.delete(renderedAbout.keys().next().value!);
    renderedAbout.set(key, html);
  }
  return html;
}

function privateFields(user: UserRecord) {
  return { email: user.email, sso_userid: user.sso_userid, employee_id: user.employee_id };
}

export function userProfile(
  user: UserRecord,
  siteUrl: string,
  options: { private: boolean; shownTeams: ShownTeams },
): UserProfileView {
  return {
    ...userSummary(user, siteUrl, options.shownTeams),
    location: user.location,
    summary: user.summary,
    about_raw: user.about_raw || false,
    about_rendered: renderAbout(user.about_raw, siteUrl),
    certification_count: 0,
    badge_counts: user.badge_counts,
    ...(options.private ? privateFields(user) : {}),
  };
}

export function userSelf(user: UserRecord, siteUrl: string): UserSelfView {
  return {
    // The user themself: every team they are in.
    ...userProfile(user, siteUrl, { private: true, shownTeams: () => true }),
    ...privateFields(user),
    links: { manage: '/Manage' },
    latitude: null,
    longitude: null,
  };
}

export function userSelfWithToken(user: UserRecord, siteUrl: string, authToken: string): UserSelfWithTokenView {
  return { ...userSelf(user, siteUrl), authToken };
}
