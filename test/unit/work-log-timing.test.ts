import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { propertyRuns } from '../support/property.ts';
import {
  activateStep,
  applyOperation,
  startTiming,
  timingProblems,
  timingTotals,
  WORK_LOG_STATUSES,
  type TransitionResult,
  type WorkLogStatus,
  type WorkLogTiming,
} from '../../shared/domain/work-log-timing.ts';

const T0 = 1_800_000_000;
const OPERATIONS = ['pause', 'resume', 'suspend', 'assume', 'finish', 'cancel'] as const;
type Operation = (typeof OPERATIONS)[number];

function ok(result: TransitionResult): WorkLogTiming {
  if (!result.ok) throw new Error(`expected a legal move, got ${result.code}: ${result.message}`);
  return result.timing;
}

/** A timing in the given status, on step 7, reached through legal moves. */
function timingIn(status: WorkLogStatus): WorkLogTiming {
  const started = ok(activateStep(startTiming(T0), 7, T0 + 10));
  switch (status) {
    case 'started':
      return started;
    case 'paused':
      return ok(applyOperation(started, 'pause', T0 + 20));
    case 'suspended':
      return ok(applyOperation(started, 'suspend', T0 + 20));
    case 'complete':
      return ok(applyOperation(started, 'finish', T0 + 20));
    case 'cancelled':
      return ok(applyOperation(started, 'cancel', T0 + 20));
  }
}

// The states-and-transitions table of docs/work-log.md: the status each move leads to, or the refusal code.
const TABLE: Record<WorkLogStatus, Record<Operation, string>> = {
  started: {
    pause: 'paused',
    resume: '!not_paused',
    suspend: 'suspended',
    assume: '!not_suspended',
    finish: 'complete',
    cancel: 'cancelled',
  },
  paused: {
    pause: '!already_paused',
    resume: 'started',
    suspend: '!not_in_progress',
    assume: '!not_suspended',
    finish: 'complete',
    cancel: 'cancelled',
  },
  suspended: {
    pause: '!entry_suspended',
    resume: '!entry_suspended',
    suspend: '!already_suspended',
    assume: 'started',
    finish: 'complete',
    cancel: 'cancelled',
  },
  complete: {
    pause: '!entry_complete',
    resume: '!entry_complete',
    suspend: '!entry_complete',
    assume: '!entry_complete',
    finish: '!entry_complete',
    cancel: '!entry_complete',
  },
  cancelled: {
    pause: '!entry_cancelled',
    resume: '!entry_cancelled',
    suspend: '!entry_cancelled',
    assume: '!entry_cancelled',
    finish: '!entry_cancelled',
    cancel: '!entry_cancelled',
  },
};

describe('work-log timing: the transition table', () => {
  for (const status of WORK_LOG_STATUSES) {
    for (const operation of OPERATIONS) {
      const expected = TABLE[status][operation];
      it(`${operation} from ${status} -> ${expected}`, () => {
        const before = timingIn(status);
        const snapshot = structuredClone(before);
        const result = applyOperation(before, operation, T0 + 100);
        if (expected.startsWith('!')) {
          expect(result).toMatchObject({ ok: false, code: expected.slice(1) });
          if (!result.ok) expect(result.message.length).toBeGreaterThan(10);
        } else {
          expect(result.ok && result.timing.status).toBe(expected);
        }
        expect(before).toEqual(snapshot);
      });
    }
  }

  it('moving to a step is legal only while started; the same step again changes nothing', () => {
    const started = timingIn('started');
    expect(activateStep(started, 7, T0 + 50)).toMatchObject({ ok: true, changed: false });
    expect(activateStep(timingIn('paused'), 8, T0 + 50)).toMatchObject({ ok: false, code: 'entry_paused' });
    expect(activateStep(timingIn('suspended'), 8, T0 + 50)).toMatchObject({ ok: false, code: 'entry_suspended' });
    expect(activateStep(timingIn('complete'), 8, T0 + 50)).toMatchObject({ ok: false, code: 'entry_complete' });
  });
});

describe('work-log timing: examples', () => {
  it('pause stops the active step, pause time counts up, resume returns to that step', () => {
    let timing = ok(activateStep(startTiming(T0), 3, T0 + 5));
    timing = ok(activateStep(timing, 4, T0 + 20));
    timing = ok(applyOperation(timing, 'pause', T0 + 50));
    expect(timing).toMatchObject({ status: 'paused', active_stepid: null, resume_stepid: 4 });
    expect(timingTotals(timing, T0 + 80)).toMatchObject({ duration: 50, paused_duration: 30 });
    timing = ok(applyOperation(timing, 'resume', T0 + 100));
    expect(timing).toMatchObject({ status: 'started', active_stepid: 4 });
    timing = ok(applyOperation(timing, 'finish', T0 + 110));
    const totals = timingTotals(timing, T0 + 999);
    expect(timing.endtime).toBe(T0 + 110);
    expect(totals).toEqual({
      duration: 60,
      paused_duration: 50,
      step_durations: [
        { stepid: 3, duration: 15 },
        { stepid: 4, duration: 40 },
      ],
    });
  });

  it('suspended time is not working time; assume resumes the step that was active', () => {
    let timing = ok(activateStep(startTiming(T0), 9, T0));
    timing = ok(applyOperation(timing, 'suspend', T0 + 30));
    timing = ok(applyOperation(timing, 'assume', T0 + 3630));
    expect(timing).toMatchObject({ status: 'started', active_stepid: 9 });
    timing = ok(applyOperation(timing, 'cancel', T0 + 3640));
    expect(timingTotals(timing, T0 + 5000)).toMatchObject({ duration: 40, paused_duration: 3600 });
  });

  it('a clock that goes backwards never makes an interval negative', () => {
    let timing = ok(applyOperation(startTiming(T0), 'pause', T0 + 100));
    timing = ok(applyOperation(timing, 'resume', T0 + 40));
    expect(timingProblems(timing)).toEqual([]);
    expect(timingTotals(timing, T0).duration).toBe(100);
  });
});

