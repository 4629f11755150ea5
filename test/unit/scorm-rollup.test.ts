/**
 * SCORM 2004 rollup (decision 325), table-tested against the SN book's rollup behaviour (SCORM
 * 2004 4th ed. SN, RB.1.1-RB.1.5): default rules, declared rules with each child set, rollup
 * controls and considerations, measure rollup with weights, satisfied by measure, completed by
 * measure, non-tracked children, a nested cluster. Manifests are read by the real parser.
 */
import { describe, expect, it } from 'vitest';
import { parseScormManifest } from '../../shared/domain/scorm-manifest.ts';
import type { ScormStructure } from '../../shared/domain/scorm-structure.ts';
import { type ActivityStatus, rollupTree, UNKNOWN_STATUS } from '../../shared/domain/scorm-rollup.ts';

/** A 4th edition manifest: `organization` holds the organization's own sequencing, `body` its items. */
function structure(body: string, organization = ''): ScormStructure {
  const ids = [...body.matchAll(/identifierref="([^"]+)"/g)].map((match) => match[1]!);
  const xml = `<?xml version="1.0"?>
<manifest identifier="m" xmlns="http://www.imsglobal.org/xsd/imscp_v1p1"
  xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_v1p3"
  xmlns:imsss="http://www.imsglobal.org/xsd/imsss">
  <metadata><schema>ADL SCORM</schema><schemaversion>2004 4th Edition</schemaversion></metadata>
  <organizations default="ORG"><organization identifier="ORG"><title>T</title>${body}
    ${organization ? `<imsss:sequencing>${organization}</imsss:sequencing>` : ''}</organization></organizations>
  <resources>${ids
    .map((id) => `<resource identifier="${id}" type="webcontent" adlcp:scormType="sco" href="${id}.html"/>`)
    .join('')}</resources>
</manifest>`;
  return parseScormManifest(xml).scorm!;
}

const sco = (id: string, extra = '') =>
  `<item identifier="${id}" identifierref="R-${id}"><title>${id}</title>${extra}</item>`;

const done = (patch: Partial<ActivityStatus> = {}): ActivityStatus => ({
  attempted: true,
  suspended: false,
  ended: true,
  completion: 'completed',
  satisfied: true,
  measure: null,
  progress: null,
  ...patch,
});

const states = (entries: Record<string, Partial<ActivityStatus> | null>) =>
  new Map(Object.entries(entries).map(([id, patch]) => [id, patch === null ? UNKNOWN_STATUS : done(patch)]));

