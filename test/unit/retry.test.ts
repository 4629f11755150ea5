import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { ConflictError, ValidationError } from '../../shared/domain/errors.ts';
import { backoffDelay, isLostRace, labelsIn, LostRace, retryOnLostRace } from '../../shared/db/retry.ts';
import { TransactionConditionFailed } from '../../shared/db/transactions.ts';

const meta = { $metadata: {} };
const canceled = (...codes: string[]) =>
  new TransactionCanceledException({
    ...meta,
    message: 'Transaction cancelled',
    CancellationReasons: codes.map((Code) => ({ Code })),
  });
const conditionFailed = () =>
  new ConditionalCheckFailedException({ ...meta, message: 'The conditional request failed' });

/** Records the pauses instead of waiting. */
function recorder() {
  const pauses: number[] = [];
  return { pauses, sleep: async (ms: number) => void pauses.push(ms) };
}

describe('isLostRace', () => {
  it('recognises races by type and cancellation reason', () => {
    expect(isLostRace(conditionFailed())).toBe(true);
    expect(isLostRace(canceled('None', 'TransactionConflict'))).toBe(true);
    expect(isLostRace(canceled('ConditionalCheckFailed', 'None'))).toBe(true);
    expect(isLostRace(new LostRace())).toBe(true);
    expect(isLostRace(new TransactionConditionFailed(['guide'], {}))).toBe(true);
  });

  it('does not take other cancellations or errors for races', () => {
    expect(isLostRace(canceled('ValidationError'))).toBe(false);
    expect(isLostRace(canceled('TransactionConflict', 'ProvisionedThroughputExceeded'))).toBe(false);
    expect(isLostRace(new Error('TransactionCanceledException'))).toBe(false);
    expect(isLostRace(new ValidationError('bad'))).toBe(false);
    expect(isLostRace(undefined)).toBe(false);
  });

  it('recognises a cancellation by name when it comes from another copy of the SDK', () => {
    const foreign = Object.assign(new Error('cancelled'), {
      name: 'TransactionCanceledException',
      CancellationReasons: [{ Code: 'TransactionConflict' }],
    });
    expect(isLostRace(foreign)).toBe(true);
  });

  it('counts a labelled failure as a race only when every failed label is a race label', () => {
    const raceLabels = labelsIn('guide', 'head:');
    expect(isLostRace(new TransactionConditionFailed(['guide', 'head:USER#1'], {}), raceLabels)).toBe(true);
    expect(isLostRace(new TransactionConditionFailed(['guide', 'unique:email'], {}), raceLabels)).toBe(false);
    expect(isLostRace(new TransactionConditionFailed(['header'], {}), raceLabels)).toBe(false);
  });
});

describe('retryOnLostRace', () => {
  it('returns the first result that lands, after retrying lost races', async () => {
    const { pauses, sleep } = recorder();
    const tried: number[] = [];
    const result = await retryOnLostRace(
      async (attempt) => {
        tried.push(attempt);
        if (attempt < 2) throw canceled('TransactionConflict');
        return 'landed';
      },
      { sleep },
    );
    expect(result).toBe('landed');
    expect(tried).toEqual([0, 1, 2]);
    expect(pauses).toHaveLength(2);
  });

  it('passes any other error through at once, without a retry', async () => {
    const { pauses, sleep } = recorder();
    let calls = 0;
    const problem = ValidationError.field('title', 'missing_field', 'title is required');
    await expect(
      retryOnLostRace(
        async () => {
          calls++;
          throw problem;
        },
        { sleep },
      ),
    ).rejects.toBe(problem);
    expect(calls).toBe(1);
    expect(pauses).toEqual([]);
  });

  it('passes a labelled failure that is not a race through at once', async () => {
    let calls = 0;
    const taken = new TransactionConditionFailed(['unique:email'], {});
    await expect(
      retryOnLostRace(
        async () => {
          calls++;
          throw taken;
        },
        { raceLabels: labelsIn('user'), sleep: async () => {} },
      ),
    ).rejects.toBe(taken);
    expect(calls).toBe(1);
  });

  it('gives up after the bounded number of attempts with a ConflictError', async () => {
    const { pauses, sleep } = recorder();
    let calls = 0;
    const outcome = retryOnLostRace(
      async () => {
        calls++;
        throw new LostRace();
      },
      { attempts: 5, sleep, message: 'The guide kept changing; try again' },
    );
    await expect(outcome).rejects.toBeInstanceOf(ConflictError);
    await expect(outcome).rejects.toThrow('The guide kept changing; try again');
    expect(calls).toBe(5);
    expect(pauses).toHaveLength(4);
  });

  it('lets onExhausted answer or throw a more telling error, given the last race', async () => {
    const last = canceled('TransactionConflict');
    const answered = await retryOnLostRace<string>(
      async () => {
        throw last;
      },
      { attempts: 2, sleep: async () => {}, onExhausted: (error) => (error === last ? 'left for later' : 'wrong') },
    );
    expect(answered).toBe('left for later');
  });
});

describe('backoffDelay', () => {
  it('stays within [0, min(max, base * 2^retry)) and reaches both ends of that range', () => {
    const options = { baseDelayMs: 10, maxDelayMs: 100 };
    expect(backoffDelay(0, { ...options, random: () => 0 })).toBe(0);
    expect(backoffDelay(0, { ...options, random: () => 0.999 })).toBeCloseTo(9.99);
    expect(backoffDelay(2, { ...options, random: () => 0.5 })).toBe(20);
    expect(backoffDelay(10, { ...options, random: () => 0.999 })).toBeCloseTo(99.9);
    for (let retry = 0; retry < 12; retry++) {
      for (let sample = 0; sample < 50; sample++) {
        const delay = backoffDelay(retry, options);
        expect(delay).toBeGreaterThanOrEqual(0);
        expect(delay).toBeLessThan(Math.min(100, 10 * 2 ** retry));
      }
    }
  });

  it('spreads the pauses of retryOnLostRace by the jitter', async () => {
    const { pauses, sleep } = recorder();
    const draws = [0.25, 0.5, 0.75];
    await retryOnLostRace(
      async (attempt) => {
        if (attempt < 3) throw new LostRace();
        return attempt;
      },
      { sleep, random: () => draws.shift()!, baseDelayMs: 8, maxDelayMs: 1000 },
    );
    expect(pauses).toEqual([0.25 * 8, 0.5 * 16, 0.75 * 32]);
  });
});
