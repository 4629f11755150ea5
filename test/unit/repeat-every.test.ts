/**
 * The local stack's polling loop (shared/clock.ts): one round at a time, slower while rounds find
 * nothing, at once when woken (decision 345).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { repeatEvery } from '../../shared/clock.ts';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** The times (fake ms since start) at which rounds began, each round finding what `finds` says. */
function recordRounds(finds: () => number) {
  const started: number[] = [];
  const start = Date.now();
  return {
    started,
    round: async () => {
      started.push(Date.now() - start);
      return finds();
    },
  };
}

describe('repeatEvery', () => {
  it('keeps its interval when no idle ceiling is given', async () => {
    const { started, round } = recordRounds(() => 0);
    const loop = repeatEvery(100, round, () => {});
    await vi.advanceTimersByTimeAsync(450);
    expect(started).toEqual([100, 200, 300, 400]);
    await loop.stop();
  });

  it('doubles its wait while rounds find nothing, up to the ceiling', async () => {
    const { started, round } = recordRounds(() => 0);
    const loop = repeatEvery(100, round, () => {}, { idleUpToMs: 1000 });
    await vi.advanceTimersByTimeAsync(4000);
    expect(started).toEqual([100, 300, 700, 1500, 2500, 3500]);
    await loop.stop();
  });

  it('goes back to its interval after a round that finds something', async () => {
    let found = 0;
    const { started, round } = recordRounds(() => found);
    const loop = repeatEvery(100, round, () => {}, { idleUpToMs: 1000 });
    await vi.advanceTimersByTimeAsync(750);
    expect(started).toEqual([100, 300, 700]);
    found = 3;
    await vi.advanceTimersByTimeAsync(800); // the round at 1500 finds work
    await vi.advanceTimersByTimeAsync(100);
    expect(started).toEqual([100, 300, 700, 1500, 1600]);
    await loop.stop();
  });

  it('runs a round at once when woken, and once more after a round that was woken while running', async () => {
    let release: () => void = () => {};
    let rounds = 0;
    const loop = repeatEvery(
      10_000,
      () => {
        rounds++;
        return new Promise<number>((resolve) => {
          release = () => resolve(0);
        });
      },
      () => {},
      { idleUpToMs: 10_000 },
    );
    loop.wake();
    loop.wake();
    await vi.advanceTimersByTimeAsync(0);
    expect(rounds).toBe(1);
    loop.wake(); // during the round: one more round right after it
    loop.wake();
    release();
    await vi.advanceTimersByTimeAsync(0);
    expect(rounds).toBe(2);
    release();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(rounds).toBe(2);
    await loop.stop();
  });

  it('goes on after a failed round, which it reports', async () => {
    const errors: unknown[] = [];
    let rounds = 0;
    const loop = repeatEvery(
      100,
      async () => {
        rounds++;
        if (rounds === 1) throw new Error('the table was away');
        return 1;
      },
      (error) => errors.push(error),
      { idleUpToMs: 1000 },
    );
    await vi.advanceTimersByTimeAsync(250);
    expect(rounds).toBe(2);
    expect(errors).toHaveLength(1);
    await loop.stop();
  });
});
