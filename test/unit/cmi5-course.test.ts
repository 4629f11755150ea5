import { describe, expect, it } from 'vitest';
import { parseCmi5Course } from '../../shared/domain/xapi/cmi5-course.ts';
import { ausOfBlock, blocksAround } from '../../shared/domain/xapi/cmi5-structure.ts';
import { parseManifest } from '../../shared/domain/module-package.ts';
import {
  auSatisfied,
  CMI5_CATEGORY,
  checkAuStatements,
  Cmi5RuleBroken,
  MOVEON_CATEGORY,
  SESSION_EXTENSION,
  satisfiedParts,
} from '../../shared/domain/xapi/cmi5-rules.ts';
import type { JsonObject } from '../../shared/domain/xapi/statement-rules.ts';

const title = (text: string) => `<title><langstring lang="en-US">${text}</langstring></title>`;
const structure = (body: string, courseId = 'https://example.com/c') =>
  `<?xml version="1.0"?><courseStructure xmlns="https://w3id.org/xapi/profiles/cmi5/v1/CourseStructure.xsd">` +
  `<course id="${courseId}">${title('Course')}<description><langstring>About</langstring></description></course>` +
  `${body}</courseStructure>`;
const au = (id: string, attrs = '', url = 'au/index.html') =>
  `<au id="${id}" ${attrs}>${title(id)}<url>${url}</url></au>`;

describe('cmi5 course structure', () => {
  it('keeps blocks and every AU in document order with their launch values', () => {
    const course = parseCmi5Course(
      structure(
        `${au(
          'https://example.com/a1',
          'moveOn="Passed" masteryScore="0.8" launchMethod="OwnWindow" ' +
            'activityType="https://example.com/types/sim"',
        )}` +
          `<block id="https://example.com/b1">${title('Block')}` +
          `<au id="https://example.com/a2"><title><langstring>Two</langstring></title>` +
          `<url>https://au.example.com/two?x=1</url><launchParameters>{"p":1}</launchParameters>` +
          `<entitlementKey>ek-2</entitlementKey></au>` +
          `<block id="https://example.com/b2">${title('Inner')}${au('https://example.com/a3')}</block></block>`,
      ),
    );
    expect(course.course_id).toBe('https://example.com/c');
    expect(course.title).toBe('Course');
    expect(course.blocks.map((b) => [b.id, b.parent])).toEqual([
      ['https://example.com/b1', null],
      ['https://example.com/b2', 'https://example.com/b1'],
    ]);
    expect(course.aus.map((a) => a.id)).toEqual([
      'https://example.com/a1',
      'https://example.com/a2',
      'https://example.com/a3',
    ]);
    expect(course.aus[0]).toMatchObject({
      move_on: 'Passed',
      mastery_score: 0.8,
      launch_method: 'OwnWindow',
      activity_type: 'https://example.com/types/sim',
      parent: null,
    });
    expect(course.aus[1]).toMatchObject({
      move_on: 'NotApplicable',
      launch_method: 'AnyWindow',
      url: 'https://au.example.com/two?x=1',
      launch_parameters: '{"p":1}',
      entitlement_key: 'ek-2',
      parent: 'https://example.com/b1',
    });
    expect(ausOfBlock(course, 'https://example.com/b1').map((a) => a.id)).toEqual([
      'https://example.com/a2',
      'https://example.com/a3',
    ]);
    expect(blocksAround(course, course.aus[2]!).map((b) => b.id)).toEqual([
      'https://example.com/b2',
      'https://example.com/b1',
    ]);
    const facts = parseManifest('cmi5', structure(au('https://example.com/a1')));
    expect(facts).toMatchObject({ standard: 'cmi5', identifier: 'https://example.com/c', launch: 'au/index.html' });
    expect(facts.cmi5?.aus).toHaveLength(1);
  });

  it.each([
    ['a duplicate id', structure(au('https://example.com/a') + au('https://example.com/a')), /used twice/],
    ['an AU id reusing the course id', structure(au('https://example.com/c')), /used twice/],
    ['an id that is not an IRI', structure(au('not an iri')), /is not an IRI/],
    ['a course id that is not an IRI', structure(au('https://example.com/a'), 'course-1'), /is not an IRI/],
    ['an AU URL with another scheme', structure(au('https://example.com/a', '', 'ftp://x.example.com/a')), /http\(s\)/],
    ['an AU URL leaving the package', structure(au('https://example.com/a', '', '../x.html')), /inside the package/],
    ['an AU URL that is not a URL', structure(au('https://example.com/a', '', 'http://')), /not a valid URL|http\(s\)/],
    ['an AU without <url>', structure(`<au id="https://example.com/a">${title('A')}</au>`), /has no <url>/],
    ['an AU without <title>', structure('<au id="https://example.com/a"><url>a.html</url></au>'), /has no <title>/],
    ['a wrong moveOn', structure(au('https://example.com/a', 'moveOn="Done"')), /moveOn="Done"/],
    ['a masteryScore above 1', structure(au('https://example.com/a', 'masteryScore="1.5"')), /masteryScore/],
    ['a masteryScore that is no number', structure(au('https://example.com/a', 'masteryScore="x"')), /masteryScore/],
    ['a wrong launchMethod', structure(au('https://example.com/a', 'launchMethod="Popup"')), /launchMethod/],
    [
      'an empty block',
      structure(`<block id="https://example.com/b">${title('B')}</block>${au('https://example.com/a')}`),
      /holds no <au>/,
    ],
    ['no AU at all', structure(''), /has no <au>/],
    [
      'two courses',
      structure(au('https://example.com/a')).replace('</course>', '</course><course id="https://e.com/2"/>'),
      /exactly one <course>/,
    ],
    ['another root', '<manifest/>', /<courseStructure>/],
  ])('refuses %s', (_name, xml, message) => {
    expect(() => parseCmi5Course(xml)).toThrow(message);
  });
});