type Move = { kind: 'op'; operation: Operation; delta: number } | { kind: 'step'; stepid: number; delta: number };

const moveArbitrary: fc.Arbitrary<Move> = fc.oneof(
  fc.record({
    kind: fc.constant('op' as const),
    operation: fc.constantFrom(...OPERATIONS),
    delta: fc.integer({ min: -30, max: 5000 }),
  }),
  fc.record({
    kind: fc.constant('step' as const),
    stepid: fc.integer({ min: 1, max: 5 }),
    delta: fc.integer({ min: -30, max: 5000 }),
  }),
);

/**
 * An independent reference: the clock (never going back) advances; the time between moves is
 * working time while started and idle time otherwise, and belongs to the step active meanwhile.
 */
function replay(moves: Move[]) {
  let timing = startTiming(T0);
  let wall = T0;
  let clock = T0;
  const reference = { working: 0, idle: 0, steps: new Map<number, number>() };
  for (const move of moves) {
    wall += move.delta;
    const before = structuredClone(timing);
    const result =
      move.kind === 'op' ? applyOperation(timing, move.operation, wall) : activateStep(timing, move.stepid, wall);
    // An illegal move changes nothing, not even the object it was given.
    expect(timing).toEqual(before);
    // A move that changes nothing (the active step again) happens at no moment, like a refused one.
    if (result.ok && result.changed) {
      // The time since the last move was working time while started, idle time while stopped.
      const at = Math.max(clock, wall);
      const elapsed = at - clock;
      if (timing.status === 'started') {
        reference.working += elapsed;
        if (timing.active_stepid !== null)
          reference.steps.set(timing.active_stepid, (reference.steps.get(timing.active_stepid) ?? 0) + elapsed);
      } else if (timing.status === 'paused' || timing.status === 'suspended') {
        reference.idle += elapsed;
      }
      timing = result.timing;
      clock = at;
    }
    expect(timingProblems(timing)).toEqual([]);
  }
  return { timing, clock, reference };
}

describe('work-log timing: properties', () => {
  it('any sequence of moves leaves a consistent entry whose totals match an independent reference', () => {
    fc.assert(
      fc.property(fc.array(moveArbitrary, { maxLength: 40 }), fc.integer({ min: 0, max: 10_000 }), (moves, later) => {
        const { timing, clock, reference } = replay(moves);
        const totals = timingTotals(timing, clock);
        expect(totals.duration).toBe(reference.working);
        expect(totals.paused_duration).toBe(reference.idle);
        for (const step of totals.step_durations) expect(step.duration).toBe(reference.steps.get(step.stepid) ?? 0);

        // Asked later: an open entry's working or idle time grows by exactly the wait, by its status.
        const afterwards = timingTotals(timing, clock + later);
        expect(afterwards.duration).toBeGreaterThanOrEqual(0);
        expect(afterwards.paused_duration).toBeGreaterThanOrEqual(0);
        if (timing.status === 'started')
          expect(afterwards).toMatchObject({
            duration: totals.duration + later,
            paused_duration: totals.paused_duration,
          });
        if (timing.status === 'paused' || timing.status === 'suspended') {
          expect(afterwards).toMatchObject({
            duration: totals.duration,
            paused_duration: totals.paused_duration + later,
          });
        }
        if (timing.status === 'complete' || timing.status === 'cancelled') expect(afterwards).toEqual(totals);
      }),
      { numRuns: propertyRuns(500) },
    );
  });

  it('durations are never negative, paused time is never counted, and working + idle = elapsed', () => {
    fc.assert(
      fc.property(fc.array(moveArbitrary, { maxLength: 40 }), (moves) => {
        const { timing, clock } = replay(moves);
        const totals = timingTotals(timing, clock);
        const end = timing.endtime ?? clock;
        expect(totals.duration).toBeGreaterThanOrEqual(0);
        expect(totals.paused_duration).toBeGreaterThanOrEqual(0);
        expect(totals.duration + totals.paused_duration).toBe(end - timing.starttime);
        expect(totals.step_durations.every((step) => step.duration >= 0)).toBe(true);
        expect(totals.step_durations.reduce((sum, step) => sum + step.duration, 0)).toBeLessThanOrEqual(
          totals.duration,
        );
      }),
      { numRuns: propertyRuns(500) },
    );
  });

  it('resume and assume return to the step that was active when the clock stopped', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 99 }),
        fc.constantFrom('pause' as const, 'suspend' as const),
        fc.nat(10_000),
        (stepid, stop, wait) => {
          const running = ok(activateStep(startTiming(T0), stepid, T0 + 1));
          const stopped = ok(applyOperation(running, stop, T0 + 2));
          expect(stopped.active_stepid).toBeNull();
          const restarted = ok(applyOperation(stopped, stop === 'pause' ? 'resume' : 'assume', T0 + 2 + wait));
          expect(restarted.active_stepid).toBe(stepid);
          expect(timingTotals(restarted, T0 + 2 + wait)).toMatchObject({ duration: 2, paused_duration: wait });
        },
      ),
    );
  });
});
