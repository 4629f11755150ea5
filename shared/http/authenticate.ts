/**
 * Resolves `Authorization: api <token>` to the caller. The token is looked up by its SHA-256
 * hash; an unknown or expired token is a 401 ("Invalid login"), whatever the route.
 */
import { UnauthenticatedError } from '../domain/errors.ts';
import { apiTokenUserid, sha256Hex } from '../domain/secrets.ts';
import { getLiveTokenWithUser } from '../db/entities/token.ts';
import { userFromItem } from '../db/entities/user.ts';
import type { AuthContext } from '../domain/caller.ts';

const SCHEME = /^api\s+(\S+)\s*$/i;

export async function authenticate(headers: Record<string, string>): Promise<AuthContext> {
  const appId = headers['x-app-id'];
  const header = headers['authorization'];
  if (!header) return { user: null, appId };
  const match = SCHEME.exec(header);
  if (!match) throw new UnauthenticatedError();
  const userid = apiTokenUserid(match[1]);
  if (userid === undefined) throw new UnauthenticatedError();
  const tokenHash = sha256Hex(match[1]);
  const found = await getLiveTokenWithUser(tokenHash, userid);
  if (!found) throw new UnauthenticatedError();
  const { token } = found;
  const user = userFromItem(found.userItem);
  return {
    user: { userid: user.userid, username: user.username, privileges: user.privileges, teams: user.teams },
    tokenHash,
    impersonatorUserid: token.impersonator_userid ?? undefined,
    appId,
  };
}
