/**
 * SCORM 2004 sequencing rules (decision 335), table-driven from small manifests: pre-condition
 * rules (skip, disabled, hiddenFromChoice, stopForwardTraversal), attempt limits, exit and
 * post-condition rules after a Terminate, global objectives, constrained choice, randomization.
 */
import { describe, expect, it } from 'vitest';
import { parseScormManifest } from '../../shared/domain/scorm-manifest.ts';
import { scormNavigation } from '../../shared/domain/scorm-navigation.ts';
import { type ActivityStatus, UNKNOWN_STATUS } from '../../shared/domain/scorm-rollup.ts';
import {
  arrangeStructure,
  cmiObjectives,
  type ObjectiveStatus,
  parseNavigationRequest,
  Sequencer,
  type SequencingState,
} from '../../shared/domain/scorm-sequencing.ts';
import { tableOfContents } from '../../shared/domain/scorm-structure.ts';

const seq = (inner: string) => `<imsss:sequencing>${inner}</imsss:sequencing>`;
const FLOW = '<imsss:controlMode flow="true"/>';
const sco = (id: string, sequencing = '') =>
  `<item identifier="${id}" identifierref="R-${id}"><title>${id}</title>${sequencing}</item>`;
const cluster = (id: string, children: string, sequencing = seq(FLOW)) =>
  `<item identifier="${id}"><title>${id}</title>${children}${sequencing}</item>`;

/** A rule of `kind` (preConditionRule, exitConditionRule, postConditionRule) doing `action` when `conditions` hold. */
function rule(kind: string, action: string, conditions: string, combination = 'all') {
  const combined = `<imsss:ruleConditions conditionCombination="${combination}">${conditions}</imsss:ruleConditions>`;
  return `<imsss:${kind}>${combined}<imsss:ruleAction action="${action}"/></imsss:${kind}>`;
}
const when = (condition: string, operator = 'noOp', extra = '') =>
  `<imsss:ruleCondition condition="${condition}" operator="${operator}"${extra}/>`;
const rules = (...list: string[]) => `<imsss:sequencingRules>${list.join('')}</imsss:sequencingRules>`;

function structure(body: string, organization = seq(FLOW)) {
  const ids = [...body.matchAll(/identifierref="([^"]+)"/g)].map((match) => match[1]!);
  return parseScormManifest(`<?xml version="1.0"?>
<manifest identifier="m" xmlns="http://www.imsglobal.org/xsd/imscp_v1p1"
  xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_v1p3"
  xmlns:adlseq="http://www.adlnet.org/xsd/adlseq_v1p3" xmlns:imsss="http://www.imsglobal.org/xsd/imsss">
  <metadata><schema>ADL SCORM</schema><schemaversion>2004 4th Edition</schemaversion></metadata>
  <organizations default="ORG"><organization identifier="ORG"><title>T</title>${body}${organization}
  </organization></organizations>
  <resources>${ids
    .map((id) => `<resource identifier="${id}" type="webcontent" adlcp:scormType="sco" href="${id}.html"/>`)
    .join('')}</resources>
</manifest>`).scorm!;
}

const done = (extra: Partial<ActivityStatus> = {}): ActivityStatus => ({
  ...UNKNOWN_STATUS,
  attempted: true,
  ended: true,
  completion: 'completed',
  satisfied: true,
  ...extra,
});

function state(
  scos: Record<string, Partial<ActivityStatus>>,
  more: {
    attempts?: Record<string, number>;
    globals?: Record<string, ObjectiveStatus>;
    seconds?: Record<string, number>;
  } = {},
): SequencingState {
  return {
    scos: new Map(Object.entries(scos).map(([id, status]) => [id, done(status)])),
    objectives: new Map(),
    attempts: new Map(Object.entries(more.attempts ?? {})),
    globals: new Map(Object.entries(more.globals ?? {})),
    seconds: new Map(Object.entries(more.seconds ?? {})),
  };
}

