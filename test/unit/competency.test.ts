import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { propertyRuns } from '../support/property.ts';
import { stillValid, type ReleaseVersion, type Strictness } from '../../shared/domain/stage-status.ts';
import {
  DAY_SECONDS,
  acknowledgementState,
  concernStrictness,
  derivesLevel,
  type ConcernFacts,
  type LevelSource,
  effectiveLevel,
  expiryForecast,
  gateDecision,
  levelExpiry,
  needsAcknowledgement,
  shortfallMessage,
  type GateMode,
  type SkillCheck,
} from '../../shared/domain/competency.ts';
import { diffLines, diffSteps, type DiffStep } from '../../shared/domain/revision-diff.ts';

const NOW = 1_800_000_000;
const v = (major: number, minor: number): ReleaseVersion => ({ major, minor });

describe('the carry-over rule (docs/competency.md, decision table)', () => {
  it.each<[string, Parameters<typeof stillValid>[0], boolean]>([
    [
      'no newer release',
      { strictness: 'major', earned: v(1, 0), latest: v(1, 0), acknowledged: null, retraining: null },
      true,
    ],
    [
      'minor release, major strictness',
      { strictness: 'major', earned: v(1, 0), latest: v(1, 4), acknowledged: null, retraining: null },
      true,
    ],
    [
      'major release, not acknowledged',
      { strictness: 'major', earned: v(1, 0), latest: v(2, 0), acknowledged: null, retraining: null },
      false,
    ],
    [
      'major release, acknowledged',
      { strictness: 'major', earned: v(1, 0), latest: v(2, 0), acknowledged: v(2, 0), retraining: null },
      true,
    ],
    [
      'major release acknowledged, needs retraining',
      { strictness: 'major', earned: v(1, 0), latest: v(2, 0), acknowledged: v(2, 0), retraining: v(2, 0) },
      false,
    ],
    [
      'minor release, minor strictness, acknowledged',
      { strictness: 'minor', earned: v(1, 0), latest: v(1, 1), acknowledged: v(1, 1), retraining: null },
      true,
    ],
    [
      'acknowledged an older release only',
      { strictness: 'minor', earned: v(1, 0), latest: v(1, 2), acknowledged: v(1, 1), retraining: null },
      false,
    ],
    [
      'no strictness: releases never matter',
      { strictness: null, earned: v(1, 0), latest: v(9, 0), acknowledged: null, retraining: v(9, 0) },
      true,
    ],
  ])('%s', (_, facts, expected) => {
    expect(stillValid(facts)).toBe(expected);
  });

  it('asks for acknowledgement of major releases only under major strictness, of every newer one under minor', () => {
    expect(needsAcknowledgement('major', v(1, 0), v(1, 1))).toBe(false);
    expect(needsAcknowledgement('major', v(1, 0), v(2, 0))).toBe(true);
    expect(needsAcknowledgement('minor', v(1, 0), v(1, 1))).toBe(true);
    expect(needsAcknowledgement('minor', v(1, 1), v(1, 1))).toBe(false);
    expect(needsAcknowledgement('major', null, v(1, 0))).toBe(true);
  });

  it('an acknowledgement is pending until due, then overdue, and signed once signed', () => {
    expect(acknowledgementState({ signed_date: null, due_date: NOW + 1 }, NOW)).toBe('pending');
    expect(acknowledgementState({ signed_date: null, due_date: NOW }, NOW)).toBe('overdue');
    expect(acknowledgementState({ signed_date: NOW - 5, due_date: NOW - 10 }, NOW)).toBe('signed');
  });
});

/** One person's history on one document: releases (some needing retraining), completions, acknowledgements. */
type HistoryEvent =
  | { kind: 'release'; type: 'major' | 'minor'; retraining: boolean }
  | { kind: 'complete' }
  | { kind: 'acknowledge' };

const historyEvent: fc.Arbitrary<HistoryEvent> = fc.oneof(
  fc.record({
    kind: fc.constant('release' as const),
    type: fc.constantFrom('major' as const, 'minor' as const),
    retraining: fc.boolean(),
  }),
  fc.constant({ kind: 'complete' as const }),
  fc.constant({ kind: 'acknowledge' as const }),
);

