/** Who is calling: resolved once per request from `Authorization: api <token>`. */
export type Role = 'Admin' | 'Author' | 'User';

export interface Caller {
  userid: number;
  username: string;
  privileges: Role[];
  teams: number[];
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
