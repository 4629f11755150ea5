/**
 * Login throttling, for every place a password is checked: POST /user/token, over-the-shoulder
 * signoffs, electronic signatures and current_password on PATCH /users/{userid}, so a password
 * cannot be guessed faster through any of them. The policy (docs/configuration.md):
 * - per client address: STEPWISE_LOGIN_MAX_FAILURES_PER_ADDRESS failures within
 *   STEPWISE_LOGIN_WINDOW_SECONDS, then 429 until the window ends;
 * - per account: after STEPWISE_LOGIN_MAX_FAILURES failures a growing delay
 *   (shared/domain/login-delay.ts) that holds back only addresses with failed logins, so nobody
 *   can lock the owner out; a correct password ends the account's run.
 * Accounts are keyed by the name typed, whether or not it exists, so neither the answers nor
 * the delays reveal which accounts exist; an unknown account costs the same scrypt work.
 */
import { config } from '../config.ts';
import { TooManyRequestsError } from '../domain/errors.ts';
import { accountWaitSeconds, MAX_DELAY_SECONDS } from '../domain/login-delay.ts';
import { decoyPasswordHash, verifyPassword } from '../domain/secrets.ts';
import { nowSeconds } from '../clock.ts';
import {
  clearAttempts,
  countAttempt,
  countFailure,
  readAttempts,
  readFailureRun,
} from '../db/entities/attempt-counter.ts';

const LOGIN = 'LOGIN';

export interface PasswordAttempt {
  /** The account's email (or the login as typed when no account has it); case is ignored. */
  account: string;
  sourceIp: string;
  /** The account's stored hash; undefined when there is no such account (the check still costs the same). */
  passwordHash: string | undefined;
  password: string;
}

const accountSubject = (account: string) => `account#${account.trim().toLowerCase()}`;
const addressSubject = (sourceIp: string) => `address#${sourceIp}`;

/**
 * Whether the password is right, once the throttle lets the attempt through; a held-back
 * attempt is 429 (TooManyRequestsError with the seconds to wait) and checks nothing.
 */
export async function passwordAccepted(
  attempt: PasswordAttempt,
  tooManyMessage = 'Too many failed logins; try again later',
): Promise<boolean> {
  const { STEPWISE_LOGIN_MAX_FAILURES, STEPWISE_LOGIN_MAX_FAILURES_PER_ADDRESS, STEPWISE_LOGIN_WINDOW_SECONDS } =
    config();
  const account = accountSubject(attempt.account);
  const address = addressSubject(attempt.sourceIp);
  const [addressWindow, accountRun] = await Promise.all([readAttempts(LOGIN, address), readFailureRun(LOGIN, account)]);
  const now = nowSeconds();
  if (addressWindow.count >= STEPWISE_LOGIN_MAX_FAILURES_PER_ADDRESS) {
    throw new TooManyRequestsError(tooManyMessage, Math.max(1, addressWindow.resetsAt - now));
  }
  // The owner, from an address that has not failed, is never held back by someone else's guesses.
  const wait = addressWindow.count > 0 ? accountWaitSeconds(accountRun, STEPWISE_LOGIN_MAX_FAILURES, now) : 0;
  if (wait > 0) throw new TooManyRequestsError(tooManyMessage, wait);

  const valid = await verifyPassword(attempt.password, attempt.passwordHash ?? (await decoyPasswordHash()));
  if (attempt.passwordHash === undefined || !valid) {
    await Promise.all([
      countAttempt(LOGIN, address, STEPWISE_LOGIN_WINDOW_SECONDS),
      countFailure(LOGIN, account, Math.max(STEPWISE_LOGIN_WINDOW_SECONDS, MAX_DELAY_SECONDS), accountRun),
    ]);
    return false;
  }
  if (accountRun.count > 0) await clearAttempts(LOGIN, account);
  return true;
}
