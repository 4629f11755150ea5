/**
 * Dozuki's signed remote login (docs/identity.md, decision 231): the customer's site sends the
 * browser to `/Guide/User/remote_login?userid=..&email=..&name=..&t=..&hash=..`, where `hash` is
 * the last parameter and is hex(sha1(<the query string before "&hash="> + <the site's SSO
 * secret>)). The hash covers the bytes as sent, in their order, so it is checked on the raw query
 * string, never on parameters decoded and put back together.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

export interface RemoteLoginClaims {
  userid: string;
  email: string;
  name: string;
  /** Unix seconds when the customer's site signed the link. */
  t: number;
  hash: string;
  /** Where to go afterwards, when the signed query names it (covered by the hash). */
  returnTo?: string;
}

export type RemoteLoginProblem = 'unsigned' | 'bad_hash' | 'missing_field' | 'stale';

const HASH_PARAM = '&hash=';

/** hex(sha1(query + secret)): what the customer's site computes. */
export function remoteLoginHash(signedQuery: string, secret: string): string {
  return createHash('sha1')
    .update(signedQuery + secret, 'utf8')
    .digest('hex');
}

/** The query string a customer's site sends for these claims (what its code does; the tests use it). */
export function signRemoteLogin(
  claims: { userid: string; email: string; name: string; t: number },
  secret: string,
): string {
  const query = new URLSearchParams({
    userid: claims.userid,
    email: claims.email,
    name: claims.name,
    t: String(claims.t),
  }).toString();
  return `${query}${HASH_PARAM}${remoteLoginHash(query, secret)}`;
}

/**
 * Checks a remote login's raw query string: the hash is the last parameter and matches, the
 * required fields are there, and `t` is within `windowSeconds` of `now` (either way: clocks
 * drift). Returns the claims or the first problem found.
 */
export function verifyRemoteLogin(
  rawQuery: string,
  secret: string,
  now: number,
  windowSeconds: number,
): { ok: true; claims: RemoteLoginClaims } | { ok: false; problem: RemoteLoginProblem } {
  const at = rawQuery.lastIndexOf(HASH_PARAM);
  if (at <= 0) return { ok: false, problem: 'unsigned' };
  const signed = rawQuery.slice(0, at);
  const given = rawQuery.slice(at + HASH_PARAM.length).toLowerCase();
  if (!/^[0-9a-f]{40}$/.test(given)) return { ok: false, problem: 'bad_hash' };
  const expected = Buffer.from(remoteLoginHash(signed, secret), 'hex');
  if (!timingSafeEqual(expected, Buffer.from(given, 'hex'))) return { ok: false, problem: 'bad_hash' };
  const fields = new URLSearchParams(signed);
  const userid = fields.get('userid')?.trim() ?? '';
  const email = fields.get('email')?.trim() ?? '';
  const t = Number(fields.get('t'));
  if (!userid || !email || !Number.isSafeInteger(t)) return { ok: false, problem: 'missing_field' };
  if (Math.abs(now - t) > windowSeconds) return { ok: false, problem: 'stale' };
  const name = fields.get('name')?.trim() || email.split('@')[0]!;
  const returnTo = fields.get('returnTo') ?? undefined;
  return { ok: true, claims: { userid, email, name, t, hash: given, ...(returnTo ? { returnTo } : {}) } };
}
