/**
 * `npm test`: the five vitest projects in lanes at once (CONTRIBUTING.md, "Test"; decision 319).
 * - stack lanes: api and browser, split between STEPWISE_STACK_LANES (default 2) vitest shards, each
 *   with a local stack of its own. Within a lane the files share that stack and its data, so they run
 *   one file at a time (a list another file writes to can reorder under a reader); two lanes share
 *   nothing. An API file mostly waits (on the stack, the JVM, a pipeline), so two lanes fill the cores
 *   one lane leaves idle. The shards split by each file's recorded time (test/support/timed-sequencer.ts).
 * - own lane: unit, local and infra. They share nothing, so they run beside the stack lanes.
 * Vitest 4 runs projects with different worker limits one group after the other, never side by side,
 * so the lanes are vitest processes. With arguments (`npm test -- --project unit`, a file name)
 * this is plain `vitest run` with them.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SHARED_EMBED_DIR_ENV } from '../infra/local/embeds.ts';

const VITEST = fileURLToPath(new URL('../node_modules/vitest/vitest.mjs', import.meta.url));

/** Each stack lane's file times (test/support/file-times-reporter.ts), for `npm run test:times`. */
const TIMES_DIR = fileURLToPath(new URL('../.tmp/test-times/', import.meta.url));

const STACK_LANES = Math.max(1, Number(process.env.STEPWISE_STACK_LANES ?? 2));
const projects = (...names: string[]) => names.flatMap((name) => ['--project', name]);

const LANES: Record<string, string[]> = {
  ...Object.fromEntries(
    Array.from({ length: STACK_LANES }, (_, index) => [
      `stack${index + 1}`,
      [
        ...projects('api', 'browser'),
        ...(STACK_LANES > 1 ? [`--shard=${index + 1}/${STACK_LANES}`] : []),
        // What each file took, for `npm run test:times` (the shards' split, decision 345).
        '--reporter=default',
        '--reporter=./test/support/file-times-reporter.ts',
      ],
    ]),
  ),
  own: projects('unit', 'local', 'infra'),
};

const running = new Set<ChildProcess>();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    for (const child of running) child.kill(signal);
  });
}

/** Runs vitest; a lane's lines are prefixed with its name so two lanes' output stays readable. */
function vitest(args: string[], lane?: string): Promise<number> {
  const child = spawn(process.execPath, [VITEST, 'run', ...args], {
    stdio: lane ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    // Where the stack lanes' file-times reporter writes (the own lane has none).
    env: lane ? { ...process.env, STEPWISE_TEST_TIMES_FILE: `${TIMES_DIR}${lane}.json` } : process.env,
  });
  running.add(child);
  if (lane) {
    for (const [from, to] of [
      [child.stdout, process.stdout],
      [child.stderr, process.stderr],
    ] as const) {
      let partial = '';
      from?.setEncoding('utf8');
      from?.on('data', (chunk: string) => {
        const lines = (partial + chunk).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) to.write(`[${lane}] ${line}\n`);
      });
      from?.on('end', () => partial && to.write(`[${lane}] ${partial}\n`));
    }
  }
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      running.delete(child);
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

const args = process.argv.slice(2);
// A lane count that changed must not leave an old lane's times behind for `npm run test:times`.
if (!args.length) rmSync(TIMES_DIR, { recursive: true, force: true });
// Every lane's stacks share one build of the embeds (decision 354, test/support/embeds-setup.ts).
const embeds =
  args.length || process.env[SHARED_EMBED_DIR_ENV] ? undefined : mkdtempSync(join(tmpdir(), 'stepwise-test-embeds-'));
if (embeds) process.env[SHARED_EMBED_DIR_ENV] = join(embeds, 'embeds');
const codes = args.length
  ? [await vitest(args)]
  : await Promise.all(Object.entries(LANES).map(([lane, laneArgs]) => vitest(laneArgs, lane)));
if (embeds) rmSync(embeds, { recursive: true, force: true });
const failed = codes.find((code) => code !== 0);
if (!args.length) console.log(failed === undefined ? 'Every lane passed.' : 'A lane failed: see its lines above.');
process.exit(failed ?? 0);