/**
 * Replays a history two ways: the facts the stored items keep (latest release, the release of the
 * last completion, the newest acknowledged and newest retraining release) given to stillValid, and
 * an independent step-by-step oracle of what the issue asks for.
 */
function replay(strictness: Exclude<Strictness, null>, history: HistoryEvent[]) {
  let latest: ReleaseVersion | null = null;
  let earned: ReleaseVersion | null | undefined; // undefined: never completed
  let acknowledged: ReleaseVersion | null = null;
  let retraining: ReleaseVersion | null = null;
  // The oracle: valid / waiting for an acknowledgement / needs retraining.
  let oracle: 'valid' | 'awaiting' | 'retrain' | 'none' = 'none';
  for (const event of history) {
    if (event.kind === 'release') {
      const base: ReleaseVersion = latest ?? v(0, 0);
      latest = event.type === 'major' ? v(base.major + 1, 0) : v(base.major, base.minor + 1);
      if (event.retraining) retraining = latest;
      const outdates = strictness === 'minor' || event.type === 'major';
      if (oracle !== 'none' && event.retraining && oracle !== 'retrain') oracle = 'retrain';
      else if (oracle === 'valid' && outdates) oracle = 'awaiting';
    } else if (event.kind === 'complete') {
      earned = latest;
      oracle = 'valid';
    } else if (latest) {
      acknowledged = latest;
      if (oracle === 'awaiting') oracle = 'valid';
    }
  }
  return { latest, earned, acknowledged, retraining, oracle };
}

describe('the carry-over rule over random histories (fast-check)', () => {
  it('a completion holds exactly when every outdating release was acknowledged and none needs retraining', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('major' as const, 'minor' as const),
        fc.array(historyEvent, { maxLength: 25 }),
        (strictness, history) => {
          const state = replay(strictness, history);
          if (state.earned === undefined) return;
          const valid = stillValid({
            strictness,
            earned: state.earned,
            latest: state.latest,
            acknowledged: state.acknowledged,
            retraining: state.retraining,
          });
          expect(valid).toBe(state.oracle === 'valid');
        },
      ),
      { numRuns: propertyRuns(300) },
    );
  });

  it('without acknowledgements or retraining marks it is the old rule (a newer release invalidates)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('major' as const, 'minor' as const),
        fc.array(
          fc.oneof(
            fc.record({
              kind: fc.constant('release' as const),
              type: fc.constantFrom('major' as const, 'minor' as const),
              retraining: fc.constant(false),
            }),
            fc.constant({ kind: 'complete' as const }),
          ),
          { maxLength: 20 },
        ),
        (strictness, history) => {
          const state = replay(strictness, history);
          if (state.earned === undefined) return;
          const base = state.earned ?? v(0, 0);
          const latest = state.latest ?? v(0, 0);
          const outdated =
            strictness === 'major'
              ? latest.major > base.major
              : latest.major > base.major || (latest.major === base.major && latest.minor > base.minor);
          expect(
            stillValid({
              strictness,
              earned: state.earned,
              latest: state.latest,
              acknowledged: null,
              retraining: null,
            }),
          ).toBe(!outdated);
        },
      ),
      { numRuns: propertyRuns(300) },
    );
  });
});

