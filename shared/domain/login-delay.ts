/**
 * The per-account login delay (docs/configuration.md "Login throttling"): the first
 * `freeFailures` failed passwords of an account cost nothing; after that, each further attempt
 * from an address that has failed logins waits a delay that doubles with every failure, from
 * FIRST_DELAY_SECONDS up to MAX_DELAY_SECONDS. An account is never locked: its owner, from an
 * address without failures, is not held back.
 */

export const FIRST_DELAY_SECONDS = 30;
export const MAX_DELAY_SECONDS = 15 * 60;

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
