/**
 * Setup file of the unit project only (vitest.config.ts): a unit test starts no process. Every way
 * node:child_process has to start one throws here, so a file that needs a process (directly or
 * through the code it tests) fails at once with where it belongs, instead of slowing the quick loop.
 */
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';

const STARTERS = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const;

for (const name of STARTERS) {
  Object.defineProperty(childProcess, name, {
    configurable: true,
    writable: true,
    value: () => {
      throw new Error(
        `child_process.${name}: a unit test starts no process; move the file to test/local or test/infra`,
      );
    },
  });
}
// Named imports (`import { spawn } from 'node:child_process'`) see the replacements too.
syncBuiltinESMExports();
