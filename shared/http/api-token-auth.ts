/**
 * A site API token (`swk_<tokenid>_<secret>`, decision 227) to its service principal: the
 * record named by the tokenid, its stored SHA-256 compared in constant time. Lookups are cached
 * in the container like users' tokens (AUTH_CACHE_TTL_MS; a revocation this container makes
 * empties the cache at once). The last-used time is written when the stored one is a minute old
 * or more, so a busy integration costs one write a minute, not one per request.
 */
import { timingSafeEqual } from 'node:crypto';
import { UnauthenticatedError } from '../domain/errors.ts';
import { sha256Hex } from '../domain/secrets.ts';
import { SERVICE_USERID, type Caller } from '../domain/caller.ts';
import { CONTAINER_CACHE_TTL_MS, ContainerCache } from '../db/container-cache.ts';
import {
  type ApiTokenRecord,
  getApiToken,
  LAST_USED_RESOLUTION_SECONDS,
  touchApiToken,
} from '../db/entities/api-token.ts';
import { nowSeconds } from '../clock.ts';
import { log } from '../observability/logger.ts';

const principals = new ContainerCache<ApiTokenRecord>(100);

function sameHash(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

/**
 * The Caller of a service principal: no account (SERVICE_USERID), the Admin role only with the
 * `full` or `read-only` scope; the router holds it to its scopes (shared/http/api-scopes.ts).
 */
export function serviceCaller(token: Pick<ApiTokenRecord, 'tokenid' | 'name' | 'scopes'>): Caller {
  const general = token.scopes.includes('full') || token.scopes.includes('read-only');
  return {
    userid: SERVICE_USERID,
    username: token.name,
    privileges: general ? ['Admin'] : [],
    teams: [],
    service: { tokenid: token.tokenid, name: token.name, scopes: [...token.scopes] },
  };
}

/** The service principal of a presented site token; 401 for a revoked, unknown or altered one. */
export async function authenticateServiceToken(presented: string, tokenid: string): Promise<Caller> {
  const now = Date.now();
  let token = principals.get(presented, now);
  if (!token) {
    const stored = await getApiToken(tokenid);
    if (!stored || !sameHash(stored.token_hash, sha256Hex(presented))) throw new UnauthenticatedError();
    token = stored;
    principals.set(presented, token, now + CONTAINER_CACHE_TTL_MS);
  }
  const seconds = nowSeconds();
  if (token.last_used === undefined || token.last_used <= seconds - LAST_USED_RESOLUTION_SECONDS) {
    // Bookkeeping: a failed write (a group granted reads only) never fails the request.
    await touchApiToken(tokenid, seconds).catch((error: unknown) =>
      log().warn('Could not record the API token use', { tokenid, error: error as Error }),
    );
    // Until the cache is emptied (this write empties it), later requests see the new time.
    token.last_used = seconds;
  }
  return serviceCaller(token);
}
