/**
 * Electronic signatures (21 CFR Part 11 §11.200): each signature is made by its signer entering
 * their password for that signature — directly, or through a signing token that the password
 * bought minutes earlier for that one approval request (an over-the-shoulder signature: the
 * signer types their login and password on someone else's device). Passwords are checked under
 * the login throttle (login-throttle.ts, the same counters as logins), so a stolen session cannot
 * be used to guess the password faster. A session minted by impersonation never
 * signs: the Admin behind it is not the person whose name the signature would carry.
 */
import { randomBytes } from 'node:crypto';
import { ForbiddenError, ValidationError } from '../domain/errors.ts';
import { sha256Hex } from '../domain/secrets.ts';
import type { AuthContext } from '../domain/caller.ts';
import { nowSeconds } from '../clock.ts';
import { findUserIdBy, getUser, type UserRecord } from '../db/entities/user.ts';
import { getSigningToken, putSigningToken, type SigningTokenRecord } from '../db/entities/signing-token.ts';
import { passwordAccepted } from './login-throttle.ts';

export type SignatureMethod = 'password' | 'token';

/** How long a signing token lives: long enough to sign, short enough not to linger. */
export const SIGNING_TOKEN_TTL_SECONDS = 300;

const WRONG_PASSWORD = 'The login or password is not correct';

export function refuseImpersonatedSignature(auth: AuthContext): void {
  if (auth.impersonatorUserid !== undefined) {
    throw new ForbiddenError('Electronic signatures cannot be made with an impersonation token');
  }
}

/**
 * Checks a signer's password (throttled like a login): wrong → 422 on `password`, too many
 * failures → 429. `user` undefined (an unknown login) costs the same and fails the same way.
 */
export async function checkSignerPassword(
  user: UserRecord | undefined,
  password: string,
  sourceIp: string,
  login?: string,
): Promise<UserRecord> {
  const accepted = await passwordAccepted(
    { account: user?.email ?? login ?? '', sourceIp, passwordHash: user?.password_hash, password },
    'Too many wrong passwords; try again later',
  );
  if (!user || !accepted) throw ValidationError.field('password', 'invalid_password', WRONG_PASSWORD);
  return user;
}

/** The account a login names: an email address or a unique_username. */
export async function findSigner(login: string): Promise<UserRecord | undefined> {
  const userid = (await findUserIdBy('EMAIL', login)) ?? (await findUserIdBy('UNIQUE_USERNAME', login));
  return userid === undefined ? undefined : getUser(userid);
}

/** A single-use token that lets `signer` sign approval request `subjectid` within the TTL. */
export async function issueSigningToken(
  signer: UserRecord,
  subjectid: number,
  issuedTo: number,
): Promise<{ signing_token: string; expires_at: number }> {
  const signingToken = randomBytes(32).toString('hex');
  const now = nowSeconds();
  const record: SigningTokenRecord = {
    userid: signer.userid,
    purpose: 'approval_request',
    subjectid,
    issued_to_userid: issuedTo,
    issued_date: now,
    expires_at: now + SIGNING_TOKEN_TTL_SECONDS,
  };
  await putSigningToken(sha256Hex(signingToken), record);
  return { signing_token: signingToken, expires_at: record.expires_at };
}

/** The signer a live token names for this request, and the token's hash (to use it up). */
export async function signerFromToken(
  signingToken: string,
  subjectid: number,
): Promise<{ signer: UserRecord; tokenHash: string }> {
  const tokenHash = sha256Hex(signingToken);
  const record = await getSigningToken(tokenHash);
  const signer =
    record && record.purpose === 'approval_request' && record.subjectid === subjectid
      ? await getUser(record.userid)
      : undefined;
  if (!signer)
    throw ValidationError.field(
      'signing_token',
      'invalid_token',
      'The signing token is unknown, already used, expired, or for another request',
    );
  return { signer, tokenHash };
}