describe('SCORM 2004 rollup (SN RB.1.x)', () => {
  const two = structure(sco('a') + sco('b'));

  it.each([
    ['both completed and satisfied', { a: {}, b: {} }, 'completed', true, true],
    ['one never launched: unknown, the module waits', { a: {} }, 'unknown', null, false],
    // UP.4: b's attempt ended without a success status, so it is satisfied; its completion is known.
    [
      'one incomplete: incomplete',
      { a: {}, b: { completion: 'incomplete', satisfied: null } },
      'incomplete',
      true,
      false,
    ],
    [
      'one suspended, nothing reported: all attempted, so incomplete and not satisfied',
      { a: {}, b: { ended: false, completion: 'unknown', satisfied: null } },
      'incomplete',
      false,
      false,
    ],
    ['one failed, both attempted: not satisfied', { a: {}, b: { satisfied: false } }, 'completed', false, false],
    [
      'ended without statuses (UP.4): done',
      { a: { satisfied: null }, b: { completion: 'unknown', satisfied: null } },
      'completed',
      true,
      true,
    ],
  ] as const)('default rules: %s', (_, leaves, completion, satisfied, done) => {
    const result = rollupTree(two, states(leaves));
    expect(result.root).toMatchObject({ completion, satisfied });
    expect(result.satisfied).toBe(done);
  });

  it('declared rules replace the defaults for their action only (any satisfied -> satisfied)', () => {
    const rules = `<imsss:rollupRules><imsss:rollupRule childActivitySet="any">
      <imsss:rollupConditions><imsss:rollupCondition condition="satisfied"/></imsss:rollupConditions>
      <imsss:rollupAction action="satisfied"/></imsss:rollupRule></imsss:rollupRules>`;
    const tree = structure(sco('a') + sco('b'), rules);
    // b failed: the default not-satisfied rule fires, the declared satisfied rule fires after and wins.
    expect(rollupTree(tree, states({ a: {}, b: { satisfied: false } })).root.satisfied).toBe(true);
    // Completion keeps its default rules: b is incomplete.
    expect(rollupTree(tree, states({ a: {}, b: { completion: 'incomplete' } })).root.completion).toBe('incomplete');
  });

  it.each([
    ['none', 'childActivitySet="none"', { a: { satisfied: false }, b: { satisfied: false } }, true],
    ['none with an unknown child', 'childActivitySet="none"', { a: { satisfied: false }, b: null }, false],
    [
      'atLeastCount 2, one attempted',
      'childActivitySet="atLeastCount" minimumCount="2"',
      { a: {}, b: null, c: null },
      false,
    ],
    [
      'atLeastCount 2, two attempted',
      'childActivitySet="atLeastCount" minimumCount="2"',
      { a: {}, b: {}, c: null },
      true,
    ],
    [
      'atLeastPercent 0.5',
      'childActivitySet="atLeastPercent" minimumPercent="0.5"',
      { a: {}, b: null, c: null },
      false,
    ],
  ] as const)('child activity set %s (not satisfied when the rule fires)', (_, set, leaves, fired) => {
    const condition = set.includes('none') ? 'satisfied' : 'attempted';
    const rules = `<imsss:rollupRules><imsss:rollupRule ${set}>
      <imsss:rollupConditions><imsss:rollupCondition condition="${condition}"/></imsss:rollupConditions>
      <imsss:rollupAction action="completed"/></imsss:rollupRule></imsss:rollupRules>`;
    const tree = structure(sco('a') + sco('b') + sco('c'), rules);
    const all = { c: { satisfied: false, completion: 'incomplete' as const }, ...leaves };
    expect(rollupTree(tree, states(all)).root.completion === 'completed').toBe(fired);
  });

  it('atLeastCount fires at the count; `not` of an unknown status stays unknown', () => {
    const rules = `<imsss:rollupRules><imsss:rollupRule childActivitySet="atLeastCount" minimumCount="2">
      <imsss:rollupConditions><imsss:rollupCondition condition="attempted"/></imsss:rollupConditions>
      <imsss:rollupAction action="completed"/></imsss:rollupRule>
      <imsss:rollupRule childActivitySet="any"><imsss:rollupConditions>
      <imsss:rollupCondition operator="not" condition="satisfied"/></imsss:rollupConditions>
      <imsss:rollupAction action="notSatisfied"/></imsss:rollupRule></imsss:rollupRules>`;
    const tree = structure(sco('a') + sco('b') + sco('c'), rules);
    const result = rollupTree(
      tree,
      states({ a: { completion: 'incomplete' }, b: { completion: 'incomplete' }, c: null }),
    );
    expect(result.root.completion).toBe('completed');
    // c is unknown (not of unknown is unknown), a and b satisfied: the declared notSatisfied rule does not fire.
    expect(result.root.satisfied).toBeNull();
    expect(rollupTree(tree, states({ a: { satisfied: false }, b: {}, c: null })).root.satisfied).toBe(false);
  });

  it('rollup controls and considerations decide which children contribute', () => {
    const quiet = `<imsss:sequencing>
      <imsss:rollupRules rollupObjectiveSatisfied="false" rollupProgressCompletion="false"/></imsss:sequencing>`;
    const tree = structure(sco('a') + sco('b', quiet));
    // b neither completed nor satisfied, but it contributes nothing: the root follows a.
    expect(rollupTree(tree, states({ a: {}, b: null }))).toMatchObject({
      root: { completion: 'completed', satisfied: true },
      satisfied: true,
    });
    const ifAttempted = `<imsss:sequencing><imsss:rollupConsiderations requiredForSatisfied="ifAttempted"
      requiredForNotSatisfied="ifAttempted" requiredForCompleted="ifAttempted"
      requiredForIncomplete="ifAttempted"/></imsss:sequencing>`;
    const optional = structure(sco('a') + sco('b', ifAttempted));
    expect(rollupTree(optional, states({ a: {}, b: null })).satisfied).toBe(true);
    expect(rollupTree(optional, states({ a: {}, b: { completion: 'incomplete' } })).satisfied).toBe(false);
    const untracked = `<imsss:sequencing><imsss:deliveryControls tracked="false"/></imsss:sequencing>`;
    expect(rollupTree(structure(sco('a') + sco('b', untracked)), states({ a: {}, b: null })).satisfied).toBe(true);
  });

  it('measure rollup weighs children; the root satisfied by measure passes at its minNormalizedMeasure', () => {
    const weight = (w: number) =>
      `<imsss:sequencing><imsss:rollupRules objectiveMeasureWeight="${w}"/></imsss:sequencing>`;
    const byMeasure = `<imsss:objectives><imsss:primaryObjective satisfiedByMeasure="true">
      <imsss:minNormalizedMeasure>0.6</imsss:minNormalizedMeasure></imsss:primaryObjective></imsss:objectives>`;
    const tree = structure(sco('a', weight(3)) + sco('b', weight(1)), byMeasure);
    const passed = rollupTree(
      tree,
      states({ a: { measure: 0.8, satisfied: null }, b: { measure: 0.2, satisfied: null } }),
    );
    expect(passed.root.measure).toBeCloseTo(0.65);
    expect(passed.root.satisfied).toBe(true);
    expect(passed.satisfied).toBe(true);
    // b has no measure: it counts with 0 (RB.1.1), and 0.6 is still reached.
    expect(rollupTree(tree, states({ a: { measure: 0.8 }, b: {} })).root.measure).toBeCloseTo(0.6);
    const failed = rollupTree(tree, states({ a: { measure: 0.4 }, b: { measure: 0.9 } }));
    expect(failed.root.satisfied).toBe(false);
    expect(failed.satisfied).toBe(false);
    expect(rollupTree(tree, states({ a: { measure: null }, b: { measure: null } })).root).toMatchObject({
      measure: null,
      satisfied: null,
    });
  });

  it('a cluster rolls up first, and a cluster completed by measure uses its children progress', () => {
    const cluster = `<item identifier="unit"><title>Unit</title>${sco('a')}${sco('b')}
      <adlcp:completionThreshold completedByMeasure="true" minProgressMeasure="0.5"/></item>`;
    const tree = structure(cluster + sco('c'));
    const result = rollupTree(
      tree,
      states({ a: { progress: 1, completion: 'incomplete' }, b: { progress: 0.2, completion: 'incomplete' }, c: {} }),
    );
    expect(result.activities.get('unit')).toMatchObject({ completion: 'completed', progress: 0.6 });
    expect(result.root.completion).toBe('completed');
    expect(rollupTree(tree, states({ a: { progress: 0.1 }, b: { progress: 0.2 }, c: {} })).root.completion).toBe(
      'incomplete',
    );
  });

  it('a SCO with a scaled passing score must have been judged (UP.4 does not satisfy it) for the module to be done', () => {
    const passing = `<imsss:sequencing><imsss:objectives><imsss:primaryObjective satisfiedByMeasure="true">
      <imsss:minNormalizedMeasure>0.5</imsss:minNormalizedMeasure></imsss:primaryObjective></imsss:objectives>
      </imsss:sequencing>`;
    const tree = structure(sco('a', passing) + sco('b'));
    expect(rollupTree(tree, states({ a: { satisfied: null }, b: { satisfied: null } })).satisfied).toBe(false);
    expect(rollupTree(tree, states({ a: { satisfied: true }, b: { satisfied: null } })).satisfied).toBe(true);
  });
});