describe('pre-condition rules', () => {
  // root (flow) > [a, b (skipped once a is satisfied), c]
  const skipping = structure(
    sco('a') + sco('b', seq(rules(rule('preConditionRule', 'skip', when('always'))))) + sco('c'),
  );

  it('skip: flow passes the activity both ways; it may still be chosen', () => {
    expect(scormNavigation(skipping, 'a')).toMatchObject({ next: 'c', end: false });
    expect(scormNavigation(skipping, 'c')).toMatchObject({ previous: 'a' });
    expect(scormNavigation(skipping, 'a').choosable).toContain('b');
    // Skipping the last activity ends the session.
    const last = structure(sco('a') + sco('b', seq(rules(rule('preConditionRule', 'skip', when('always'))))));
    expect(scormNavigation(last, 'a')).toMatchObject({ next: null, end: true });
  });

  // b: disabled until a's objective, shared through the global objective g, is satisfied.
  const gated = structure(
    sco(
      'a',
      seq(
        '<imsss:objectives><imsss:primaryObjective objectiveID="pa">' +
          '<imsss:mapInfo targetObjectiveID="g" writeSatisfiedStatus="true"/>' +
          '</imsss:primaryObjective></imsss:objectives>',
      ),
    ) +
      sco(
        'b',
        seq(
          rules(rule('preConditionRule', 'disabled', when('satisfied', 'not', ' referencedObjective="gate"'))) +
            '<imsss:objectives><imsss:primaryObjective objectiveID="pb"/><imsss:objective objectiveID="gate">' +
            '<imsss:mapInfo targetObjectiveID="g"/></imsss:objective></imsss:objectives>',
        ),
      ),
  );

  it.each([
    ['nothing known: not satisfied is unknown, the rule does not fire', {}, null],
    ['the global objective failed', { g: { satisfied: false, measure: null } }, 'disabled'],
    ['the global objective satisfied', { g: { satisfied: true, measure: null } }, null],
  ] as const)('disabled, read through a global objective: %s', (_, globals, refused) => {
    const sequencer = new Sequencer(gated, state({}, { globals }));
    const refusal = sequencer.deliveryRefusal('b');
    expect(refusal === null ? null : 'disabled').toBe(refused);
    expect(sequencer.choosable('a').includes('b')).toBe(refused === null);
    expect(scormNavigation(gated, 'a', state({}, { globals })).next).toBe(refused === null ? 'b' : null);
  });

  it("an activity's objective writes its global objective; the next attempt reads it", () => {
    const failed = new Sequencer(gated, state({ a: { satisfied: false } }));
    expect(failed.globalWrites().get('g')).toEqual({ satisfied: false, measure: null });
    expect(
      new Sequencer(
        gated,
        state({ a: { satisfied: false } }, { globals: Object.fromEntries(failed.globalWrites()) }),
      ).deliveryRefusal('b'),
    ).toMatch(/disabled/);
  });

  it('hiddenFromChoice: not choosable, still reached by flow', () => {
    const hidden = structure(
      sco('a') + sco('b', seq(rules(rule('preConditionRule', 'hiddenFromChoice', when('always'))))),
    );
    expect(scormNavigation(hidden, 'a')).toMatchObject({ next: 'b', choosable: ['a'] });
  });

  it('stopForwardTraversal: choice may not go forward past it until its condition stops holding', () => {
    const stop = rules(rule('preConditionRule', 'stopForwardTraversal', when('satisfied', 'not')));
    const tree = structure(sco('a', seq(stop)) + sco('b') + sco('c'));
    expect(new Sequencer(tree, state({ a: { satisfied: false } })).choosable('a')).toEqual(['a']);
    expect(new Sequencer(tree, state({ a: { satisfied: false } })).choosable('c')).toEqual(['a', 'b', 'c']); // backward
    expect(new Sequencer(tree, state({ a: {} })).choosable('a')).toEqual(['a', 'b', 'c']);
  });

  it.each([
    ['objectiveMeasureGreaterThan', 0.5, 0.6, true],
    ['objectiveMeasureGreaterThan', 0.5, 0.5, false],
    ['objectiveMeasureLessThan', 0.5, 0.4, true],
    ['objectiveMeasureLessThan', 0.5, null, false],
  ] as const)('%s %s with measure %s fires: %s', (condition, threshold, measure, fires) => {
    const tree = structure(
      sco('a') +
        sco(
          'b',
          seq(rules(rule('preConditionRule', 'disabled', when(condition, 'noOp', ` measureThreshold="${threshold}"`)))),
        ),
    );
    expect(new Sequencer(tree, state({ b: { measure } })).deliveryRefusal('b') !== null).toBe(fires);
  });
});