describe('levels: expiry, standing, forecast', () => {
  const guide = { latest: v(2, 0), acknowledged: null, retraining: null };

  it('a level counts only while unexpired and current for the guide’s major release', () => {
    expect(effectiveLevel({ level: 3, expires_at: null, earned: v(2, 0) }, guide, NOW)).toEqual({
      level: 3,
      standing: 'current',
    });
    expect(effectiveLevel({ level: 3, expires_at: NOW, earned: v(2, 0) }, guide, NOW)).toEqual({
      level: 0,
      standing: 'expired',
    });
    expect(effectiveLevel({ level: 3, expires_at: null, earned: v(1, 3) }, guide, NOW)).toEqual({
      level: 0,
      standing: 'outdated',
    });
    expect(
      effectiveLevel({ level: 3, expires_at: null, earned: v(1, 3) }, { ...guide, acknowledged: v(2, 0) }, NOW),
    ).toEqual({
      level: 3,
      standing: 'current',
    });
    expect(
      effectiveLevel({ level: 3, expires_at: null, earned: v(2, 0) }, { ...guide, latest: v(2, 5) }, NOW).level,
    ).toBe(3);
    expect(effectiveLevel(null, guide, NOW)).toEqual({ level: 0, standing: 'none' });
  });

  it('expiry follows the recertification interval; forecasts nest 30 ⊆ 60 ⊆ 90 and leave out lapsed levels', () => {
    expect(levelExpiry(NOW, null)).toBeNull();
    expect(levelExpiry(NOW, 365)).toBe(NOW + 365 * DAY_SECONDS);
    fc.assert(
      fc.property(
        fc.array(fc.option(fc.integer({ min: NOW - 100 * DAY_SECONDS, max: NOW + 200 * DAY_SECONDS }), { nil: null }), {
          maxLength: 30,
        }),
        (expiries) => {
          const levels = expiries.map((expires_at, index) => ({ index, expires_at }));
          const forecast = expiryForecast(levels, NOW);
          for (const level of forecast[30]) expect(forecast[60]).toContain(level);
          for (const level of forecast[60]) expect(forecast[90]).toContain(level);
          for (const level of forecast[90]) {
            expect(level.expires_at).not.toBeNull();
            expect(level.expires_at!).toBeGreaterThan(NOW);
            expect(level.expires_at!).toBeLessThanOrEqual(NOW + 90 * DAY_SECONDS);
          }
          const expected90 = levels.filter(
            (l) => l.expires_at !== null && l.expires_at > NOW && l.expires_at <= NOW + 90 * DAY_SECONDS,
          );
          expect(forecast[90]).toEqual(expected90);
        },
      ),
      { numRuns: propertyRuns(200) },
    );
  });

  it('the effective level never exceeds the level held, and an expired level never counts', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 4 }),
        fc.option(fc.integer({ min: NOW - 10, max: NOW + 10 }), { nil: null }),
        fc.option(fc.record({ major: fc.integer({ min: 0, max: 3 }), minor: fc.integer({ min: 0, max: 3 }) }), {
          nil: null,
        }),
        fc.integer({ min: 0, max: 3 }),
        (level, expires_at, earned, latestMajor) => {
          const result = effectiveLevel(
            { level, expires_at, earned },
            { latest: v(latestMajor, 0), acknowledged: null, retraining: null },
            NOW,
          );
          expect(result.level).toBeLessThanOrEqual(level);
          if (expires_at !== null && expires_at <= NOW) expect(result.level).toBe(0);
        },
      ),
      { numRuns: propertyRuns(300) },
    );
  });
});

describe('the gate', () => {
  const check = (held: number, required = 3, skillid = 1): SkillCheck => ({
    skillid,
    name: `Skill ${skillid}`,
    required,
    held,
    standing: held > 0 ? 'current' : 'none',
  });

  it.each<[GateMode, SkillCheck[], string]>([
    ['block', [check(3)], 'allow'],
    ['block', [check(2)], 'block'],
    ['warn', [check(2)], 'warn'],
    ['off', [check(0)], 'allow'],
    ['block', [], 'allow'],
    ['block', [check(4, 3, 1), check(1, 3, 2)], 'block'],
  ])('mode %s with %j → %s', (mode, checks, outcome) => {
    expect(gateDecision(mode, checks).outcome).toBe(outcome);
  });

  it('the reason names each skill short, the level required and the level held', () => {
    const { shortfalls } = gateDecision('block', [check(4, 3, 1), check(1, 3, 2)]);
    expect(shortfallMessage(shortfalls)).toBe(
      'Not qualified for this guide: skill "Skill 2" (skillid 2) requires level 3, level held 1',
    );
  });

  it('several skills: allowed exactly when every one is held at the minimum (properties)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<GateMode>('off', 'warn', 'block'),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 4 })), { maxLength: 6 }),
        (mode, pairs) => {
          const checks = pairs.map(([held, required], index) => check(held, required, index + 1));
          const decision = gateDecision(mode, checks);
          const short = checks.filter((c) => c.held < c.required);
          expect(decision.shortfalls).toEqual(short);
          expect(decision.outcome).toBe(mode === 'off' || short.length === 0 ? 'allow' : mode);
        },
      ),
      { numRuns: propertyRuns(300) },
    );
  });
});

