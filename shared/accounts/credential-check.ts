/**
 * Checking someone's credentials inside another user's request (over-the-shoulder signoffs):
 * the same failure counters as POST /user/token (purpose LOGIN, per account by email and per
 * client address, functions/auth), so a password cannot be guessed faster here than at login.
 * A wrong password is a 422 on the `password` field, not a 401: the request itself is
 * authenticated, and clients treat 401 as "my token is gone".
 */
import { config } from '../config.ts';
import { TooManyRequestsError, ValidationError } from '../domain/errors.ts';
import { decoyPasswordHash, verifyPassword } from '../domain/secrets.ts';
import { nowSeconds } from '../db/keys.ts';
import { clearAttempts, countAttempt, readAttempts } from '../db/entities/attempt-counter.ts';
import { findUserIdBy, getUser, type UserRecord } from '../db/entities/user.ts';

const LOGIN = 'LOGIN';

export async function verifyCredentials(input: { login: string; password: string; sourceIp: string }): Promise<UserRecord> {
  const login = input.login.trim();
  const userid = await findUserIdBy(login.includes('@') ? 'EMAIL' : 'UNIQUE_USERNAME', login);
  const user = userid === undefined ? undefined : await getUser(userid);
  const accountSubject = `account#${(user?.email ?? login).trim().toLowerCase()}`;
  const addressSubject = `address#${input.sourceIp}`;
  const limits: Array<[string, number]> = [
    [accountSubject, config().STEPWISE_LOGIN_MAX_FAILURES],
    [addressSubject, config().STEPWISE_LOGIN_MAX_FAILURES_PER_ADDRESS],
  ];
  const now = nowSeconds();
  for (const [subject, maxFailures] of limits) {
    const window = await readAttempts(LOGIN, subject);
    if (window.count >= maxFailures) throw new TooManyRequestsError('Too many failed logins; try again later', Math.max(1, window.resetsAt - now));
  }
  const valid = await verifyPassword(input.password, user?.password_hash ?? (await decoyPasswordHash()));
  if (!user || !valid) {
    const window = config().STEPWISE_LOGIN_WINDOW_SECONDS;
    await Promise.all([countAttempt(LOGIN, accountSubject, window), countAttempt(LOGIN, addressSubject, window)]);
    throw ValidationError.field('password', 'invalid_login', 'Invalid login');
  }
  await clearAttempts(LOGIN, accountSubject);
  return user;
}
