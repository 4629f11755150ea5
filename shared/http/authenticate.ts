/**
 * Resolves `Authorization: api <token>` to the caller. A site API token (`swk_...`, decision
 * 227) is also taken as `Authorization: Bearer <token>` (SCIM clients send that) and resolves to
 * a service principal (api-token-auth.ts), not a user. The token is looked up by its SHA-256
 * hash; an unknown or expired token is a 401 ("Invalid login"), whatever the route.
 *
 * A token minted by impersonation also needs its minter to be an Admin still, with the same
 * credentials as when they minted it (decision 168).
 *
 * Lookups are cached in the container for AUTH_CACHE_TTL_MS (docs/decisions/): a warm
 * container answers a repeated caller without reading the token and user items again. Any
 * write this container makes to the table (logout, password change, role or team change, ...)
 * empties the cache at once; a change made by another container reaches this one within the TTL.
 */
import { UnauthenticatedError } from '../domain/errors.ts';
import { apiTokenUserid, serviceTokenId, sha256Hex } from '../domain/secrets.ts';
import { CONTAINER_CACHE_TTL_MS, ContainerCache } from '../db/container-cache.ts';
import { getLiveTokenWithUser, type TokenRecord } from '../db/entities/token.ts';
import { callerFromItem, getUser } from '../db/entities/user.ts';
import { impersonatorStamp } from '../accounts/credential-stamp.ts';
import { isAdmin, type AuthContext, type Caller } from '../domain/caller.ts';
import { authenticateServiceToken } from './api-token-auth.ts';

const SCHEME = /^api\s+(\S+)\s*$/i;
/**
 * The 401 of a header in the wrong form (a bare token, `Bearer` with a user's token): still
 * "Invalid login" first, as the real service says, then the form that works (issue 42).
 */
export const TOKEN_FORM_HINT = 'Invalid login: send the token as "Authorization: api <token>"';
const BEARER = /^bearer\s+(\S+)\s*$/i;

/** How long another container's revocation (logout, password change, role change) may lag here. */
export const AUTH_CACHE_TTL_MS = CONTAINER_CACHE_TTL_MS;

interface CachedLookup {
  token: TokenRecord;
  tokenHash: string;
  caller: Caller;
  /** Epoch ms: the cache TTL or the token's own expiry, whichever comes first. */
  validUntil: number;
}

/**
 * By the presented token (in this container's memory only, as the request itself is), so a hit
 * costs no hashing; at most 1,000 entries under a flood of distinct tokens.
 */
const lookups = new ContainerCache<CachedLookup>(1000);

/**
 * An impersonation token works only while its minter is an enabled Admin, not deprovisioned,
 * whose password and email have not changed since (decisions 168, 261). One more read, for
 * impersonation tokens only, and cached with the rest of the lookup. Tokens minted before the
 * stamp existed (or before it covered the email) do not pass.
 */
async function minterStillEntitled(token: TokenRecord): Promise<boolean> {
  if (token.impersonator_userid === null || token.impersonator_userid === undefined) return true;
  if (!token.impersonator_credential) return false;
  const minter = await getUser(token.impersonator_userid);
  return (
    minter !== undefined &&
    isAdmin(minter) &&
    !minter.disabled &&
    minter.scim_deleted_date === undefined &&
    impersonatorStamp(minter) === token.impersonator_credential
  );
}

async function lookUp(presented: string, userid: number): Promise<CachedLookup | undefined> {
  const now = Date.now();
  const cached = lookups.get(presented, now);
  if (cached?.token.userid === userid) return cached;
  const tokenHash = sha256Hex(presented);
  const found = await getLiveTokenWithUser(tokenHash, userid);
  if (!found || !(await minterStillEntitled(found.token))) return undefined;
  const validUntil = Math.min(now + AUTH_CACHE_TTL_MS, found.token.expires * 1000);
  // getUser of the caller is then served from this item (a GET of oneself reads nothing).
  const user = callerFromItem(found.userItem, validUntil);
  // A disabled account's tokens are deleted when it is disabled; one read just before counts not.
  if (user.disabled) return undefined;
  const caller = { userid: user.userid, username: user.username, privileges: user.privileges, teams: user.teams };
  const entry = { token: found.token, tokenHash, caller, validUntil };
  lookups.set(presented, entry, validUntil);
  return entry;
}

/**
 * The caller of a request. `sessionToken` is the session cookie's token, passed only for the
 * routes that take the cookie (shared/http/session.ts); the Authorization header comes first. A
 * cookie naming no live session is no session: the visitor is anonymous (and a closed page sends
 * them to login), where a bad Authorization header is a 401.
 */
export async function authenticate(headers: Record<string, string>, sessionToken?: string): Promise<AuthContext> {
  const appId = headers['x-app-id'];
  const header = headers.authorization;
  if (!header && sessionToken) return authenticateSession(sessionToken, appId);
  if (!header) return { user: null, appId };
  const match = SCHEME.exec(header) ?? BEARER.exec(header);
  if (!match) throw new UnauthenticatedError(TOKEN_FORM_HINT);
  const tokenid = serviceTokenId(match[1]);
  if (tokenid !== undefined) return { user: await authenticateServiceToken(match[1], tokenid), appId };
  // Bearer is for site API tokens only; a user's token goes as `api <token>`.
  if (!SCHEME.test(header)) throw new UnauthenticatedError(TOKEN_FORM_HINT);
  const userid = apiTokenUserid(match[1]);
  if (userid === undefined) throw new UnauthenticatedError();
  const found = await lookUp(match[1], userid);
  if (!found) throw new UnauthenticatedError();
  return {
    user: { ...found.caller },
    tokenHash: found.tokenHash,
    impersonatorUserid: found.token.impersonator_userid ?? undefined,
    appId,
  };
}

async function authenticateSession(token: string, appId: string | undefined): Promise<AuthContext> {
  const userid = apiTokenUserid(token);
  const found = userid === undefined ? undefined : await lookUp(token, userid);
  if (!found) return { user: null, appId };
  return {
    user: { ...found.caller },
    tokenHash: found.tokenHash,
    impersonatorUserid: found.token.impersonator_userid ?? undefined,
    appId,
    sessionToken: token,
  };
}
