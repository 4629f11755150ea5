import { describe, expect, it } from 'vitest';
import { PackageRejection, parseManifest } from '../../shared/domain/module-package.ts';
import { isPackagePath } from '../../shared/domain/scorm-manifest.ts';
import { launchedPaths, scormStructureSchema, tableOfContents } from '../../shared/domain/scorm-structure.ts';
import { normalizedPackagePath } from '../../shared/domain/package-paths.ts';
import { scorm12Manifest } from '../support/module-packages.ts';
import { scorm12MultiManifest, scorm2004Fourth, scorm2004Third } from '../support/scorm-packages.ts';

function rejection(action: () => unknown): PackageRejection {
  try {
    action();
  } catch (error) {
    if (error instanceof PackageRejection) return error;
    throw error;
  }
  throw new Error('expected a PackageRejection');
}

describe('SCORM 1.2 structure', () => {
  const facts = parseManifest('scorm', scorm12MultiManifest('Golf'));

  it('keeps every item in order with its parent, resource, base-joined href and parameters', () => {
    expect(facts.launch).toBe('sco/intro.html');
    const items = facts.scorm!.items.map((item) => [item.identifier, item.parent, item.depth, item.launch]);
    expect(items).toEqual([
      ['intro', null, 0, 'sco/intro.html'],
      ['part2', null, 0, null],
      ['rules', 'part2', 1, 'sco/rules.html?x=1&chapter=2'],
      ['quiz', 'part2', 1, 'sco/quiz.html'],
    ]);
    expect(facts.scorm!.items[3]).toMatchObject({ scorm_type: 'asset', isvisible: false });
    expect(launchedPaths(facts.scorm!)).toEqual(['sco/intro.html', 'sco/rules.html?x=1', 'sco/quiz.html']);
  });

  it('keeps masteryscore, maxtimeallowed, timelimitaction and datafromlms', () => {
    expect(facts.scorm!.items[0]).toMatchObject({
      mastery_score: 80,
      max_time_allowed: '00:30:00',
      time_limit_action: 'exit,message',
      data_from_lms: 'level=beginner',
      sequencing: null,
    });
    expect(facts.scorm!.edition).toBe('1.2');
  });

  it('is what the stored schema accepts', () => {
    expect(scormStructureSchema.parse(facts.scorm)).toEqual(facts.scorm);
  });
});

describe('SCORM 2004 structure', () => {
  it('3rd edition: the completion threshold as a value, the scaled passing score from the primary objective', () => {
    const facts = parseManifest('scorm', scorm2004Third('T'));
    expect(facts.scorm!.edition).toBe('2004 3rd Edition');
    expect(facts.scorm!.items[0]).toMatchObject({
      completion_threshold: { completed_by_measure: true, min_progress_measure: 0.75, progress_weight: 1 },
      scaled_passing_score: 0.6,
      max_time_allowed: 'PT1H',
      time_limit_action: 'continue,message',
      data_from_lms: 'mode=third',
      mastery_score: null,
    });
  });

  it('4th edition: sequencing with the collection merged, objectives and map info, rules, rollup', () => {
    const facts = parseManifest('scorm', scorm2004Fourth('F'));
    const structure = facts.scorm!;
    expect(structure.edition).toBe('2004 4th Edition');
    expect(structure.organizations[0]).toMatchObject({ objectives_global_to_system: false });
    const org = structure.organizations[0]!.sequencing!;
    expect(org.control_mode).toMatchObject({ choice: true, flow: true, choice_exit: false, forward_only: false });
    expect(org.rollup_rules).toMatchObject({
      objective_measure_weight: 0.5,
      rules: [{ child_activity_set: 'atLeastCount', minimum_count: 1, action: 'satisfied' }],
    });
    const [lesson1, lesson2] = structure.items;
    expect(lesson1!.completion_threshold).toEqual({
      completed_by_measure: true,
      min_progress_measure: 0.8,
      progress_weight: 2,
    });
    expect(lesson1!.scaled_passing_score).toBe(0.7);
    expect(lesson1!.sequencing).toMatchObject({
      delivery_controls: { completion_set_by_content: true, objective_set_by_content: true, tracked: true },
      limit_conditions: { attempt_limit: 3 },
      objectives: [
        { objective_id: 'lesson1.done', primary: true, map_info: [{ target_objective_id: 'g.lesson1' }] },
        { objective_id: 'extra', primary: false, min_normalized_measure: 1 },
      ],
    });
    expect(lesson2!.sequencing!.pre_condition_rules).toEqual([
      {
        condition_combination: 'any',
        conditions: [
          { condition: 'satisfied', operator: 'not', referenced_objective: 'prior', measure_threshold: null },
        ],
        action: 'disabled',
      },
    ]);
    expect(lesson2!.scaled_passing_score).toBeNull();
    expect(tableOfContents(structure).map((item) => item.identifier)).toEqual(['lesson1', 'lesson2']);
    expect(scormStructureSchema.parse(structure)).toEqual(structure);
  });

  it('reads 2nd edition (CAM 1.3)', () => {
    const xml = scorm2004Third('S').replace('2004 3rd Edition', 'CAM 1.3');
    expect(parseManifest('scorm', xml).scorm!.edition).toBe('2004 2nd Edition');
  });
});

describe('refusals', () => {
  it('a resource href that leaves the package is unsafe_path', () => {
    for (const href of ['../escape.html', 'a/../../x.html', '/etc/passwd', 'https://evil.example/x.html']) {
      const xml = scorm12Manifest('X').replace(/href="index.html"/, `href="${href}"`);
      expect(rejection(() => parseManifest('scorm', xml)).code).toBe('unsafe_path');
    }
    const viaBase = scorm12MultiManifest('X').replace('xml:base="sco/"', 'xml:base="../"');
    expect(rejection(() => parseManifest('scorm', viaBase)).code).toBe('unsafe_path');
  });

  it('an item naming a missing resource is launch_missing; an unknown version unsupported_version', () => {
    const missing = scorm12MultiManifest('X').replace('identifierref="res-quiz"', 'identifierref="nope"');
    expect(rejection(() => parseManifest('scorm', missing)).code).toBe('launch_missing');
    const old = scorm2004Third('X').replace('2004 3rd Edition', '2004 5th Edition');
    expect(rejection(() => parseManifest('scorm', old)).code).toBe('unsupported_version');
    const badRef = scorm2004Fourth('X').replace('IDRef="common"', 'IDRef="absent"');
    expect(rejection(() => parseManifest('scorm', badRef)).code).toBe('manifest_invalid');
    const badMastery = scorm12MultiManifest('X').replace('>80<', '>180<');
    expect(rejection(() => parseManifest('scorm', badMastery)).code).toBe('manifest_invalid');
  });

  it('package paths', () => {
    expect(isPackagePath('a/./b/../c.html')).toBe(true);
    expect(normalizedPackagePath('a/./b/../c.html')).toBe('a/c.html');
    expect(isPackagePath('a/../../c.html')).toBe(false);
    expect(isPackagePath('javascript:alert(1)')).toBe(false);
  });
});
