/**
 * Secrets at rest: tokens are random 256-bit values stored only as SHA-256 hashes; passwords
 * are scrypt hashes with a per-password salt (N=16384, r=8, p=1), compared in constant time.
 * A hash names its own parameters, so it verifies whatever cost it was made with; the cost of new
 * hashes is the caller's (shared/accounts/passwords.ts: always 16384 deployed).
 */
import { createHash, randomBytes, scrypt as scryptCallback, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(scryptCallback) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: object,
) => Promise<Buffer>;

/** scrypt's cost N for new password hashes on a deployed site (OWASP's floor for r=8, p=1 is 2^13). */
export const PASSWORD_HASH_COST = 16384;
const SCRYPT = { r: 8, p: 1, keylen: 32 };

export function newToken(): string {
  return randomBytes(32).toString('hex');
}

/**
 * An API token: 256 random bits, then the owner's userid, so authentication can fetch the token
 * and the user together. Only the token's hash is stored; the userid alone grants nothing.
 */
export function newApiToken(userid: number): string {
  return `${newToken()}.${userid}`;
}

/** The userid an API token names, or undefined for a malformed token. */
export function apiTokenUserid(token: string): number | undefined {
  const match = /^[0-9a-f]{64}\.(\d{1,15})$/.exec(token);
  return match ? Number(match[1]) : undefined;
}

/**
 * A site API token (a service principal, decision 227): `swk_<tokenid>_<64 hex>`. The prefix
 * and underscores keep it from ever reading as a session token's `<hex>.<userid>`; the tokenid
 * (16 hex) names the stored record, which holds only the SHA-256 of the whole token.
 */
export function newServiceToken(): { tokenid: string; token: string } {
  const tokenid = randomBytes(8).toString('hex');
  return { tokenid, token: `swk_${tokenid}_${newToken()}` };
}

/** The tokenid a site API token names, or undefined when it is not one. */
export function serviceTokenId(token: string): string | undefined {
  return /^swk_([0-9a-f]{16})_[0-9a-f]{64}$/.exec(token)?.[1];
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

export async function hashPassword(password: string, cost = PASSWORD_HASH_COST): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, SCRYPT.keylen, { N: cost, r: SCRYPT.r, p: SCRYPT.p });
  return `scrypt$${cost}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

/** Whether `password` is the one `stored` hashes; `cost` is the work spent when `stored` is no hash. */
export async function verifyPassword(password: string, stored: string, cost = PASSWORD_HASH_COST): Promise<boolean> {
  const [scheme, n, r, p, saltText, keyText] = stored.split('$');
  if (scheme !== 'scrypt' || !saltText || !keyText) {
    // No usable hash (e.g. an invited account): spend the same work, so timing reveals nothing.
    await scrypt(password, randomBytes(16), SCRYPT.keylen, { N: cost, r: SCRYPT.r, p: SCRYPT.p });
    return false;
  }
  const expected = Buffer.from(keyText, 'base64');
  const actual = await scrypt(password, Buffer.from(saltText, 'base64'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
  });
  return timingSafeEqual(actual, expected);
}