describe('cmi5 AU rules and moveOn', () => {
  const course = parseCmi5Course(
    structure(
      `<block id="https://example.com/b">${title('B')}` +
        `${au('https://example.com/a1', 'moveOn="CompletedAndPassed" masteryScore="0.5"')}</block>` +
        au('https://example.com/a2', 'moveOn="NotApplicable"'),
    ),
  );
  const unit = course.aus[0]!;
  const actor = { objectType: 'Agent', account: { homePage: 'https://site.example.com', name: '7' } };
  const registration = '0f8fad5b-d9cb-469f-a165-70867728950e';
  const facts = { sessionId: 's-1', registration, actor, au: unit };
  const open = {
    state: 'initialized' as const,
    launchMode: 'Normal' as const,
    completed: false,
    passed: false,
    failed: false,
  };
  const statement = (verb: string, result?: JsonObject, moveOn = true): JsonObject => ({
    actor,
    verb: { id: `http://adlnet.gov/expapi/verbs/${verb}` },
    object: { id: unit.id },
    context: {
      registration,
      contextActivities: {
        category: [{ id: CMI5_CATEGORY }, ...(moveOn ? [{ id: MOVEON_CATEGORY }] : [])],
      },
      extensions: { [SESSION_EXTENSION]: 's-1' },
    },
    ...(result ? { result } : {}),
  });

  it('moves the session and judges in order; refuses what the rules forbid', () => {
    const after = checkAuStatements(facts, open, [
      statement('failed', { success: false, score: { scaled: 0.2 } }),
      statement('passed', { success: true, score: { scaled: 0.7 } }),
      statement('terminated', undefined, false),
    ]);
    expect(after).toMatchObject({ state: 'terminated', passed: true, failed: true, completed: false });
    const passed = { ...open, passed: true };
    expect(() =>
      checkAuStatements(facts, passed, [statement('failed', { success: false, score: { scaled: 0.1 } })]),
    ).toThrow(Cmi5RuleBroken);
    expect(() =>
      checkAuStatements(facts, open, [statement('failed', { success: false, score: { scaled: 0.6 } })]),
    ).toThrow(/below the mastery score/);
    expect(() => checkAuStatements(facts, open, [statement('completed', { completion: false })])).toThrow(
      /completion must be true/,
    );
    expect(() =>
      checkAuStatements(facts, { ...open, state: 'launched' }, [statement('terminated', undefined, false)]),
    ).toThrow(/must be initialized/);
  });

  it('judges moveOn: both for CompletedAndPassed; NotApplicable always; a waived AU is met', () => {
    const none = { completed: false, passed: false, waived: false };
    expect(auSatisfied(unit, { ...none, completed: true })).toBe(false);
    expect(auSatisfied(unit, { ...none, completed: true, passed: true })).toBe(true);
    expect(auSatisfied(unit, { ...none, waived: true })).toBe(true);
    expect(auSatisfied(course.aus[1]!, none)).toBe(true);
    const parts = satisfiedParts(course, (a) => a.id !== unit.id);
    expect(parts).toEqual({ blocks: [], course: false });
    expect(satisfiedParts(course, () => true)).toEqual({ blocks: ['https://example.com/b'], course: true });
  });
});
