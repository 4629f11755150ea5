import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { propertyRuns } from '../support/property.ts';
import {
  STAGE_REASONS,
  STAGE_STATE_PAIRS,
  STAGE_STATUSES,
  isNewerVersion,
  recurrenceDeadline,
  stageStatus,
  type CompletionFacts,
  type StageFacts,
  type StageRule,
} from '../../shared/domain/stage-status.ts';

const DAY = 86400;
const NOW = 1_800_000_000;
const plainRule: StageRule = {
  strictness: null,
  frequency_quantity: null,
  frequency_unit: null,
  requires_signoff: false,
  requires_quiz: false,
};
const done = (overrides: Partial<CompletionFacts> = {}): CompletionFacts => ({
  init_date: NOW - 10 * DAY,
  end_date: NOW - 9 * DAY,
  manager_override_userid: null,
  release: { major: 1, minor: 0 },
  invalidated_at: null,
  ...overrides,
});
const facts = (overrides: Partial<StageFacts> = {}): StageFacts => ({
  rule: plainRule,
  latestRelease: { major: 1, minor: 0 },
  completion: null,
  signoff: 'none',
  quiz: 'not_started',
  now: NOW,
  ...overrides,
});

describe('stageStatus: the transition table (docs/stage-status.md)', () => {
  it.each<[string, Partial<StageFacts>, string, string]>([
    ['nothing done yet', {}, 'pending', 'not_started'],
    ['document opened, not finished', { completion: done({ end_date: null }) }, 'started', 'doc_in_progress'],
    ['document finished', { completion: done() }, 'completed', 'completed'],
    ['quiz attempts used up', { quiz: 'locked', completion: done() }, 'blocked', 'quiz_locked'],
    ['quiz locked before starting', { quiz: 'locked' }, 'blocked', 'quiz_locked'],
    [
      'manager invalidated the completion',
      { completion: done({ invalidated_at: NOW - DAY }) },
      'invalidated',
      'manager_override',
    ],
    [
      'new major release, strictness major',
      { rule: { ...plainRule, strictness: 'major' }, latestRelease: { major: 2, minor: 0 }, completion: done() },
      'invalidated',
      'newer_release',
    ],
    [
      'new minor release, strictness major',
      { rule: { ...plainRule, strictness: 'major' }, latestRelease: { major: 1, minor: 3 }, completion: done() },
      'completed',
      'completed',
    ],
    [
      'new minor release, strictness minor',
      { rule: { ...plainRule, strictness: 'minor' }, latestRelease: { major: 1, minor: 3 }, completion: done() },
      'invalidated',
      'newer_release',
    ],
    [
      'new major release, no strictness',
      { latestRelease: { major: 5, minor: 0 }, completion: done() },
      'completed',
      'completed',
    ],
    [
      'recurrence passed',
      { rule: { ...plainRule, frequency_quantity: 1, frequency_unit: 'week' }, completion: done() },
      'expired',
      'recurrence_expired',
    ],
    [
      'recurrence not yet passed',
      { rule: { ...plainRule, frequency_quantity: 1, frequency_unit: 'month' }, completion: done() },
      'completed',
      'completed',
    ],
    [
      'manager completed it',
      { completion: done({ manager_override_userid: 7 }), quiz: 'failed' },
      'completed',
      'manager_override',
    ],
    [
      'manager override beats a locked quiz',
      { completion: done({ manager_override_userid: 7 }), quiz: 'locked' },
      'completed',
      'manager_override',
    ],
    [
      'manager override still expires',
      {
        rule: { ...plainRule, frequency_quantity: 2, frequency_unit: 'day' },
        completion: done({ manager_override_userid: 7 }),
      },
      'expired',
      'recurrence_expired',
    ],
    [
      'quiz not passed yet',
      { rule: { ...plainRule, requires_quiz: true }, completion: done(), quiz: 'failed' },
      'started',
      'incomplete_assessment',
    ],
    [
      'quiz passed',
      { rule: { ...plainRule, requires_quiz: true }, completion: done(), quiz: 'passed' },
      'completed',
      'completed',
    ],
    [
      'signoff not requested',
      { rule: { ...plainRule, requires_signoff: true }, completion: done() },
      'started',
      'incomplete_assessment',
    ],
    [
      'signoff requested',
      { rule: { ...plainRule, requires_signoff: true }, completion: done(), signoff: 'requested' },
      'blocked',
      'requested_signoff',
    ],
    [
      'signoff responded, not acknowledged',
      { rule: { ...plainRule, requires_signoff: true }, completion: done(), signoff: 'responded' },
      'blocked',
      'requested_signoff',
    ],
    [
      'signoff acknowledged',
      { rule: { ...plainRule, requires_signoff: true }, completion: done(), signoff: 'acknowledged' },
      'completed',
      'signoff_approved',
    ],
    [
      'signoff rejected: may request again',
      { rule: { ...plainRule, requires_signoff: true }, completion: done(), signoff: 'rejected' },
      'started',
      'incomplete_assessment',
    ],
    [
      'quiz checked before signoff',
      {
        rule: { ...plainRule, requires_signoff: true, requires_quiz: true },
        completion: done(),
        signoff: 'acknowledged',
        quiz: 'in_progress',
      },
      'started',
      'incomplete_assessment',
    ],
    [
      'new major release acknowledged: the completion carries over',
      {
        rule: { ...plainRule, strictness: 'major' },
        latestRelease: { major: 2, minor: 0 },
        completion: done(),
        acknowledged: { major: 2, minor: 0 },
      },
      'completed',
      'completed',
    ],
    [
      'new major release acknowledged but marked as needing retraining',
      {
        rule: { ...plainRule, strictness: 'major' },
        latestRelease: { major: 2, minor: 0 },
        completion: done(),
        acknowledged: { major: 2, minor: 0 },
        retraining: { major: 2, minor: 0 },
      },
      'invalidated',
      'newer_release',
    ],
    [
      'acknowledged 2.0, then 3.0 released: invalid until 3.0 is acknowledged',
      {
        rule: { ...plainRule, strictness: 'major' },
        latestRelease: { major: 3, minor: 0 },
        completion: done(),
        acknowledged: { major: 2, minor: 0 },
      },
      'invalidated',
      'newer_release',
    ],
    [
      'a retraining release older than the completion does not matter',
      {
        rule: { ...plainRule, strictness: 'major' },
        latestRelease: { major: 1, minor: 0 },
        completion: done(),
        retraining: { major: 1, minor: 0 },
      },
      'completed',
      'completed',
    ],
    [
      'strictness minor: acknowledging the minor release carries over',
      {
        rule: { ...plainRule, strictness: 'minor' },
        latestRelease: { major: 1, minor: 2 },
        completion: done(),
        acknowledged: { major: 1, minor: 2 },
      },
      'completed',
      'completed',
    ],
    [
      'completed before any release, then released, strictness minor',
      {
        rule: { ...plainRule, strictness: 'minor' },
        completion: done({ release: null }),
        latestRelease: { major: 0, minor: 1 },
      },
      'invalidated',
      'newer_release',
    ],
  ])('%s', (_, input, status, reason) => {
    expect(stageStatus(facts(input))).toEqual({ status, reason });
  });

  it('includes the three combinations the spec shows', () => {
    const pairs = STAGE_STATE_PAIRS.map((pair) => `${pair.status}/${pair.reason}`);
    expect(pairs).toEqual(
      expect.arrayContaining(['started/doc_in_progress', 'completed/completed', 'expired/recurrence_expired']),
    );
  });
});