describe('limit conditions (UP.1)', () => {
  const limited = structure(sco('a', seq('<imsss:limitConditions attemptLimit="2"/>')) + sco('b'));
  it.each([
    [1, {}, null],
    [2, {}, 'limit'],
    [2, { suspended: true, ended: false }, null],
    // An active activity (its session open) is not limited: the learner goes on with it.
    [2, { active: true, ended: false }, null],
  ] as const)('attemptLimit 2 with %s attempts (%o) refuses: %s', (count, extra, refused) => {
    const sequencer = new Sequencer(limited, state({ a: extra }, { attempts: { a: count } }));
    expect(sequencer.deliveryRefusal('a')?.includes('limit') ? 'limit' : null).toBe(refused);
    expect(sequencer.start()).toBe(refused ? null : 'a');
  });

  // root (flow) > [unit (attemptAbsoluteDurationLimit 1 min) > [a, b], c (a pre rule reads timeLimitExceeded)]
  const timed = structure(
    cluster('unit', sco('a') + sco('b'), seq(`${FLOW}<imsss:limitConditions attemptAbsoluteDurationLimit="PT1M"/>`)) +
      sco('c', seq('<imsss:limitConditions attemptAbsoluteDurationLimit="PT0H0M30S"/>')),
  );
  it.each([
    ['no time reported', {}, {}, null, 'c'],
    ['59 s in the unit', { a: {} }, { a: 40, b: 19 }, null, 'b'],
    ['60 s in the unit, summed over its SCOs', { a: {} }, { a: 40, b: 20 }, 'unit', null],
    ['60 s, one SCO of it still open', { a: { active: true, ended: false } }, { a: 60 }, null, 'b'],
    ['c at 30 s', { c: {} }, { c: 30 }, 'c', null],
  ] as const)('attemptAbsoluteDurationLimit: %s', (_, scos, seconds, limited, next) => {
    const sequencer = new Sequencer(timed, state({ ...scos }, { seconds: { ...seconds } }));
    const refused = ['b', 'c'].map((id) => sequencer.deliveryRefusal(id)).find((refusal) => refusal !== null);
    expect(refused ?? null).toBe(limited ? `"${limited}" has reached its time limit` : null);
    // Flow from a: into b unless the unit is out of time (it is entered only from outside).
    if (next === 'b')
      expect(scormNavigation(timed, 'a', state({ ...scos }, { seconds: { ...seconds } })).next).toBe('b');
  });

  it('timeLimitExceeded and attemptLimitExceeded are rule conditions', () => {
    const skipOnTime = structure(
      sco(
        'a',
        seq(
          '<imsss:limitConditions attemptLimit="5" attemptAbsoluteDurationLimit="PT10S"/>' +
            rules(rule('postConditionRule', 'exitAll', when('timeLimitExceeded'))),
        ),
      ) + sco('b'),
    );
    const within = new Sequencer(skipOnTime, state({ a: {} }, { seconds: { a: 9 } }));
    expect(within.afterTerminate('a', { kind: 'continue' })).toMatchObject({ deliver: 'b' });
    const over = new Sequencer(skipOnTime, state({ a: {} }, { seconds: { a: 10 } }));
    expect(over.afterTerminate('a', { kind: 'continue' })).toMatchObject({ deliver: null, end: true });
  });
});

