/**
 * Counters of recent attempts (failed logins per account and per address, reset requests):
 * pk ATTEMPTS#<purpose>#<subject>, counted with ADD inside a fixed window that TTL clears, or
 * (countFailure) in a run that is forgotten a set time after its last failure.
 */
import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { BatchPart } from '../batch.ts';
import { db, tableName } from '../client.ts';
import { getItem } from '../items.ts';
import { nowSeconds } from '../../clock.ts';
import { TTL_ATTRIBUTE } from '../table.ts';
import { isConditionFailed } from '../retry.ts';
import { parseStored } from '../stored-item.ts';
import * as z from 'zod/mini';

/** An attempt window or failure run: counted with ADD, cleared by TTL (no `entity`: named by key). */
export const attemptCounterItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.literal('ATTEMPTS'),
  count: z.int(),
  ttl: z.optional(z.number()),
  last_at: z.optional(z.number()),
});

/** A counter whose TTL has passed counts as absent (TTL deletion lags); one without a TTL never ends. */
function liveCounter(item: Record<string, unknown> | undefined) {
  const counter = item ? parseStored(attemptCounterItemSchema, item) : undefined;
  return counter && !(counter.ttl !== undefined && counter.ttl <= nowSeconds()) ? counter : undefined;
}

export function attemptsKey(purpose: string, subject: string) {
  return { pk: `ATTEMPTS#${purpose}#${subject}`, sk: 'ATTEMPTS' };
}

export interface AttemptWindow {
  count: number;
  /** When the window ends (epoch seconds). */
  resetsAt: number;
}

function attemptWindow(item: Record<string, unknown> | undefined): AttemptWindow {
  const counter = liveCounter(item);
  return counter ? { count: counter.count, resetsAt: counter.ttl ?? Number.NaN } : { count: 0, resetsAt: 0 };
}

/** The window as countAttempt finds it (one GetItem). */
async function readAttempts(purpose: string, subject: string): Promise<AttemptWindow> {
  return attemptWindow(await getItem(attemptsKey(purpose, subject)));
}

/**
 * An attempt window as a share of a BatchGet (batchGetParts), for a check that reads several
 * counters at once (the login throttle reads its three in one round trip): no item (or an expired
 * one) is no attempts.
 */
export function attemptsPart(purpose: string, subject: string): BatchPart<AttemptWindow> {
  return { keys: [attemptsKey(purpose, subject)], decode: ([item]) => attemptWindow(item) };
}

/** Counts one attempt; the window starts with the first attempt and lasts windowSeconds. */
export async function countAttempt(purpose: string, subject: string, windowSeconds: number): Promise<AttemptWindow> {
  const now = nowSeconds();
  const key = attemptsKey(purpose, subject);
  const existing = await readAttempts(purpose, subject);
  if (existing.count === 0) {
    // Start a fresh window (replacing an expired one TTL has not removed yet).
    await db()
      .send(
        new UpdateCommand({
          TableName: tableName(),
          Key: key,
          UpdateExpression: 'SET #count = :zero, #ttl = :ends',
          ConditionExpression: 'attribute_not_exists(pk) OR #ttl <= :now',
          ExpressionAttributeNames: { '#count': 'count', '#ttl': TTL_ATTRIBUTE },
          ExpressionAttributeValues: { ':zero': 0, ':ends': now + windowSeconds, ':now': now },
        }),
      )
      .catch((error) => {
        if (!isConditionFailed(error)) throw error;
      });
  }
  const result = await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: key,
      UpdateExpression: 'ADD #count :one',
      ExpressionAttributeNames: { '#count': 'count' },
      ExpressionAttributeValues: { ':one': 1 },
      ReturnValues: 'ALL_NEW',
    }),
  );
  const counter = parseStored(attemptCounterItemSchema, result.Attributes!);
  return { count: counter.count, resetsAt: counter.ttl ?? now + windowSeconds };
}

export async function clearAttempts(purpose: string, subject: string): Promise<void> {
  await db().send(new DeleteCommand({ TableName: tableName(), Key: attemptsKey(purpose, subject) }));
}

/** Failures in a sliding window: forgotten a while after the last one (per-account login delay). */
export interface FailureRun {
  count: number;
  /** When the last failure was (epoch seconds); 0 without failures. */
  lastAt: number;
}

function failureRun(item: Record<string, unknown> | undefined): FailureRun {
  const counter = liveCounter(item);
  return counter ? { count: counter.count, lastAt: counter.last_at ?? 0 } : { count: 0, lastAt: 0 };
}

/** A failure run as a share of a BatchGet (batchGetParts): no item (or an expired one) is no failures. */
export function failureRunPart(purpose: string, subject: string): BatchPart<FailureRun> {
  return { keys: [attemptsKey(purpose, subject)], decode: ([item]) => failureRun(item) };
}

/**
 * Counts one failure: ADD keeps concurrent failures exact, and each failure moves the time the
 * run is forgotten to `forgetAfterSeconds` from now. A run TTL has not removed yet although it
 * expired is restarted first, on condition, as in countAttempt.
 */
export async function countFailure(
  purpose: string,
  subject: string,
  forgetAfterSeconds: number,
  known: FailureRun,
): Promise<FailureRun> {
  const now = nowSeconds();
  const key = attemptsKey(purpose, subject);
  if (known.count === 0) {
    await db()
      .send(
        new UpdateCommand({
          TableName: tableName(),
          Key: key,
          UpdateExpression: 'SET #count = :zero',
          ConditionExpression: 'attribute_exists(pk) AND #ttl <= :now',
          ExpressionAttributeNames: { '#count': 'count', '#ttl': TTL_ATTRIBUTE },
          ExpressionAttributeValues: { ':zero': 0, ':now': now },
        }),
      )
      .catch((error) => {
        if (!isConditionFailed(error)) throw error;
      });
  }
  const result = await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: key,
      UpdateExpression: 'SET #ttl = :forget, last_at = :now ADD #count :one',
      ExpressionAttributeNames: { '#count': 'count', '#ttl': TTL_ATTRIBUTE },
      ExpressionAttributeValues: { ':one': 1, ':now': now, ':forget': now + forgetAfterSeconds },
      ReturnValues: 'ALL_NEW',
    }),
  );
  return { count: parseStored(attemptCounterItemSchema, result.Attributes!).count, lastAt: now };
}
