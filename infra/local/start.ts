/**
 * `npm start`: the whole API on the embedded local stack, the same handler modules Lambda runs.
 *   DynamoDB Local (persistent under STEPWISE_DATA_DIR, default .data/), the S3 emulator,
 *   the Step Functions runner with the import pipeline, and the gateway on PORT (default 3000).
 * STEPWISE_IN_MEMORY=1 keeps nothing (tests). PORT=0 picks a free port. Ctrl-C stops it all.
 */
import { join, resolve } from 'node:path';
import { applyLocalEnvironment } from './environment.ts';
import { freePort } from './free-port.ts';

const started = Date.now();
const host = process.env.HOST ?? '127.0.0.1';
// PORT=0: choose the port now, so the site URL (absolute links in payloads) names the real one.
const port = Number(process.env.PORT ?? 3000) || (await freePort());
applyLocalEnvironment();
process.env.STEPWISE_SITE_URL ??= `http://${host}:${port}`;

const inMemory = ['1', 'true'].includes(process.env.STEPWISE_IN_MEMORY ?? '');
const dataDir = resolve(process.env.STEPWISE_DATA_DIR ?? '.data');
process.env.STEPWISE_DATA_DIR = dataDir;
process.env.STEPWISE_OUTBOX_DIR ??= join(dataDir, 'outbox');

const { startLocalStack } = await import('./stack.ts');
const { DataDirInUseError } = await import('./data-dir-lock.ts');
const stack = await startLocalStack({ dataDir: inMemory ? undefined : dataDir, port, host }).catch((error: unknown) => {
  if (!(error instanceof DataDirInUseError)) throw error;
  console.error(`Stepwise cannot start: ${error.message}`);
  process.exit(1);
});

const url = `http://${host}:${stack.port}/api/2.0`;
console.log(
  [
    `Stepwise is running at ${url}  (ready in ${((Date.now() - started) / 1000).toFixed(1)} s)`,
    `  docs:   ${url}/doc`,
    `  data:   ${inMemory ? 'in memory (nothing kept)' : dataDir}`,
    `  node:   ${process.version} (Lambda runs Node 22)`,
    stack.adminCreated ? `  first Admin created: ${stack.adminEmail} (local default password; see README)` : '',
    '  Ctrl-C stops everything.',
  ]
    .filter(Boolean)
    .join('\n'),
);
// A machine-readable line for the test harness and bench.
console.log(`STEPWISE_READY ${JSON.stringify({ url, ...stack.endpoints })}`);

let stopping = false;
async function shutdown() {
  if (stopping) return;
  stopping = true;
  await stack.stop();
  process.exit(0);
}
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
// Run by a harness (tests, bench): stop when the harness is gone, however it ended (its end of
// our stdin pipe closes), as the JVM does with us.
if (process.env.STEPWISE_STOP_ON_STDIN_CLOSE === '1') process.stdin.on('end', shutdown).on('close', shutdown).resume();
