/** Who is calling: resolved once per request from `Authorization: api <token>`. */
export type Role = 'Admin' | 'Author' | 'User';

/** What a site's API token may do (docs/identity.md). */
export const API_SCOPES = ['read-only', 'full', 'scim', 'external-courses'] as const;
export type ApiScope = (typeof API_SCOPES)[number];

/**
 * A site's API token acting: a service principal, not a user (decision 227). Its Caller has
 * userid SERVICE_USERID (0, no account) and the Admin role only with `full` or `read-only`; the
 * router keeps it to its scopes before any service sees it.
 */
export interface ServicePrincipal {
  tokenid: string;
  name: string;
  scopes: ApiScope[];
}

/** The userid of a service principal's Caller: no account has it (ids start at 1). */
export const SERVICE_USERID = 0;

export interface Caller {
  userid: number;
  username: string;
  privileges: Role[];
  teams: number[];
  /** Set when a site API token (not a user) is calling. */
  service?: ServicePrincipal;
}

/** The audit actor fields of a caller: a service principal is named by its token, not a user. */
export function auditActor(caller: Caller): { actor_userid: number | null; actor_tokenid?: string } {
  return caller.service
    ? { actor_userid: null, actor_tokenid: caller.service.tokenid }
    : { actor_userid: caller.userid };
}

/**
 * The token that wrote a record as a service principal (decision 244): stored beside the
 * record's userid 0, so its views name the token (its name, kept as written: a revoked token's
 * record is gone) and the record agrees with the audit trail's actor_tokenid.
 */
export interface ServiceAuthor {
  tokenid: string;
  name: string;
}

/**
 * The tokenid of a token's content crawled from another site (npm run migrate): API 2.0 shows
 * the token as an author of userid 0 with its name, never its id, and the token does not move.
 * No token is given it (tokenids are 64 random bits), so no token is the writer of such content.
 */
export const MIGRATED_TOKENID = '0000000000000000';

/** The service_author of content shown as `author` on the wire: userid 0 is a token's. */
export function serviceAuthorOfWire(author: { userid: number; username: string } | null | undefined): {
  service_author?: ServiceAuthor;
} {
  return author?.userid === SERVICE_USERID
    ? { service_author: { tokenid: MIGRATED_TOKENID, name: author.username } }
    : {};
}

/** `{service_author}` to spread into a record the caller writes; nothing for a user. */
export function serviceAuthorFields(caller: Caller): { service_author?: ServiceAuthor } {
  return caller.service ? { service_author: { tokenid: caller.service.tokenid, name: caller.service.name } } : {};
}

/**
 * Who did something, as a record stores it where it names a person in a field of its own
 * (`modified_by`, `created_by`, a team's `owner`; decision 260): a person's userid in the field;
 * for a site API token the field is null, never userid 0, and `<field>_token` beside it names the
 * token (its id and name as written). For a person `<field>_token` is undefined, so a record a
 * person rewrites drops the token that wrote it before (undefined attributes are not stored).
 */
export type ActorFields<F extends string> = { [K in F]: number | null } & {
  [K in `${F}_token`]?: ServiceAuthor | undefined;
};

export function actorFields<F extends string>(field: F, caller: Caller): ActorFields<F> {
  const token = caller.service ? { tokenid: caller.service.tokenid, name: caller.service.name } : undefined;
  return { [field]: token ? null : caller.userid, [`${field}_token`]: token } as ActorFields<F>;
}

/**
 * A stored actor id as views show it: userid 0 is what a token wrote before decision 260 (its
 * audit record names the token), shown as null like a token's write since, never as user 0.
 */
export function actorUserid(userid: number | null): number | null {
  return userid === SERVICE_USERID ? null : userid;
}

/**
 * Whose a caller's own things are, as a key part: a user's userid; a site API token's
 * `token-<tokenid>`, so two tokens (all userid 0) never share what is keyed by it: client guid
 * claims (decision 250), media libraries (decision 253).
 */
export type OwnerKey = number | `token-${string}`;

export function ownerKey(caller: Caller): OwnerKey {
  return caller.service ? `token-${caller.service.tokenid}` : caller.userid;
}

/** True when `caller` wrote a record (author userid, and service_author for a token's record). */
export function isWriterOf(caller: Caller, record: { userid: number; service_author?: ServiceAuthor }): boolean {
  if (caller.service || record.service_author)
    return caller.service?.tokenid !== undefined && caller.service.tokenid === record.service_author?.tokenid;
  return record.userid === caller.userid;
}

export interface AuthContext {
  /** null for an anonymous request. */
  user: Caller | null;
  /** SHA-256 of the presented token (to revoke it), when there is one. */
  tokenHash?: string;
  /** Set when the token was minted by an Admin's impersonation. */
  impersonatorUserid?: number;
  appId?: string;
  /**
   * The session token, when the session cookie authenticated the request (page routes and
   * GET /user only; docs/sessions.md). GET /user hands it to the apps as `authToken`.
   */
  sessionToken?: string;
}

/** The authentication of a request to a user / author / admin route: the router admits no anonymous one. */
export interface SignedInAuth extends AuthContext {
  user: Caller;
}

const RANK: Record<Role, number> = { User: 1, Author: 2, Admin: 3 };

/** The highest role a caller holds. Roles nest: Admin > Author > User. */
export function roleRank(caller: Caller): number {
  return Math.max(RANK.User, ...caller.privileges.map((role) => RANK[role] ?? 0));
}

export function hasRole(caller: Caller | null, role: Role): boolean {
  return caller !== null && roleRank(caller) >= RANK[role];
}

export function isAdmin(caller: Caller | null): boolean {
  return hasRole(caller, 'Admin');
}
