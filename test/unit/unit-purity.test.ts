/**
 * The unit project (vitest.config.ts) stays pure, so `npm test -- --project unit` answers in
 * seconds: no file of test/unit starts a child process or reads the local stack (inject() or the
 * stack's helpers). A file that needs either belongs to test/local, test/api or test/infra.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';

const DIR = 'test/unit';

const FORBIDDEN: Array<[RegExp, string]> = [
  [/from ['"](node:)?child_process['"]/, 'starts a child process'],
  [/\bimport\s*\{[^}]*\binject\b[^}]*\}\s*from ['"]vitest['"]/, "reads the local stack's URLs (inject)"],
  [/support\/(local-stack-process|global-setup|local-db|lrs)(\.ts)?['"]/, 'starts or reads a local engine'],
  [/\b(apiUrl|siteUrl)\(\)/, 'calls the local stack'],
];

it('no unit test file starts a process or needs the local stack', () => {
  const found: string[] = [];
  for (const name of readdirSync(DIR).filter((file) => file.endsWith('.ts'))) {
    const text = readFileSync(join(DIR, name), 'utf8');
    for (const [pattern, why] of FORBIDDEN) if (pattern.test(text)) found.push(`${name}: ${why}`);
  }
  expect(found).toEqual([]);
});
