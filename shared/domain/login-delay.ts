/**
 * The login delay (docs/configuration.md "Login throttling", decision 170), kept per pair of
 * client address and account: the first `freeFailures` failed passwords of a pair cost
 * nothing; after that, each further attempt of that pair waits a delay that doubles with every
 * failure, from FIRST_DELAY_SECONDS up to MAX_DELAY_SECONDS. An account is never locked: its
 * owner, from an address without failures, is not held back.
 */

export const FIRST_DELAY_SECONDS = 30;
export const MAX_DELAY_SECONDS = 15 * 60;

/**
 * The per-account ceiling: past this many times STEPWISE_LOGIN_MAX_FAILURES failures on one
 * account (from all addresses together, until time forgets them), each pair gets only
 * CEILING_FREE_FAILURES failures before its delay: a typo stays free, a spread-out guesser gets
 * two guesses per address instead of ten.
 */
export const ACCOUNT_CEILING_FACTOR = 5;
export const CEILING_FREE_FAILURES = 2;

/** Seconds an account with `failures` recent failures makes the next attempt wait after its last one. */
export function accountDelaySeconds(failures: number, freeFailures: number): number {
  if (failures < freeFailures) return 0;
  const doublings = Math.min(failures - freeFailures, 20);
  return Math.min(MAX_DELAY_SECONDS, FIRST_DELAY_SECONDS * 2 ** doublings);
}

/** Seconds left before the account takes another attempt (0: it takes one now). */
export function accountWaitSeconds(run: { count: number; lastAt: number }, freeFailures: number, now: number): number {
  if (run.count === 0) return 0;
  return Math.max(0, run.lastAt + accountDelaySeconds(run.count, freeFailures) - now);
}
