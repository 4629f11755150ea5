/**
 * SCORM imports keep what a player needs (decision 269): every SCO with its launch and the
 * manifest's runtime values; a package whose later SCO is missing or leaves the package fails.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, loginAdmin } from '../support/api.ts';
import { importPackage } from '../support/modules.ts';
import { scorm12MultiManifest, scorm12MultiPackage, scorm2004FourthPackage } from '../support/scorm-packages.ts';
import { zip } from '../support/module-packages.ts';

let admin: string;

beforeAll(async () => {
  admin = await loginAdmin();
});

describe('SCORM imports keep the SCO list', () => {
  it('a multi-SCO 1.2 package: preview lists every item with its launch and manifest values', async () => {
    const { importid, result } = await importPackage(admin, await scorm12MultiPackage('Golf Explained'));
    expect(result.status).toBe('complete');
    const preview = await api('GET', `/external_training_modules/imports/${importid}/preview`, { token: admin });
    expect(preview.status).toBe(200);
    expect(preview.body.scorm_edition).toBe('1.2');
    expect(
      preview.body.scos.map((sco: { identifier: string; launch: string | null }) => [sco.identifier, sco.launch]),
    ).toEqual([
      ['intro', 'sco/intro.html'],
      ['part2', null],
      ['rules', 'sco/rules.html?x=1&chapter=2'],
      ['quiz', 'sco/quiz.html'],
    ]);
    expect(preview.body.scos[0]).toMatchObject({
      mastery_score: 80,
      max_time_allowed: '00:30:00',
      time_limit_action: 'exit,message',
      data_from_lms: 'level=beginner',
    });
  });

  it('a 2004 4th edition package: completion threshold and scaled passing score per SCO', async () => {
    const { importid, result } = await importPackage(admin, await scorm2004FourthPackage());
    expect(result.status).toBe('complete');
    const preview = await api('GET', `/external_training_modules/imports/${importid}/preview`, { token: admin });
    expect(preview.body).toMatchObject({ standard: 'scorm2004', scorm_edition: '2004 4th Edition' });
    expect(preview.body.scos[0]).toMatchObject({ identifier: 'lesson1', completion_threshold: 0.8 });
    expect(preview.body.scos[0].scaled_passing_score).toBe(0.7);
  });

  it.each([
    [
      'a later SCO whose file is missing',
      () => zip({ 'imsmanifest.xml': scorm12MultiManifest('Gap'), 'sco/intro.html': 'a', 'sco/quiz.html': 'c' }),
      'launch_missing',
    ],
    [
      'a resource outside the package',
      () =>
        zip({
          'imsmanifest.xml': scorm12MultiManifest('Out').replace('href="quiz.html"', 'href="../../quiz.html"'),
          'sco/intro.html': 'a',
          'sco/rules.html': 'b',
        }),
      'unsafe_path',
    ],
  ])('fails %s with its code', async (_name, build, code) => {
    const { result } = await importPackage(admin, await build());
    expect(result.status).toBe('failed');
    expect(result.error.code).toBe(code);
  });
});
