/**
 * Checking someone's credentials inside another user's request (over-the-shoulder signoffs):
 * throttled like POST /user/token (shared/accounts/login-throttle.ts, the same counters), so a
 * password cannot be guessed faster here than at login.
 * A wrong password is a 422 on the `password` field, not a 401: the request itself is
 * authenticated, and clients treat 401 as "my token is gone".
 */
import { ValidationError } from '../domain/errors.ts';
import { findUserIdBy, getUser, type UserRecord } from '../db/entities/user.ts';
import { passwordAccepted } from './login-throttle.ts';
import { requirePasswordLoginAllowed } from './sign-in-methods.ts';

export async function verifyCredentials(input: {
  login: string;
  password: string;
  sourceIp: string;
}): Promise<UserRecord> {
  const login = input.login.trim();
  const userid = await findUserIdBy(login.includes('@') ? 'EMAIL' : 'UNIQUE_USERNAME', login);
  const user = userid === undefined ? undefined : await getUser(userid);
  const accepted = await passwordAccepted({
    account: user?.email ?? login,
    sourceIp: input.sourceIp,
    passwordHash: user?.password_hash,
    password: input.password,
  });
  if (!user || !accepted || user.disabled) throw ValidationError.field('password', 'invalid_login', 'Invalid login');
  requirePasswordLoginAllowed(user);
  return user;
}
