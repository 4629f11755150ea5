/**
 * The unit project (vitest.config.ts) stays pure, so `npm test -- --project unit` answers in
 * seconds: no file of test/unit starts a child process or reads the local stack (inject() or the
 * stack's helpers). A file that needs either belongs to test/local, test/api or test/infra.
 * The local project runs beside the API files (test/lanes.ts), so no file of test/local touches the
 * shared stack: one that does belongs to test/api.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';

const DIR = 'test/unit';

const SHARED_STACK: Array<[RegExp, string]> = [
  [/\bimport\s*\{[^}]*\binject\b[^}]*\}\s*from ['"]vitest['"]/, "reads the shared stack's URLs (inject)"],
  [/support\/(global-setup|local-db|lrs|api)(\.ts)?['"]/, 'reads the shared stack'],
  [/\b(apiUrl|siteUrl)\(\)/, 'calls the shared stack'],
];

const FORBIDDEN: Array<[RegExp, string]> = [
  [/from ['"](node:)?child_process['"]/, 'starts a child process'],
  [/\bimport\s*\{[^}]*\binject\b[^}]*\}\s*from ['"]vitest['"]/, "reads the local stack's URLs (inject)"],
  [/support\/(local-stack-process|global-setup|local-db|lrs)(\.ts)?['"]/, 'starts or reads a local engine'],
  [/\b(apiUrl|siteUrl)\(\)/, 'calls the local stack'],
];

function offenders(dir: string, rules: Array<[RegExp, string]>): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir).filter((file) => file.endsWith('.ts'))) {
    const text = readFileSync(join(dir, name), 'utf8');
    for (const [pattern, why] of rules) if (pattern.test(text)) found.push(`${name}: ${why}`);
  }
  return found;
}

it('no unit test file starts a process or needs the local stack', () => {
  expect(offenders(DIR, FORBIDDEN)).toEqual([]);
});

it('no local test file touches the shared stack', () => {
  expect(offenders('test/local', SHARED_STACK)).toEqual([]);
});