describe('rollup considerations (RB.1.4.2) and measureSatisfactionIfActive', () => {
  /** root (flow) > [a, b]; b skipped while not attempted, with `consideration` for all four actions. */
  const considered = (consideration: string) =>
    structure(
      sco('a') +
        sco(
          'b',
          seq(
            rules(rule('preConditionRule', 'skip', when('attempted', 'not'))) +
              `<adlseq:rollupConsiderations requiredForSatisfied="${consideration}" ` +
              `requiredForNotSatisfied="${consideration}" requiredForCompleted="${consideration}" ` +
              `requiredForIncomplete="${consideration}"/>`,
          ),
        ),
    );
  const notLaunched = null;
  const suspendedB = { suspended: true, ended: false, completion: 'incomplete', satisfied: null } as const;
  const openB = { active: true, ended: false, completion: 'unknown', satisfied: null } as const;
  it.each([
    ['always', notLaunched, false],
    ['always', suspendedB, false],
    ['ifNotSkipped', notLaunched, true],
    ['ifNotSkipped', { completion: 'incomplete', satisfied: null }, false],
    ['ifAttempted', notLaunched, true],
    ['ifAttempted', suspendedB, false],
    ['ifNotSuspended', notLaunched, true],
    ['ifNotSuspended', suspendedB, true],
    // Attempted, not suspended, its progress unknown: it counts (Activity Progress Status is its attempt).
    ['ifNotSuspended', openB, false],
  ] as const)('%s with b %o: the module is satisfied: %s', (consideration, b, satisfied) => {
    const scos: Record<string, Partial<ActivityStatus>> = { a: {} };
    const sequencer = new Sequencer(considered(consideration), {
      ...state(scos),
      scos: new Map([['a', done()], ...(b ? [['b', done(b as Partial<ActivityStatus>)] as const] : [])]),
    });
    expect(sequencer.rollup.satisfied).toBe(satisfied);
  });

  /** The organization satisfied by measure at 0.5, measureSatisfactionIfActive as given. */
  const byMeasure = (ifActive: string) =>
    structure(
      sco('a') + sco('b'),
      seq(
        FLOW +
          '<imsss:objectives><imsss:primaryObjective satisfiedByMeasure="true">' +
          '<imsss:minNormalizedMeasure>0.5</imsss:minNormalizedMeasure></imsss:primaryObjective></imsss:objectives>' +
          (ifActive ? `<adlseq:rollupConsiderations measureSatisfactionIfActive="${ifActive}"/>` : ''),
      ),
    );
  it.each([
    ['', openB, true],
    ['false', openB, null],
    ['false', suspendedB, null],
    ['false', {}, true],
  ] as const)('measureSatisfactionIfActive="%s", b %o: the root satisfied is %s', (ifActive, b, satisfied) => {
    const sequencer = new Sequencer(byMeasure(ifActive), state({ a: { measure: 0.8 }, b: { ...b, measure: 0.8 } }));
    expect(sequencer.rollup.root).toMatchObject({ measure: 0.8, satisfied });
  });
});

describe('after a Terminate: exit and post-condition rules', () => {
  const failedRetry = rule('postConditionRule', 'retry', when('satisfied', 'not'));
  // root (flow) > [intro, unit (flow; exit when completed, retry when not satisfied) > [lesson, quiz], outro]
  const unit = cluster(
    'unit',
    sco('lesson') + sco('quiz'),
    seq(FLOW + rules(rule('exitConditionRule', 'exit', when('completed')), failedRetry)),
  );
  const tree = structure(sco('intro') + unit + sco('outro'));
  const decide = (scos: Record<string, Partial<ActivityStatus>>, from: string, request = 'continue') =>
    new Sequencer(tree, state(scos)).afterTerminate(from, parseNavigationRequest(request)!);

  it('a failed cluster is left by its exit rule and retried from its start', () => {
    expect(decide({ intro: {}, lesson: {}, quiz: { satisfied: false } }, 'quiz')).toEqual({
      deliver: 'lesson',
      end: false,
      retry: ['unit'],
      message: null,
    });
  });

  it('a passed cluster flows on; continue past the last activity ends the session', () => {
    // The exit rule ended the unit's attempt: a later launch in it enters it anew.
    expect(decide({ intro: {}, lesson: {}, quiz: {} }, 'quiz')).toMatchObject({
      deliver: 'outro',
      retry: [],
      left: 'unit',
    });
    expect(decide({ intro: {}, lesson: {}, quiz: {}, outro: {} }, 'outro')).toMatchObject({ deliver: null, end: true });
    // The exit rule does not fire while the unit is incomplete: plain flow.
    expect(decide({ intro: {}, lesson: {} }, 'lesson')).toEqual({
      deliver: 'quiz',
      end: false,
      retry: [],
      message: null,
    });
  });

  it.each([
    ['retry', { deliver: 'b', retry: ['b'] }],
    ['retryAll', { deliver: 'a', retry: ['ORG'] }],
    ['exitAll', { deliver: null, end: true }],
    ['previous', { deliver: 'a' }],
    ['exitParent', { deliver: null, end: true }],
  ] as const)('a SCO post-condition %s decides over the learner continue', (action, expected) => {
    const own = structure(
      sco('a') + sco('b', seq(rules(rule('postConditionRule', action, when('always'))))) + sco('c'),
    );
    expect(new Sequencer(own, state({ a: {}, b: {} })).afterTerminate('b', { kind: 'continue' })).toMatchObject(
      expected,
    );
  });

  it('a suspended SCO does not apply its post-condition rules; suspend all ends the session', () => {
    const own = structure(sco('a', seq(rules(rule('postConditionRule', 'retry', when('always'))))) + sco('b'));
    const suspended = new Sequencer(own, state({ a: { suspended: true, ended: false } }));
    expect(suspended.afterTerminate('a', { kind: 'continue' })).toMatchObject({ deliver: 'b', retry: [] });
    expect(suspended.afterTerminate('a', { kind: 'suspendAll' })).toMatchObject({ deliver: null, end: true });
  });

  it('a choice after a Terminate is checked like any choice', () => {
    const hidden = structure(sco('a') + sco('b', seq(rules(rule('preConditionRule', 'disabled', when('always'))))));
    const sequencer = new Sequencer(hidden, state({ a: {} }));
    expect(sequencer.afterTerminate('a', parseNavigationRequest('{target=b}choice')!).message).toMatch(/disabled/);
    expect(sequencer.afterTerminate('b', parseNavigationRequest('{target=a}choice')!).deliver).toBe('a');
    expect(parseNavigationRequest('_none_')).toBeNull();
  });
});

