/**
 * Runs `infra/local/start.ts` (what `npm start` runs) as a child process and waits for its
 * STEPWISE_READY line. Used by the test global setup and the benchmark.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface RunningStack {
  url: string;
  ddbEndpoint: string;
  s3Endpoint: string;
  sfnEndpoint: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * `npm start` in a child process, in memory unless `env` says otherwise (see
 * startStackOnDataDir). Rejects with the process's stderr if it exits before it is ready.
 */
export function startStackProcess(env: Record<string, string> = {}): Promise<RunningStack> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'infra/local/start.ts'], {
    // The stack stops when our end of its stdin closes: a killed test run leaves nothing behind.
    env: {
      ...process.env,
      STEPWISE_IN_MEMORY: '1',
      PORT: '0',
      LOG_LEVEL: 'WARN',
      STEPWISE_STOP_ON_STDIN_CLOSE: '1',
      // A stack of the tests or benches changes nothing on its own: the notice sweep runs when asked
      // (POST /notices/sweep), not on npm start's timer (docs/notices.md).
      STEPWISE_NOTICE_SWEEP_MS: '0',
      STEPWISE_CMI5_ABANDON_SWEEP_MS: '0',
      // The tests make and sign in thousands of accounts: a sixteenth of scrypt's work for each
      // (decision 352). Benches keep the deployed cost, so a sign-in measures what users run.
      ...(process.env.VITEST ? { STEPWISE_LOCAL_PASSWORD_HASH_COST: '1024' } : {}),
      ...env,
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
      // Past the stack's own bounded stop: it ends DynamoDB Local by pid, up to 10 s (infra/local/dynamodb.ts).
      // A shorter grace killed stacks mid-stop on a loaded machine and left their JVM running.
      setTimeout(() => child.kill('SIGKILL'), 20_000).unref();
    });
  process.once('exit', () => child.kill('SIGKILL'));
  let stderr = '';
  child.stderr!.on('data', (chunk) => {
    stderr += chunk;
    if (process.env.STEPWISE_TEST_VERBOSE) process.stderr.write(chunk);
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Local stack did not start in 120 s\n${stderr}`)), 120_000);
    child.once('exit', (code) => reject(new Error(`Local stack exited with ${code}\n${stderr}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (process.env.STEPWISE_TEST_VERBOSE) console.log(line);
      if (line.startsWith('STEPWISE_READY ')) {
        clearTimeout(timer);
        resolve({ ...JSON.parse(line.slice('STEPWISE_READY '.length)), child, stop });
      }
    });
  });
}

/** A file-backed stack on `dataDir` (persistent, locked), as `npm start` runs by default. */
export function startStackOnDataDir(dataDir: string, env: Record<string, string> = {}): Promise<RunningStack> {
  return startStackProcess({ STEPWISE_IN_MEMORY: '0', STEPWISE_DATA_DIR: dataDir, ...env });
}

/** Resolves once `isGone()` holds, polling every 100 ms; rejects after `timeoutMs`. */
export async function waitUntil(what: string, isGone: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!isGone()) {
    if (Date.now() > deadline) throw new Error(`Still waiting after ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