describe('revision diff', () => {
  const step = (stepid: number, lines: string[], images: number[] = [], title = `Step ${stepid}`): DiffStep => ({
    stepid,
    title,
    lines,
    images,
  });

  it('names steps added, removed, moved and changed, with line and image differences', () => {
    const before = [step(1, ['a', 'b']), step(2, ['c']), step(3, ['d'], [10])];
    const after = [step(2, ['c']), step(1, ['a', 'b']), step(3, ['d', 'e'], [11]), step(4, ['new'])];
    const changes = diffSteps(before, after);
    const byId = new Map(changes.map((change) => [change.stepid, change]));
    expect(byId.get(1)?.change).toBe('moved');
    expect(byId.get(2)?.change).toBe('moved');
    expect(byId.get(3)).toMatchObject({
      change: 'changed',
      lines: [
        { op: 'same', text: 'd' },
        { op: 'added', text: 'e' },
      ],
      images_added: [11],
      images_removed: [10],
    });
    expect(byId.get(4)?.change).toBe('added');
    expect(diffSteps(after, before).find((change) => change.stepid === 4)?.change).toBe('removed');
  });

  it('inserting a step does not move the others', () => {
    expect(diffSteps([step(1, ['a']), step(2, ['b'])], [step(3, ['x']), step(1, ['a']), step(2, ['b'])])).toEqual([
      expect.objectContaining({ stepid: 3, change: 'added' }),
    ]);
  });

  it('line diffs rebuild both sides (properties)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('a', 'b', 'c', 'd'), { maxLength: 12 }),
        fc.array(fc.constantFrom('a', 'b', 'c', 'd'), { maxLength: 12 }),
        (before, after) => {
          const diff = diffLines(before, after);
          expect(diff.filter((l) => l.op !== 'added').map((l) => l.text)).toEqual(before);
          expect(diff.filter((l) => l.op !== 'removed').map((l) => l.text)).toEqual(after);
          if (before.join() === after.join()) expect(diff.every((l) => l.op === 'same')).toBe(true);
        },
      ),
      { numRuns: propertyRuns(300) },
    );
  });
});

describe('levels derived from courses (docs/competency.md, decision table)', () => {
  const held = (level: number, source: LevelSource, set_date: number, expires_at: number | null = null) => ({
    level,
    source,
    set_date,
    expires_at,
  });
  const rows: Array<[string, ReturnType<typeof held> | null, number, number, boolean]> = [
    ['no level held', null, 3, NOW, true],
    ['the same completion again (set_date = its date)', held(3, 'course_completion', NOW), 3, NOW, false],
    ["a trainer's level set after the completion", held(2, 'trainer_signature', NOW), 3, NOW - 10, false],
    ['a newer completion renews the same level', held(3, 'course_completion', NOW - 100), 3, NOW, true],
    ['a newer completion raises a lower level', held(1, 'trainer_signature', NOW - 100), 3, NOW, true],
    ["a trainer's higher level stays, even lapsed", held(4, 'trainer_signature', NOW - 100, NOW - 1), 3, NOW, false],
    ['a derived higher level stays while current', held(4, 'signoff', NOW - 100, NOW + 100), 3, NOW, false],
    ['a derived higher level that lapsed is replaced', held(4, 'signoff', NOW - 100, NOW - 1), 3, NOW, true],
  ];
  for (const [name, existing, granted, completedAt, writes] of rows)
    it(name, () => expect(derivesLevel(existing, granted, completedAt, NOW)).toBe(writes));

  it("never lowers a trainer's higher level; deriving twice from one completion writes once (properties)", () => {
    const source = fc.constantFrom<LevelSource>('trainer_signature', 'course_completion', 'signoff');
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 4 }),
        source,
        fc.integer({ min: 0, max: 1000 }),
        fc.option(fc.integer({ min: 0, max: 2000 }), { nil: null }),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 0, max: 1000 }),
        (level, from, setDate, expiresAt, granted, completedAt) => {
          const existing = held(level, from, setDate, expiresAt);
          const writes = derivesLevel(existing, granted, completedAt, 1500);
          if (from === 'trainer_signature' && level > granted) expect(writes).toBe(false);
          if (writes) {
            const after = held(granted, 'course_completion', completedAt);
            expect(derivesLevel(after, granted, completedAt, 1500)).toBe(false);
          }
        },
      ),
      { numRuns: propertyRuns(300) },
    );
  });
});

