/**
 * Electronic signatures (21 CFR Part 11 §11.200): each signature is made by its signer entering
 * their password for that signature — directly, or through a signing token that the password
 * bought minutes earlier for that one approval request (an over-the-shoulder signature: the
 * signer types their login and password on someone else's device). Passwords are checked under
 * the login throttle (login-throttle.ts, the same counters as logins), so a stolen session cannot
 * be used to guess the password faster. A session minted by impersonation never
 * signs: the Admin behind it is not the person whose name the signature would carry.
 *
 * A signer who signs in through a company identity provider (OIDC or SAML) proves themselves
 * there instead (decision 237, docs/identity.md): a fresh step-up within the provider's window,
 * spent by one signature; their password is refused. `proveSigner` is the one way every signing
 * route proves its signer, and says how (`authenticated_by`, stored with the signature).
 */
import { randomBytes } from 'node:crypto';
import { ForbiddenError, ValidationError } from '../domain/errors.ts';
import { sha256Hex } from '../domain/secrets.ts';
import type { AuthContext } from '../domain/caller.ts';
import { nowSeconds } from '../clock.ts';
import { siteUrl } from '../config.ts';
import { BY_PASSWORD, type AuthenticatedBy } from '../domain/signature-auth.ts';
import {
  getFreshStepUp,
  getIdentityProvider,
  stepUpSpendWrite,
  type IdentityProviderRecord,
} from '../db/entities/identity-provider.ts';
import { transactWrite, type LabelledWrite } from '../db/transactions.ts';
import { findUserIdBy, getUser, type UserRecord } from '../db/entities/user.ts';
import {
  getSigningToken,
  putSigningToken,
  putSigningTokenWrite,
  type SigningTokenRecord,
} from '../db/entities/signing-token.ts';
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

const siteBase = () => siteUrl().replace(/\/+$/, '');

/** Where a signed-in browser re-authenticates before signing (GET /sso/step_up). */
export const stepUpUrl = (): string => `${siteBase()}/sso/step_up`;

/** Where the device of an over-the-shoulder signature sends an SSO signer to sign in (GET /sso/sign_for). */
export const signForUrl = (subject: 'signoff_request' | 'approval_request', id: number): string =>
  `${siteBase()}/sso/sign_for?${subject === 'signoff_request' ? 'signoff_requestid' : 'approval_requestid'}=${id}`;

/**
 * The OIDC or SAML provider an account signs in with (its sso_userid is `<providerid>|<subject>`
 * of an enabled provider): its signatures need a step-up there. Undefined: a password signer.
 */
export async function signingProviderOf(
  user: Pick<UserRecord, 'sso_userid'>,
): Promise<IdentityProviderRecord | undefined> {
  const separator = user.sso_userid?.indexOf('|') ?? -1;
  if (!user.sso_userid || separator <= 0) return undefined;
  const provider = await getIdentityProvider(user.sso_userid.slice(0, separator));
  return provider?.enabled && provider.kind !== 'remote_login' ? provider : undefined;
}

/** 403 telling an SSO signer where to re-authenticate (`step_up_url`) instead of typing a password. */
export function stepUpRequired(provider: IdentityProviderRecord, message: string, url = stepUpUrl()): ForbiddenError {
  return new ForbiddenError(`${message} (${provider.name}): open step_up_url, then sign without a password`, {
    step_up_required: true,
    step_up_url: url,
  });
}

export interface ProvenSigner {
  signer: UserRecord;
  authenticated_by: AuthenticatedBy;
  /**
   * Writes the signature's own transaction must carry: an SSO signer's step-up, deleted on
   * condition (decision 251), so it is spent only when the signature is written, and by one
   * signature only (a failed condition is the 403 step_up_required). Empty for a password.
   */
  spend: LabelledWrite[];
}

/** The label of the write that spends a step-up in a signature's transaction. */
export const STEP_UP_SPEND_LABEL = 'step-up';

/**
 * Proves the signer of one signature: a password signer by `password` (throttled, 422 when
 * wrong or missing); an SSO signer by a fresh step-up at their provider, which this signature
 * spends (a second signature needs a second step-up). An SSO signer's password is refused (403
 * with `step_up_url`), as is a missing or stale step-up. `user` undefined: an unknown login,
 * which fails like a wrong password.
 */
