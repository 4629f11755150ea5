/**
 * A vitest reporter that writes what each file took (its tests and hooks, and its import) to the file
 * STEPWISE_TEST_TIMES_FILE names, as `{ "<path>": ms }`. `npm test` gives it to the stack lanes;
 * `npm run test:times` turns their files into test/support/file-durations.json (decision 345).
 * Vitest's JSON report is not enough: its per-file times leave out the file's beforeAll hooks, which
 * are most of a file that starts stacks of its own.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import type { Reporter, TestModule, Vitest } from 'vitest/node';

export default class FileTimesReporter implements Reporter {
  private root = process.cwd();
  private readonly times: Record<string, number> = {};

  onInit(vitest: Vitest): void {
    this.root = vitest.config.root;
  }

  onTestModuleEnd(module: TestModule): void {
    const { duration, collectDuration } = module.diagnostic();
    this.times[relative(this.root, module.moduleId).split('\\').join('/')] = Math.round(duration + collectDuration);
  }

  onTestRunEnd(): void {
    const file = process.env.STEPWISE_TEST_TIMES_FILE;
    if (!file) return;
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `${JSON.stringify(this.times, null, 2)}\n`);
  }
}