describe('the Termination Request Process (TB.2.3) up to the root', () => {
  const retryWhenFailed = rule('postConditionRule', 'retry', when('satisfied', 'not'));
  const exitParent = seq(rules(rule('postConditionRule', 'exitParent', when('always'))));

  it.each([
    // exitParent reaches the root: its post-condition rules apply; retry starts the module over.
    [
      'the root retries when not satisfied',
      { a: { satisfied: false }, b: {}, c: {} },
      { deliver: 'a', retry: ['ORG'] },
    ],
    // The root satisfied: no retry, and the root's attempt ended: the session ends.
    ['the root ends when satisfied', { a: {}, b: {} }, { deliver: null, end: true, retry: [] }],
  ] as const)('exitParent from a top-level SCO: %s', (_, scos, expected) => {
    const tree = structure(sco('a') + sco('b', exitParent) + sco('c'), seq(FLOW + rules(retryWhenFailed)));
    expect(new Sequencer(tree, state(scos)).afterTerminate('b', { kind: 'continue' })).toMatchObject(expected);
  });

  it("the root's exit rule ends the session whatever the learner asked", () => {
    const tree = structure(
      sco('a') + sco('b'),
      seq(FLOW + rules(rule('exitConditionRule', 'exit', when('completed')))),
    );
    const all = new Sequencer(tree, state({ a: {}, b: {} }));
    expect(all.afterTerminate('b', { kind: 'previous' })).toMatchObject({ deliver: null, end: true });
    // Not completed yet: the request goes on.
    const half = new Sequencer(tree, state({ a: {}, b: { completion: 'incomplete' } }));
    expect(half.afterTerminate('b', { kind: 'previous' })).toMatchObject({ deliver: 'a', end: false });
  });

  it('a cluster out of attempts still delivers its SCOs while the learner is inside it', () => {
    // root (flow, choice) > [unit (attemptLimit 1) > [a, b], c]
    const tree = structure(
      cluster('unit', sco('a') + sco('b'), seq(`${FLOW}<imsss:limitConditions attemptLimit="1"/>`)) + sco('c'),
    );
    const sequencer = new Sequencer(tree, state({ a: {} }, { attempts: { unit: 1, a: 1 } }));
    expect(sequencer.afterTerminate('a', parseNavigationRequest('{target=b}choice')!)).toMatchObject({ deliver: 'b' });
    expect(sequencer.deliveryRefusal('b', 'a')).toBeNull();
    // From outside the unit, or with nothing to come from, the unit's attempt has ended: refused.
    expect(sequencer.deliveryRefusal('b')).toMatch(/"unit" has reached its limit of attempts/);
    expect(sequencer.choosable('c')).toEqual(['c']);
  });
});

