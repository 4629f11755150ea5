/**
 * Login throttling, for every place a password is checked: POST /user/token, over-the-shoulder
 * signoffs, electronic signatures and current_password on PATCH /users/{userid}, so a password
 * cannot be guessed faster through any of them. The policy (docs/configuration.md, decision 170):
 * - per client address: STEPWISE_LOGIN_MAX_FAILURES_PER_ADDRESS failures within
 *   STEPWISE_LOGIN_WINDOW_SECONDS, whatever the accounts, then 429 until the window ends;
 * - per address and account: after STEPWISE_LOGIN_MAX_FAILURES failures of that pair a growing
 *   delay (shared/domain/login-delay.ts) for that pair only. Someone else's failures never hold
 *   the owner back, and a right password ends only its own pair's run (the owner logging in
 *   does not give an attacker's address new guesses);
 * - per account, across all addresses: past ACCOUNT_CEILING_FACTOR × STEPWISE_LOGIN_MAX_FAILURES
 *   failures, every pair gets only CEILING_FREE_FAILURES before its delay, which slows a guesser
 *   spread over many addresses; a clean address still has its first attempts, so the owner is
 *   never locked out. Only time forgets this count: no login resets it.
 * Accounts are keyed by the name typed, whether or not it exists, so neither the answers nor
 * the delays reveal which accounts exist; an unknown account costs the same scrypt work.
 */
import { config } from '../config.ts';
import { TooManyRequestsError } from '../domain/errors.ts';
import {
  ACCOUNT_CEILING_FACTOR,
  accountWaitSeconds,
  CEILING_FREE_FAILURES,
  MAX_DELAY_SECONDS,
} from '../domain/login-delay.ts';
import { decoyPasswordHash, verifyPassword } from './passwords.ts';
import { nowSeconds } from '../clock.ts';
import { batchGetParts } from '../db/batch.ts';
import {
  attemptsPart,
  clearAttempts,
  countAttempt,
  countFailure,
  failureRunPart,
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

const accountName = (account: string) => account.trim().toLowerCase();
const accountSubject = (account: string) => `account#${accountName(account)}`;
const addressSubject = (sourceIp: string) => `address#${sourceIp}`;
const pairSubject = (sourceIp: string, account: string) => `pair#${sourceIp}#${accountName(account)}`;

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
  const pair = pairSubject(attempt.sourceIp, attempt.account);
  // The three counters are independent (none decides whether another is read): one BatchGet.
  const [addressWindow, pairRun, accountRun] = await batchGetParts(
    attemptsPart(LOGIN, address),
    failureRunPart(LOGIN, pair),
    failureRunPart(LOGIN, account),
  );
  const now = nowSeconds();
  if (addressWindow.count >= STEPWISE_LOGIN_MAX_FAILURES_PER_ADDRESS) {
    throw new TooManyRequestsError(tooManyMessage, Math.max(1, addressWindow.resetsAt - now));
  }
  const pastCeiling = accountRun.count >= ACCOUNT_CEILING_FACTOR * STEPWISE_LOGIN_MAX_FAILURES;
  const freeFailures = pastCeiling
    ? Math.min(CEILING_FREE_FAILURES, STEPWISE_LOGIN_MAX_FAILURES)
    : STEPWISE_LOGIN_MAX_FAILURES;
  const wait = accountWaitSeconds(pairRun, freeFailures, now);
  if (wait > 0) throw new TooManyRequestsError(tooManyMessage, wait);

  const valid = await verifyPassword(attempt.password, attempt.passwordHash ?? (await decoyPasswordHash()));
  if (attempt.passwordHash === undefined || !valid) {
    const forgetAfter = Math.max(STEPWISE_LOGIN_WINDOW_SECONDS, MAX_DELAY_SECONDS);
    await Promise.all([
      countAttempt(LOGIN, address, STEPWISE_LOGIN_WINDOW_SECONDS),
      countFailure(LOGIN, pair, forgetAfter, pairRun),
      countFailure(LOGIN, account, forgetAfter, accountRun),
    ]);
    return false;
  }
  // Only this pair's run ends: the account's count, and other addresses' runs, stay.
  if (pairRun.count > 0) await clearAttempts(LOGIN, pair);
  return true;
}
