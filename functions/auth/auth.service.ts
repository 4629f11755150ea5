/**
 * Authentication use cases: log in, log out, impersonate, register, reset a password.
 * Logins are throttled per address and per account (shared/accounts/login-throttle.ts: 429 with
 * the time to wait). Unknown accounts cost the same scrypt work as known ones, and reset
 * requests answer the same either way, so neither reveals which addresses have accounts.
 */
import { config } from '../../shared/config.ts';
import {
  BadRequestError,
  ForbiddenError,
  NotFoundError,
  UnauthenticatedError,
  ValidationError,
} from '../../shared/domain/errors.ts';
import { userSelfWithToken } from '../../shared/views/user-views.ts';
import { isAdmin, type AuthContext, type SignedInAuth } from '../../shared/domain/caller.ts';
import { createUserAccount, issueToken, newTokenRecord } from '../../shared/accounts/accounts.ts';
import { passwordAccepted } from '../../shared/accounts/login-throttle.ts';
import { requirePasswordLoginAllowed } from '../../shared/accounts/sign-in-methods.ts';
import { deleteToken, tokenInsertWrite } from '../../shared/db/entities/token.ts';
import { findUserIdBy, getUser } from '../../shared/db/entities/user.ts';
import { appendAudit, auditSubject } from '../../shared/db/audit.ts';
import type { Registration } from './auth.schemas.ts';

/** With public registration on, login and register must carry an accepted X-App-Id. */
function checkAppId(appId: string | undefined): void {
  const { STEPWISE_PUBLIC_REGISTRATION, STEPWISE_APP_IDS } = config();
  if (!STEPWISE_PUBLIC_REGISTRATION || STEPWISE_APP_IDS.length === 0) return;
  if (!appId || !STEPWISE_APP_IDS.includes(appId)) throw new BadRequestError('Invalid app id');
}

export async function login(input: { email: string; password: string; appId?: string; sourceIp: string }) {
  checkAppId(input.appId);
  const userid = await findUserIdBy('EMAIL', input.email);
  const user = userid === undefined ? undefined : await getUser(userid);
  const accepted = await passwordAccepted({
    account: input.email,
    sourceIp: input.sourceIp,
    passwordHash: user?.password_hash,
    password: input.password,
  });
  // A disabled account (SCIM deprovisioning) signs in no more, with the same answer as a wrong password.
  if (!user || !accepted || user.disabled) throw new UnauthenticatedError('Invalid login');
  requirePasswordLoginAllowed(user);
  const authToken = await issueToken(user.userid);
  return userSelfWithToken(user, config().STEPWISE_SITE_URL, authToken);
}

export async function logout(auth: AuthContext): Promise<void> {
  if (auth.tokenHash) await deleteToken(auth.tokenHash);
}

/**
 * An Admin gets a token acting as another user. The token and its audit record are written in
 * one transaction: no impersonation token exists that the audit trail does not show. The token
 * carries its minter's credential stamp: it ends when the minter stops being an Admin or their
 * password changes (shared/http/authenticate.ts; decision 168). An impersonation token cannot
 * mint another: the chain would outlive the first minter's demotion.
 */
export async function impersonate(auth: SignedInAuth, userid: number) {
  const admin = auth.user;
  if (!isAdmin(admin)) throw new ForbiddenError('Only Admins may impersonate');
  // A site API token is no person: it acts as the site, never as one of its users (decision 227).
  if (admin.service) throw new ForbiddenError('An API token cannot impersonate');
  if (auth.impersonatorUserid !== undefined) {
    throw new ForbiddenError('An impersonation token cannot impersonate; log in as yourself');
  }
  if (userid === admin.userid) {
    throw ValidationError.field('userid', 'self_impersonation', 'An Admin cannot impersonate themself; log in instead');
  }
  const [target, minter] = await Promise.all([getUser(userid), getUser(admin.userid)]);
  if (!target) throw new NotFoundError(`No user with userid ${userid}`);
  if (!minter) throw new UnauthenticatedError();
  const { token, record } = newTokenRecord(target.userid, minter);
  await appendAudit(
    {
      action: 'user.impersonated',
      actor_userid: admin.userid,
      subjects: [auditSubject.user(target.userid), auditSubject.user(admin.userid)],
      details: { target_userid: target.userid, admin_userid: admin.userid },
      impersonator_userid: auth.impersonatorUserid ?? null,
    },
    [tokenInsertWrite(record)],
  );
  return userSelfWithToken(target, config().STEPWISE_SITE_URL, token);
}

/**
 * With public registration off only an Admin registers users; with it on, anyone (app id
 * checked). The route runs this before the body is validated; register() runs it again.
 */
export function authorizeRegistration(auth: AuthContext): void {
  if (config().STEPWISE_PUBLIC_REGISTRATION) {
    if (!isAdmin(auth.user)) checkAppId(auth.appId);
  } else {
    if (!auth.user)
      throw new UnauthenticatedError('Registration is closed on this site; an Admin must create accounts');
    if (!isAdmin(auth.user)) throw new ForbiddenError('Only Admins may register users on this site');
  }
}

export async function register(auth: AuthContext, input: Registration) {
  authorizeRegistration(auth);
  const user = await createUserAccount({
    email: input.email,
    username: input.username,
    password: input.password,
    unique_username: input.unique_username,
    created_by: auth.user && !auth.user.service ? auth.user.userid : null,
  });
  const authToken = await issueToken(user.userid);
  return userSelfWithToken(user, config().STEPWISE_SITE_URL, authToken);
}

export { requestPasswordReset, completePasswordReset } from '../../shared/accounts/password-reset.ts';
