import { describe, expect, it } from 'vitest';
import { splitByDuration } from '../support/timed-sequencer.ts';

describe('the stack lanes split by recorded time (decision 345)', () => {
  const durations = { 'a.test.ts': 120_000, 'b.test.ts': 60_000, 'c.test.ts': 50_000, 'd.test.ts': 10_000 };

  it('gives every file to exactly one lane', () => {
    const paths = [...Object.keys(durations), 'new.test.ts'];
    const lanes = splitByDuration(paths, durations, 3);
    expect(lanes.flat().sort()).toEqual([...paths].sort());
  });

  it('puts the longest file alone against the others when that balances best', () => {
    const lanes = splitByDuration(Object.keys(durations), durations, 2);
    expect(lanes).toEqual([['a.test.ts'], ['b.test.ts', 'c.test.ts', 'd.test.ts']]);
  });

  it('counts a file without a record as a typical one, not as free', () => {
    // The median of the known times is 50 s: the new file weighs like y and z, so x (100 s) is not left
    // alone with it (as it would be if it counted as nothing).
    const known = { 'x.test.ts': 100_000, 'y.test.ts': 50_000, 'z.test.ts': 50_000 };
    const lanes = splitByDuration([...Object.keys(known), 'new.test.ts'], known, 2);
    expect(lanes).toEqual([
      ['x.test.ts', 'z.test.ts'],
      ['new.test.ts', 'y.test.ts'],
    ]);
  });

  it('splits the same list the same way in every lane process, whatever order the files come in', () => {
    const paths = Object.keys(durations);
    expect(splitByDuration([...paths].reverse(), durations, 2)).toEqual(splitByDuration(paths, durations, 2));
  });
});