describe('cluster attempts (DB.2)', () => {
  // root > [unit > [a, b], c]
  const tree = structure(cluster('unit', sco('a') + sco('b')) + sco('c'));
  it.each([
    ['the first launch enters the root and the unit', {}, {}, null, ['unit', 'ORG']],
    ['b after a: the unit goes on', { a: {} }, { ORG: 1, unit: 1, a: 1 }, 'a', []],
    ['a after c: the unit is entered anew', { a: {}, c: {} }, { ORG: 1, unit: 1, a: 1, c: 1 }, 'c', ['unit']],
    [
      'a after c with b suspended: the unit resumes',
      { b: { suspended: true, ended: false }, c: {} },
      { ORG: 1, unit: 1, b: 1, c: 1 },
      'c',
      [],
    ],
    ['nothing known of the last launch: only clusters never attempted', { a: {} }, { ORG: 1, unit: 1 }, null, []],
  ] as const)('%s', (_, scos, attempts, from, entered) => {
    const target = from === 'a' ? 'b' : 'a';
    expect(new Sequencer(tree, state({ ...scos }, { attempts: { ...attempts } })).enteredAnew(target, from)).toEqual(
      entered,
    );
  });
});

describe('constrained choice', () => {
  const constrained = (attributes: string) => seq(`<adlseq:constrainedChoiceConsiderations ${attributes}/>`);

  it('constrainChoice: only the activity and its flow neighbours may be chosen', () => {
    const tree = structure(sco('a') + sco('b', constrained('constrainChoice="true"')) + sco('c') + sco('d'));
    expect(new Sequencer(tree, state({})).choosable('b')).toEqual(['a', 'b', 'c']);
    expect(new Sequencer(tree, state({})).choosable('d')).toEqual(['a', 'b', 'c', 'd']);
  });

  it('constrainChoice on the last of a cluster: flow climbs to the next cluster (SB.2.9.2)', () => {
    // root > [m1 > [a, b (constrained)], m2 > [c], d]
    const tree = structure(
      cluster('m1', sco('a') + sco('b', constrained('constrainChoice="true"'))) + cluster('m2', sco('c')) + sco('d'),
    );
    expect(new Sequencer(tree, state({})).choosable('b')).toEqual(['a', 'b', 'c']);
  });

  it('preventActivation: a cluster is not started by choice from outside it', () => {
    const tree = structure(sco('a') + cluster('unit', sco('u1') + sco('u2'), constrained('preventActivation="true"')));
    expect(new Sequencer(tree, state({})).choosable('a')).toEqual(['a']);
    expect(new Sequencer(tree, state({})).choosable('u1')).toEqual(['a', 'u1', 'u2']);
  });
});

describe('randomization', () => {
  const pool = (timing: string) =>
    structure(
      cluster(
        'pool',
        sco('q1') + sco('q2') + sco('q3') + sco('q4') + sco('q5'),
        seq(
          `${FLOW}<imsss:randomizationControls selectCount="2" reorderChildren="true" ` +
            `selectionTiming="${timing}" randomizationTiming="${timing}"/>`,
        ),
      ),
    );
  const order = (timing: string, attempt: string) =>
    tableOfContents(arrangeStructure(pool(timing), { attempt, learner: 'learner-1' })).map((item) => item.identifier);

  it('selects selectCount children, the same for the same attempt, drawn again for another', () => {
    expect(order('onEachNewAttempt', 'a1')).toEqual(order('onEachNewAttempt', 'a1'));
    expect(order('onEachNewAttempt', 'a1')).toHaveLength(3);
    const draws = new Set(
      ['a1', 'a2', 'a3', 'a4', 'a5', 'a6'].map((attempt) => order('onEachNewAttempt', attempt).join()),
    );
    expect(draws.size).toBeGreaterThan(1);
    // 'once': the learner's draw, whatever the attempt; 'never': the manifest's order.
    expect(order('once', 'a1')).toEqual(order('once', 'a2'));
    expect(order('never', 'a1')).toEqual(['pool', 'q1', 'q2', 'q3', 'q4', 'q5']);
  });
});

describe('the CMI objectives a SCO reports', () => {
  it('reads cmi.objectives.n by id', () => {
    expect(
      cmiObjectives({
        'cmi.objectives.0.id': 'x',
        'cmi.objectives.0.success_status': 'passed',
        'cmi.objectives.0.score.scaled': '0.5',
        'cmi.objectives.1.id': 'y',
      }),
    ).toEqual(
      new Map([
        ['x', { satisfied: true, measure: 0.5 }],
        ['y', { satisfied: null, measure: null }],
      ]),
    );
  });
});
