import { describe, expect, it } from 'vitest';
import {
  accountDelaySeconds,
  accountWaitSeconds,
  FIRST_DELAY_SECONDS,
  MAX_DELAY_SECONDS,
} from '../../shared/domain/login-delay.ts';

describe('accountDelaySeconds', () => {
  it('costs nothing for the free failures, then doubles from the first delay to the cap', () => {
    expect([0, 1, 9].map((failures) => accountDelaySeconds(failures, 10))).toEqual([0, 0, 0]);
    expect([10, 11, 12, 13, 14, 15].map((failures) => accountDelaySeconds(failures, 10))).toEqual([
      30, 60, 120, 240, 480, 900,
    ]);
    expect(accountDelaySeconds(10, 10)).toBe(FIRST_DELAY_SECONDS);
  });

  it('stays at the cap for any number of failures (no overflow to Infinity or NaN)', () => {
    for (const failures of [16, 100, 10_000, Number.MAX_SAFE_INTEGER])
      expect(accountDelaySeconds(failures, 10)).toBe(MAX_DELAY_SECONDS);
  });
});

describe('accountWaitSeconds', () => {
  it('counts the wait from the last failure and never goes negative', () => {
    expect(accountWaitSeconds({ count: 0, lastAt: 0 }, 5, 1000)).toBe(0);
    expect(accountWaitSeconds({ count: 5, lastAt: 1000 }, 5, 1010)).toBe(20);
    expect(accountWaitSeconds({ count: 5, lastAt: 1000 }, 5, 1030)).toBe(0);
    expect(accountWaitSeconds({ count: 4, lastAt: 1000 }, 5, 1000)).toBe(0);
  });
});