describe('which strictness asks a person (docs/competency.md, decision table)', () => {
  const facts = (over: Partial<ConcernFacts>): ConcernFacts => ({
    assignedCourses: [],
    allStages: [],
    document: null,
    site: null,
    traineeOrAudience: false,
    skills: [],
    ...over,
  });
  const rows: Array<[string, Partial<ConcernFacts>, 'major' | 'minor' | null]> = [
    ['not concerned at all', {}, null],
    ["an assignee: their course stage's own", { assignedCourses: [['minor']], document: 'major' }, 'minor'],
    [
      "an assignee: the stage's own even if the document says minor",
      { assignedCourses: [['major']], document: 'minor' },
      'major',
    ],
    ['an assignee of a stage without one: the document', { assignedCourses: [[null]], document: 'minor' }, 'minor'],
    ['… else the site', { assignedCourses: [[null]], site: 'minor' }, 'minor'],
    ['… else major', { assignedCourses: [[null]] }, 'major'],
    ['two courses: the strictest', { assignedCourses: [['major'], ['minor']] }, 'minor'],
    ['the course decides over a skill', { assignedCourses: [['major']], skills: ['minor'] }, 'major'],
    [
      'a trainee of no current course: every stage',
      { traineeOrAudience: true, allStages: ['major', 'minor'] },
      'minor',
    ],
    ['audience of a document in no course: the document', { traineeOrAudience: true, document: 'minor' }, 'minor'],
    ['a skill outside any course: the skill', { skills: ['minor'] }, 'minor'],
    ['a skill outside any course: the document first', { skills: ['minor'], document: 'major' }, 'major'],
    ['a skill of a guide in a course: the stages', { skills: ['minor'], allStages: ['major'] }, 'major'],
  ];
  for (const [name, over, expected] of rows) it(name, () => expect(concernStrictness(facts(over))).toBe(expected));

  it('an assignee depends on their courses and the fallbacks only; without courses it is the old rule (properties)', () => {
    const strictness = fc.constantFrom<'major' | 'minor'>('major', 'minor');
    const optional = fc.option(strictness, { nil: null });
    const arbitraryFacts = fc.record({
      assignedCourses: fc.array(fc.array(optional, { minLength: 1, maxLength: 3 }), { maxLength: 3 }),
      allStages: fc.array(optional, { maxLength: 4 }),
      document: optional,
      site: optional,
      traineeOrAudience: fc.boolean(),
      skills: fc.array(strictness, { maxLength: 3 }),
    });
    fc.assert(
      fc.property(arbitraryFacts, (input) => {
        const result = concernStrictness(input);
        if (input.assignedCourses.length > 0) {
          expect(concernStrictness({ ...input, skills: [], traineeOrAudience: false, allStages: [] })).toBe(result);
        }
        if (input.assignedCourses.length === 0 && input.allStages.length === 0) {
          // Decision 220's rule: trainees and audience the document's, else the site's;
          // skills the document's, else their own.
          const old = [
            ...(input.traineeOrAudience ? [input.document ?? input.site ?? 'major'] : []),
            ...input.skills.map((skill) => input.document ?? skill),
          ];
          expect(result).toBe(old.length === 0 ? null : old.includes('minor') ? 'minor' : 'major');
        }
      }),
      { numRuns: propertyRuns(300) },
    );
  });
});
