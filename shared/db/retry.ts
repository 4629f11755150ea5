/**
 * Lost write races, one way. A use case reads, decides and writes on condition of what it read;
 * when another writer got there first the write fails, and the use case starts again from a
 * fresh read. `retryOnLostRace` runs that loop: it recognises a lost race by error type (never
 * by message text), backs off with full jitter, and gives up after a bounded number of
 * attempts with one domain error (ConflictError, 409).
 */
import type { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { ConflictError } from '../domain/errors.ts';
import { TransactionConditionFailed } from './transactions.ts';
import { isAwsError } from '../domain/aws-error.ts';

/**
 * Thrown by a use case inside `retryOnLostRace` when what it read has gone before it could
 * write (a session closed meanwhile, a row moved): "read again and decide again".
 */
export class LostRace extends Error {
  constructor(message = 'Another write came first') {
    super(message);
    this.name = 'LostRace';
  }
}

/** Cancellation reasons of a transaction that mean "another write came first". */
const RACE_REASONS = new Set(['ConditionalCheckFailed', 'TransactionConflict']);
/** Reasons that sit beside a race without being a problem of their own. */
const BYSTANDER_REASONS = new Set(['None', ...RACE_REASONS]);

/** DynamoDB cancelled a TransactWriteItems (by name: any bundle's copy of the SDK). */
export function isTransactionCanceled(error: unknown): error is TransactionCanceledException {
  return isAwsError(error, 'TransactionCanceledException');
}

/** A single-item write's ConditionExpression failed. */
export function isConditionFailed(error: unknown): error is ConditionalCheckFailedException {
  return isAwsError(error, 'ConditionalCheckFailedException');
}

/**
 * True when `error` says another write came first. A labelled transaction failure
 * (shared/db/transactions.ts) is a race when every failed label passes `raceLabels` (any label
 * when not given): a failed uniqueness item is a taken name, not a race. A cancelled transaction
 * is a race when its reasons are only ConditionalCheckFailed/TransactionConflict (a validation
 * or capacity reason is not).
 */
export function isLostRace(error: unknown, raceLabels?: (label: string) => boolean): boolean {
  if (error instanceof LostRace) return true;
  if (error instanceof TransactionConditionFailed) return raceLabels ? error.failedLabels.every(raceLabels) : true;
  if (isConditionFailed(error)) return true;
  if (isTransactionCanceled(error)) {
    const codes = (error.CancellationReasons ?? []).map((reason) => reason.Code ?? 'None');
    // Without reasons there is nothing to tell it apart: DynamoDB sends them for every cancellation.
    if (codes.length === 0) return true;
    return codes.some((code) => RACE_REASONS.has(code)) && codes.every((code) => BYSTANDER_REASONS.has(code));
  }
  return false;
}

/** Labels that pass when they are one of `labels` or start with one of `prefixes`. */
export function labelsIn(...labelsOrPrefixes: string[]): (label: string) => boolean {
  return (label) =>
    labelsOrPrefixes.some((wanted) => (wanted.endsWith(':') ? label.startsWith(wanted) : label === wanted));
}

export interface RetryOptions<T> {
  /** Attempts in all, the first one included (default 8). */
  attempts?: number;
  /** Which labels of a failed labelled transaction mean a lost race (default: any). */
  raceLabels?: (label: string) => boolean;
  /** Upper bound of the first back-off in ms (default 10); it doubles per attempt up to `maxDelayMs`. */
  baseDelayMs?: number;
  /** Cap of one back-off in ms (default 250). */
  maxDelayMs?: number;
  /** The message of the ConflictError thrown when every attempt lost (when no `onExhausted`). */
  message?: string;
  /**
   * What happens when every attempt lost: return a value, or throw a more telling error (e.g. a
   * ConflictError carrying the resource as it is now). Default: ConflictError(`message`).
   */
  onExhausted?: (lastError: unknown) => T | Promise<T>;
  /** For tests: the random source (0 <= x < 1) and the pause. */
  random?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export const DEFAULT_ATTEMPTS = 8;
const DEFAULT_BASE_DELAY_MS = 10;
const DEFAULT_MAX_DELAY_MS = 250;
export const DEFAULT_CONFLICT_MESSAGE = 'The record kept changing while this change was applied; try again';

/**
 * The pause before retry number `retry` (0 = the first retry): full jitter, uniformly in
 * [0, min(maxDelayMs, baseDelayMs * 2^retry)), so colliding writers spread out.
 */
export function backoffDelay(
  retry: number,
  options: Pick<RetryOptions<unknown>, 'baseDelayMs' | 'maxDelayMs' | 'random'> = {},
): number {
  const base = options.baseDelayMs ?? DEFAULT_BASE_DELAY_MS;
  const cap = Math.min(options.maxDelayMs ?? DEFAULT_MAX_DELAY_MS, base * 2 ** retry);
  return (options.random ?? Math.random)() * cap;
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs `attempt` (given its 0-based number) until it returns. A lost race (see `isLostRace`)
 * starts it again after a jittered pause; any other error passes through at once.
 */
export async function retryOnLostRace<T>(
  attempt: (number: number) => Promise<T>,
  options: RetryOptions<T> = {},
): Promise<T> {
  const attempts = Math.max(1, options.attempts ?? DEFAULT_ATTEMPTS);
  const sleep = options.sleep ?? pause;
  let lastError: unknown;
  for (let tried = 0; tried < attempts; tried++) {
    if (tried > 0) await sleep(backoffDelay(tried - 1, options));
    try {
      return await attempt(tried);
    } catch (error) {
      if (!isLostRace(error, options.raceLabels)) throw error;
      lastError = error;
    }
  }
  if (options.onExhausted) return options.onExhausted(lastError);
  throw new ConflictError(options.message ?? DEFAULT_CONFLICT_MESSAGE);
}