export async function proveSigner(
  user: UserRecord | undefined,
  proof: {
    password: string | undefined;
    sourceIp: string;
    login?: string;
    /**
     * The signer is not the session's user (over the shoulder): an SSO signer signs in on this
     * device at this URL, never by a step-up they made elsewhere.
     */
    othersDevice?: string;
  },
): Promise<ProvenSigner> {
  if (proof.othersDevice !== undefined) return proveSignerOnOthersDevice(user, { ...proof, url: proof.othersDevice });
  const provider = user ? await signingProviderOf(user) : undefined;
  if (user && provider) {
    if (proof.password !== undefined)
      throw stepUpRequired(provider, 'This account signs through its identity provider');
    const notFresh = () => stepUpRequired(provider, 'Re-authenticate at your identity provider before each signature');
    const fresh = await getFreshStepUp(user.userid);
    if (!fresh || fresh.providerid !== provider.providerid) throw notFresh();
    return {
      signer: user,
      authenticated_by: { method: fresh.method, providerid: fresh.providerid, auth_time: fresh.auth_time },
      spend: [{ label: STEP_UP_SPEND_LABEL, item: stepUpSpendWrite(user.userid, fresh.auth_time), refusal: notFresh }],
    };
  }
  if (proof.password === undefined)
    throw ValidationError.field('password', 'missing_field', 'An electronic signature needs your password');
  return {
    signer: await checkSignerPassword(user, proof.password, proof.sourceIp, proof.login),
    authenticated_by: BY_PASSWORD,
    spend: [],
  };
}

/**
 * Over the shoulder, the password is checked first, for everyone: a wrong one is the same 422
 * whether the login names nobody, a password user or someone who signs through an identity
 * provider (who has no password here), so the answer tells a caller nothing about an account it
 * cannot sign for. It names the page where a provider's person signs in on this device instead.
 */
async function proveSignerOnOthersDevice(
  user: UserRecord | undefined,
  proof: { password: string | undefined; sourceIp: string; login?: string; url: string },
): Promise<ProvenSigner> {
  const signer = await withSignForHint(proof.url, () =>
    checkSignerPassword(user, proof.password ?? '', proof.sourceIp, proof.login),
  );
  const provider = await signingProviderOf(signer);
  if (provider) throw stepUpRequired(provider, 'This person signs through their identity provider, here', proof.url);
  return { signer, authenticated_by: BY_PASSWORD, spend: [] };
}

/** Runs an over-the-shoulder password check; its refusal also names where SSO people sign. */
export async function withSignForHint<T>(url: string, check: () => Promise<T>): Promise<T> {
  try {
    return await check();
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    const hint = `; someone who signs in through the company's identity provider signs at ${url}`;
    throw new ValidationError(
      error.message + hint,
      error.errors.map((problem) => ({ ...problem, message: problem.message + hint })),
    );
  }
}

/** The account a login names: an email address or a unique_username. */
export async function findSigner(login: string): Promise<UserRecord | undefined> {
  const userid = (await findUserIdBy('EMAIL', login)) ?? (await findUserIdBy('UNIQUE_USERNAME', login));
  return userid === undefined ? undefined : getUser(userid);
}

/**
 * A single-use token that lets `signer` sign approval request `subjectid` within the TTL. A
 * step-up that buys it (`spend`) is spent in the same transaction as the token is stored.
 */
export async function issueSigningToken(
  signer: UserRecord,
  subjectid: number,
  issuedTo: number,
  authenticatedBy: AuthenticatedBy = BY_PASSWORD,
  spend: LabelledWrite[] = [],
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
    authenticated_by: authenticatedBy,
  };
  if (spend.length === 0) await putSigningToken(sha256Hex(signingToken), record);
  else await transactWrite([putSigningTokenWrite(sha256Hex(signingToken), record), ...spend]);
  return { signing_token: signingToken, expires_at: record.expires_at };
}

/** The signer a live token names for this request, and the token's hash (to use it up). */
export async function signerFromToken(
  signingToken: string,
  subjectid: number,
): Promise<{ signer: UserRecord; tokenHash: string; authenticated_by: AuthenticatedBy }> {
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
  return { signer, tokenHash, authenticated_by: record?.authenticated_by ?? BY_PASSWORD };
}
