import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  currentDecisionsIndex,
  DECISIONS_INDEX,
  parseRecord,
  readRecords,
  UNUSED_NUMBERS,
} from '../../infra/checks/decisions-index.ts';

describe('decision records (docs/decisions/)', () => {
  it('has a current index: run `npm run decisions:index` after adding or changing a record', () => {
    expect(readFileSync(DECISIONS_INDEX, 'utf8')).toBe(currentDecisionsIndex());
  });

  it('numbers every record once, from 1 up, leaving out only the numbers listed as unused', () => {
    const numbers = readRecords().map((record) => record.number);
    const highest = Math.max(...numbers);
    const expected = Array.from({ length: highest }, (_, index) => index + 1).filter(
      (number) => !(number in UNUSED_NUMBERS),
    );
    expect(numbers).toEqual(expected);
  });

  it('names the record a superseded decision gave way to, and that record exists', () => {
    const records = readRecords();
    for (const record of records.filter((candidate) => candidate.status.startsWith('Superseded'))) {
      const successor = /\]\((\d{3}-[a-z0-9-]+\.md)\)/.exec(record.status)?.[1];
      expect(
        records.map((candidate) => candidate.file),
        `${record.number}`,
      ).toContain(successor);
    }
  });

  it('refuses a record whose heading does not match its file or lacks its status', () => {
    expect(() => parseRecord('012-badges.md', '# 13. Badges\n\n- Status: Accepted\n- Area: Accounts\n')).toThrow(
      /a record starts/,
    );
    expect(() => parseRecord('012-badges.md', '# 12. Badges\n\n- Area: Accounts\n')).toThrow(/a record starts/);
    expect(parseRecord('012-badges.md', '# 12. Badges\n\n- Status: Accepted\n- Area: Accounts\n')).toMatchObject({
      number: 12,
      title: 'Badges',
    });
  });
});
