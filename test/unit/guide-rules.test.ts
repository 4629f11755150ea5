import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  BULLETS,
  checkLines,
  defaultGuideTitle,
  timeRequiredText,
  canonicalGuideType,
} from '../../shared/domain/guide-rules.ts';
import { nextVersion } from '../../shared/db/entities/release.ts';
import { ValidationError } from '../../shared/domain/errors.ts';

describe('checkLines', () => {
  const line = fc.record({
    text: fc.string(),
    level: fc.integer({ min: -1, max: 4 }),
    bullet: fc.constantFrom(...BULLETS),
  });

  it('accepts exactly the indentations that start at 0, deepen by at most one and stay within 0..2', () => {
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 8 }), (lines) => {
        const valid = lines.every(
          (entry, index) =>
            entry.level >= 0 && entry.level <= 2 && entry.level <= (index === 0 ? 0 : lines[index - 1].level + 1),
        );
        let accepted = true;
        try {
          checkLines(lines);
        } catch (error) {
          expect(error).toBeInstanceOf(ValidationError);
          expect((error as Error).message).toBe('Invalid line indentation');
          accepted = false;
        }
        expect(accepted).toBe(valid);
      }),
    );
  });

  it('needs a known bullet or bullet_styleid (1-based) and 1–8 lines', () => {
    expect(
      checkLines([
        { text: 'a', level: 0, bullet_styleid: 1 },
        { text: 'b', level: 1, bullet_styleid: 11 },
      ]),
    ).toEqual(['black', 'icon_reminder']);
    expect(() => checkLines([{ text: 'a', level: 0 }])).toThrow('bullet or bullet_styleid is required');
    expect(() => checkLines([{ text: 'a', level: 0, bullet_styleid: 12 }])).toThrow(ValidationError);
    expect(() => checkLines([])).toThrow(ValidationError);
    expect(() => checkLines(Array.from({ length: 9 }, () => ({ text: 'a', level: 0, bullet: 'black' })))).toThrow(
      ValidationError,
    );
  });
});

describe('timeRequiredText', () => {
  it.each([
    [0, 0, 'No estimate'],
    [1800, 1800, '30 minutes'],
    [60, 60, '1 minute'],
    [0, 3600, '1 hour'],
    [3600, 7200, '1 - 2 hours'],
    [2700, 7200, '45 minutes - 2 hours'],
    [86400, 172800, '1 - 2 days'],
  ])('%i..%i seconds → %s', (min, max, text) => {
    expect(timeRequiredText(min, max)).toBe(text);
  });
});

describe('release versions', () => {
  it('a major release moves MAJOR on and resets MINOR; a minor one moves MINOR; versions only grow', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('major' as const, 'minor' as const), { minLength: 1, maxLength: 30 }),
        (types) => {
          let head = { major: 0, minor: 0 };
          for (const type of types) {
            const next = nextVersion(head, type);
            if (type === 'major')
              expect(next).toEqual({ major: head.major + 1, minor: 0, version: `${head.major + 1}.0` });
            else
              expect(next).toEqual({
                major: head.major,
                minor: head.minor + 1,
                version: `${head.major}.${head.minor + 1}`,
              });
            expect(next.major > head.major || next.minor > head.minor).toBe(true);
            head = next;
          }
        },
      ),
    );
  });
});

it('guide types and default titles', () => {
  expect(() => canonicalGuideType('technique', ['how-to'])).toThrow(
    'Invalid guide type. Got technique Was expecting one of: how-to.',
  );
  expect(canonicalGuideType('repair', ['how-to', 'repair'])).toBe('repair');
  // The apps send the type as they show it: any letter case is the site's spelling.
  expect(canonicalGuideType('How-to', ['how-to', 'repair'])).toBe('how-to');
  expect(canonicalGuideType('REPAIR', ['how-to', 'repair'])).toBe('repair');
  expect(defaultGuideTitle('how-to', 'Printer', 'Nozzle')).toBe('Printer Nozzle How-To');
  expect(defaultGuideTitle('repair', 'Printer', '')).toBe('Printer Repair');
});
