/**
 * `npm start`: the whole API on the embedded local stack, the same handler modules Lambda runs.
 *   DynamoDB Local (persistent under STEPWISE_DATA_DIR, default .data/), the S3 emulator,
 *   the Step Functions runner with the import pipeline, and the gateway on PORT (default 3000).
 * STEPWISE_IN_MEMORY=1 keeps nothing (tests). PORT=0 picks a free port. Ctrl-C stops it all.
 */
import { accessSync, constants } from 'node:fs';
import { createServer } from 'node:net';
import { delimiter, join, resolve } from 'node:path';
import { applyLocalEnvironment } from './environment.ts';
import { freePort } from './free-port.ts';

/** One line saying what to do, and exit: a newcomer's first hour should not start with a stack trace. */
function refuse(message: string): never {
  console.error(`Stepwise cannot start: ${message}`);
  process.exit(1);
}

/** Whether `java` is on PATH (DynamoDB Local runs on it; infra/local/dynamodb.ts spawns it by name). */
function javaOnPath(): boolean {
  const names = process.platform === 'win32' ? ['java.exe', 'java.cmd'] : ['java'];
  return (process.env.PATH ?? '').split(delimiter).some((dir) =>
    names.some((name) => {
      try {
        accessSync(join(dir || '.', name), constants.X_OK);
        return true;
      } catch {
        return false;
      }
    }),
  );
}

const JDK_HINT =
  'no `java` on PATH. DynamoDB Local runs on a JDK 17+: install one ' +
  '(`sudo apt-get install openjdk-17-jre-headless`, `brew install openjdk@17`, or https://adoptium.net) ' +
  'and start again';

/** Resolves whether `port` on `host` can be listened on now (a port another program holds cannot). */
function portIsFree(port: number, host: string): Promise<boolean> {
  return new Promise((resolveFree) => {
    const probe = createServer();
    probe.once('error', () => resolveFree(false));
    probe.listen(port, host, () => probe.close(() => resolveFree(true)));
  });
}

const portBusy = (port: number) =>
  `port ${port} is in use by another program. ` +
  'Set PORT to another port (PORT=3001 npm start, or PORT=0 for any free one)';

const started = Date.now();
const host = process.env.HOST ?? '127.0.0.1';
if (!javaOnPath()) refuse(JDK_HINT);
const askedPort = Number(process.env.PORT ?? 3000);
// Checked before the JVM starts, so a busy port is said at once and nothing is left running.
if (askedPort && !(await portIsFree(askedPort, host))) refuse(portBusy(askedPort));
// PORT=0: choose the port now, so the site URL (absolute links in payloads) names the real one.
const port = askedPort || (await freePort());
applyLocalEnvironment();
process.env.STEPWISE_SITE_URL ??= `http://${host}:${port}`;

const inMemory = ['1', 'true'].includes(process.env.STEPWISE_IN_MEMORY ?? '');
const dataDir = resolve(process.env.STEPWISE_DATA_DIR ?? '.data');
process.env.STEPWISE_DATA_DIR = dataDir;
process.env.STEPWISE_OUTBOX_DIR ??= join(dataDir, 'outbox');

const { startLocalStack } = await import('./stack.ts');
const { DataDirInUseError } = await import('./data-dir-lock.ts');
const { JvmStartError } = await import('./dynamodb.ts');
const stack = await startLocalStack({ dataDir: inMemory ? undefined : dataDir, port, host }).catch((error: unknown) => {
  if (error instanceof DataDirInUseError) refuse(error.message);
  // Java's own words (first stderr lines), not a stack trace: e.g. a JDK older than 17.
  if (error instanceof JvmStartError) refuse(`${error.message}. DynamoDB Local runs on a JDK 17+ (java -version)`);
  // Taken between the check above and the gateway's listen.
  if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') refuse(portBusy(port));
  throw error;
});

const url = `http://${host}:${stack.port}/api/2.0`;
console.log(
  [
    // The site's root answers a page; the API's base path alone is no resource (a 404).
    `Stepwise is running at http://${host}:${stack.port}/  (ready in ${((Date.now() - started) / 1000).toFixed(1)} s)`,
    `  API:    ${url}/  (e.g. ${url}/guides)`,
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