describe('recurrence', () => {
  it('adds calendar months and years in UTC', () => {
    const jan31 = Date.UTC(2026, 0, 31) / 1000;
    const rule = (quantity: number, unit: 'month' | 'year'): StageRule => ({
      ...plainRule,
      frequency_quantity: quantity,
      frequency_unit: unit,
    });
    expect(new Date(recurrenceDeadline(rule(1, 'year'), jan31)! * 1000).toISOString()).toBe('2027-01-31T00:00:00.000Z');
    expect(new Date(recurrenceDeadline(rule(12, 'month'), jan31)! * 1000).toISOString()).toBe(
      '2027-01-31T00:00:00.000Z',
    );
  });
});

const arbitraryFacts: fc.Arbitrary<StageFacts> = fc.record({
  rule: fc.record({
    strictness: fc.constantFrom('major' as const, 'minor' as const, null),
    frequency_quantity: fc.option(fc.integer({ min: 1, max: 24 }), { nil: null }),
    frequency_unit: fc.option(fc.constantFrom('day' as const, 'week' as const, 'month' as const, 'year' as const), {
      nil: null,
    }),
    requires_signoff: fc.boolean(),
    requires_quiz: fc.boolean(),
  }),
  latestRelease: fc.option(
    fc.record({ major: fc.integer({ min: 0, max: 5 }), minor: fc.integer({ min: 0, max: 5 }) }),
    { nil: null },
  ),
  completion: fc.option(
    fc.record({
      init_date: fc.integer({ min: NOW - 800 * DAY, max: NOW }),
      end_date: fc.option(fc.integer({ min: NOW - 800 * DAY, max: NOW }), { nil: null }),
      manager_override_userid: fc.option(fc.integer({ min: 1, max: 100 }), { nil: null }),
      release: fc.option(fc.record({ major: fc.integer({ min: 0, max: 5 }), minor: fc.integer({ min: 0, max: 5 }) }), {
        nil: null,
      }),
      invalidated_at: fc.option(fc.integer({ min: NOW - 10 * DAY, max: NOW }), { nil: null }),
    }),
    { nil: null },
  ),
  signoff: fc.constantFrom(
    'none' as const,
    'requested' as const,
    'responded' as const,
    'acknowledged' as const,
    'rejected' as const,
  ),
  quiz: fc.constantFrom(
    'not_started' as const,
    'in_progress' as const,
    'passed' as const,
    'failed' as const,
    'locked' as const,
  ),
  now: fc.constant(NOW),
  acknowledged: fc.option(fc.record({ major: fc.integer({ min: 0, max: 5 }), minor: fc.integer({ min: 0, max: 5 }) }), {
    nil: null,
  }),
  retraining: fc.option(fc.record({ major: fc.integer({ min: 0, max: 5 }), minor: fc.integer({ min: 0, max: 5 }) }), {
    nil: null,
  }),
});

