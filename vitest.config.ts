import { defineConfig } from 'vitest/config';
import { TimedSequencer } from './test/support/timed-sequencer.ts';

/**
 * Five projects, split by what a test file needs (CONTRIBUTING.md, "Test"):
 * - unit: pure code, in process. No stack, no child process, no network beyond a loopback server
 *   the file opens itself (test/unit/unit-purity.test.ts keeps it so). `npm test -- --project unit`.
 * - api: HTTP against the shared local stack (`npm start` in memory, one for the run:
 *   global-setup.ts), with the engines and commands as child processes: test/api, matrix, migrate,
 *   fuzz.
 * - browser: Debian's Chromium against the same stack.
 * - local: the local engines and commands, each file starting its own (stack, JVM, emulator); never
 *   the shared stack.
 * - infra: CDK synth, bundling and the toolchain's own checks (Node, the OpenAPI linters).
 * `npm test` (test/lanes.ts, decision 319) runs them in lanes at once: api and browser in two shards,
 * each with a stack of its own, one file at a time; unit, local and infra, which share nothing, beside
 * them.
 */
/** One build of the stacks' embeds for the run (decision 354): first, so the shared stack inherits its folder. */
const EMBEDS = 'test/support/embeds-setup.ts';
const STACK = [EMBEDS, 'test/support/global-setup.ts'];

export default defineConfig({
  test: {
    // One file at a time in each lane (test/lanes.ts): API files share one stack, and some read lists
    // other files' writes can reorder (a full run with three workers failed such a test once).
    // STEPWISE_TEST_WORKERS=3 overlaps files within a lane where a machine has the cores.
    maxWorkers: Number(process.env.STEPWISE_TEST_WORKERS ?? 1),
    // `--shard` splits the stack lanes by recorded file time, not file count (decision 345).
    sequence: { sequencer: TimedSequencer },
    // fast-check properties run with a fixed seed unless STEPWISE_PROPERTY_SEED says otherwise.
    setupFiles: ['test/support/property-setup.ts'],
    // Local-engine tests start servers (and some a stack of their own, up to 120 s) in beforeAll.
    hookTimeout: 120_000,
    // Generous for a loaded CI machine; performance is measured by `npm run bench`, not here.
    testTimeout: 60_000,
    projects: [
      {
        extends: true,
        // unit-setup.ts makes any attempt to start a child process fail the test.
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          setupFiles: ['test/support/unit-setup.ts'],
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'api',
          include: [
            'test/api/**/*.test.ts',
            'test/matrix/**/*.test.ts',
            'test/migrate/**/*.test.ts',
            'test/fuzz/**/*.test.ts',
          ],
          globalSetup: STACK,
        },
      },
      { extends: true, test: { name: 'browser', include: ['test/browser/**/*.test.ts'], globalSetup: STACK } },
      { extends: true, test: { name: 'local', include: ['test/local/**/*.test.ts'], globalSetup: [EMBEDS] } },
      { extends: true, test: { name: 'infra', include: ['test/infra/**/*.test.ts'] } },
    ],
  },
});
