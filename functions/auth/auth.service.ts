/**
 * Authentication use cases: log in, log out, impersonate, register, reset a password.
 * Login failures are counted per account and per address; past the limit the caller gets 429
 * with the time left. Unknown accounts cost the same scrypt work as known ones, and reset
 * requests answer the same either way, so neither reveals which addresses have accounts.
 */
import { config } from '../../shared/config.ts';
import {
  BadRequestError,
  ForbiddenError,
  NotFoundError,
  TooManyRequestsError,
  UnauthenticatedError,
} from '../../shared/domain/errors.ts';
import { decoyPasswordHash, verifyPassword } from '../../shared/domain/secrets.ts';
import { userSelf } from '../../shared/views/user-views.ts';
import { isAdmin, type AuthContext } from '../../shared/domain/caller.ts';
import { createUserAccount, issueToken } from '../../shared/accounts/accounts.ts';
import { clearAttempts, countAttempt, readAttempts } from '../../shared/db/entities/attempt-counter.ts';
import { deleteToken } from '../../shared/db/entities/token.ts';
import { findUserIdBy, getUser } from '../../shared/db/entities/user.ts';
import { nowSeconds } from '../../shared/db/keys.ts';
import { appendAudit } from '../../shared/db/audit.ts';

const LOGIN = 'LOGIN';

/** With public registration on, login and register must carry an accepted X-App-Id. */
function checkAppId(appId: string | undefined): void {
  const { STEPWISE_PUBLIC_REGISTRATION, STEPWISE_APP_IDS } = config();
  if (!STEPWISE_PUBLIC_REGISTRATION || STEPWISE_APP_IDS.length === 0) return;
  if (!appId || !STEPWISE_APP_IDS.includes(appId)) throw new BadRequestError('Invalid app id');
}

async function refuseIfThrottled(limits: Array<[subject: string, maxFailures: number]>): Promise<void> {
  const now = nowSeconds();
  for (const [subject, maxFailures] of limits) {
    const window = await readAttempts(LOGIN, subject);
    if (window.count >= maxFailures) {
      throw new TooManyRequestsError('Too many failed logins; try again later', Math.max(1, window.resetsAt - now));
    }
  }
}

export async function login(input: { email: string; password: string; appId?: string; sourceIp: string }) {
  checkAppId(input.appId);
  const accountSubject = `account#${input.email.trim().toLowerCase()}`;
  const addressSubject = `address#${input.sourceIp}`;
  await refuseIfThrottled([
    [accountSubject, config().STEPWISE_LOGIN_MAX_FAILURES],
    [addressSubject, config().STEPWISE_LOGIN_MAX_FAILURES_PER_ADDRESS],
  ]);

  const userid = await findUserIdBy('EMAIL', input.email);
  const user = userid === undefined ? undefined : await getUser(userid);
  const valid = await verifyPassword(input.password, user?.password_hash ?? (await decoyPasswordHash()));
  if (!user || !valid) {
    const window = config().STEPWISE_LOGIN_WINDOW_SECONDS;
    await Promise.all([countAttempt(LOGIN, accountSubject, window), countAttempt(LOGIN, addressSubject, window)]);
    throw new UnauthenticatedError('Invalid login');
  }
  await clearAttempts(LOGIN, accountSubject);
  const authToken = await issueToken(user.userid);
  return userSelf(user, config().STEPWISE_SITE_URL, authToken);
}

export async function logout(auth: AuthContext): Promise<void> {
  if (auth.tokenHash) await deleteToken(auth.tokenHash);
}

export async function impersonate(auth: AuthContext, userid: number) {
  if (!isAdmin(auth.user)) throw new ForbiddenError('Only Admins may impersonate');
  const target = await getUser(userid);
  if (!target) throw new NotFoundError(`No user with userid ${userid}`);
  const authToken = await issueToken(target.userid, auth.user!.userid);
  await appendAudit({
    action: 'user.impersonated',
    actor_userid: auth.user!.userid,
    subjects: [`USER#${target.userid}`, `USER#${auth.user!.userid}`],
    details: { target_userid: target.userid, admin_userid: auth.user!.userid },
    impersonator_userid: auth.impersonatorUserid ?? null,
  });
  return userSelf(target, config().STEPWISE_SITE_URL, authToken);
}

export interface Registration {
  email: string;
  username: string;
  password: string;
  unique_username?: string;
}

/** With public registration off only an Admin registers users; with it on, anyone (app id checked). */
export async function register(auth: AuthContext, input: Registration) {
  if (config().STEPWISE_PUBLIC_REGISTRATION) {
    if (!isAdmin(auth.user)) checkAppId(auth.appId);
  } else {
    if (!auth.user) throw new UnauthenticatedError('Registration is closed on this site; an Admin must create accounts');
    if (!isAdmin(auth.user)) throw new ForbiddenError('Only Admins may register users on this site');
  }
  const user = await createUserAccount({
    email: input.email,
    username: input.username,
    password: input.password,
    unique_username: input.unique_username,
    created_by: auth.user?.userid ?? null,
  });
  const authToken = await issueToken(user.userid);
  return userSelf(user, config().STEPWISE_SITE_URL, authToken);
}

export { requestPasswordReset, completePasswordReset } from '../../shared/accounts/password-reset.ts';