describe('stageStatus: properties', () => {
  it('always answers a (status, reason) pair from the spec lists and the documented table', () => {
    const allowed = new Set(STAGE_STATE_PAIRS.map((pair) => `${pair.status}/${pair.reason}`));
    fc.assert(
      fc.property(arbitraryFacts, (input) => {
        const state = stageStatus(input);
        expect(STAGE_STATUSES).toContain(state.status);
        expect(STAGE_REASONS).toContain(state.reason);
        expect(allowed.has(`${state.status}/${state.reason}`)).toBe(true);
      }),
      { numRuns: propertyRuns(2000) },
    );
  });

  it('is completed only for a finished, current, unexpired completion', () => {
    fc.assert(
      fc.property(arbitraryFacts, (input) => {
        if (stageStatus(input).status !== 'completed') return;
        expect(input.completion?.end_date).not.toBeNull();
        expect(input.completion?.invalidated_at).toBeNull();
      }),
      { numRuns: propertyRuns(2000) },
    );
  });

  it('a minor release never changes the state of a major-strict or non-strict stage', () => {
    fc.assert(
      fc.property(arbitraryFacts, fc.constantFrom('major' as const, null), (input, strictness) => {
        // The new minor release is not marked as needing retraining: marks name released versions only.
        const marked =
          input.retraining && input.latestRelease && !isNewerVersion(input.retraining, input.latestRelease);
        const base = { ...input, rule: { ...input.rule, strictness }, retraining: marked ? input.retraining : null };
        const latest = base.latestRelease ?? { major: 0, minor: 0 };
        const bumped = { ...base, latestRelease: { major: latest.major, minor: latest.minor + 1 } };
        expect(stageStatus(bumped)).toEqual(stageStatus(base));
      }),
      { numRuns: propertyRuns(1000) },
    );
  });

  it('time only moves a completed stage forward to expired, never back', () => {
    fc.assert(
      fc.property(arbitraryFacts, fc.integer({ min: 0, max: 1000 * DAY }), (input, later) => {
        if (stageStatus(input).status !== 'completed') return;
        const future = stageStatus({ ...input, now: input.now + later }).status;
        expect(['completed', 'expired']).toContain(future);
      }),
      { numRuns: propertyRuns(1000) },
    );
  });
});
