/**
 * `npm run lint` part two: no source line over 120 characters (the formatter keeps code within
 * that width but leaves long strings and comments as they are). Reads the files git tracks.
 * A test's title line is the one exception: the formatter always keeps `it('title', async () => {`
 * on one line, and a title is one string literal, never split to fit (decision 205).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

export const MAX_LINE_LENGTH = 120;
const SOURCE = /\.(ts|mts|mjs|js)$/;
/** `it('…', async () => {` (also describe / test, .each and the like): one title literal, nothing else. */
const TEST_TITLE_LINE = /^\s*(it|describe|test)(\.\w+)*\((['"])(?:(?!\3)[^\\]|\\.)*\3, (async )?\(\) => \{$/;

export function longLines(
  files: string[],
  read: (file: string) => string = (file) => readFileSync(file, 'utf8'),
): string[] {
  const found: string[] = [];
  for (const file of files) {
    read(file)
      .split('\n')
      .forEach((line, index) => {
        if (line.length > MAX_LINE_LENGTH && !TEST_TITLE_LINE.test(line))
          found.push(`${file}:${index + 1}: ${line.length} characters`);
      });
  }
  return found;
}

function trackedSources(): string[] {
  return execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { encoding: 'utf8' })
    .split('\n')
    .filter((file) => SOURCE.test(file) && !file.startsWith('node_modules/'));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const found = longLines(trackedSources());
  for (const line of found) console.log(line);
  if (found.length > 0) {
    console.error(`${found.length} line(s) over ${MAX_LINE_LENGTH} characters`);
    process.exit(1);
  }
  console.log(`No line over ${MAX_LINE_LENGTH} characters`);
}
