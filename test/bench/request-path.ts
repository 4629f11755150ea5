/**
 * Bench section: the request path against its floor, on the project's own `npm start` stack
 * (file-backed DynamoDB Local in a temp data dir) and, for comparison, the in-memory one.
 * - GET /users/{another user} through the gateway (what a client sees);
 * - the users handler invoked directly with a prebuilt API Gateway event: the synthesized
 *   bundle with its template environment (what Lambda runs), or the source module standalone;
 * - a raw GetItem of the same user item through the same SDK client, same engine, same run,
 *   measured before and after the request path (the mean is the floor; both are printed).
 * All at 10 concurrent callers. Goals: gateway >= 0.8x raw, direct handler >= 0.9x raw.
 * Runs on its own too: `npx tsx test/bench/request-path.ts [cdk.out folder]`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { startStackProcess, type RunningStack } from '../support/local-stack-process.ts';

const CONNECTIONS = 10;

export interface RequestPathFigures {
  engine: string;
  selfRps: number;
  otherRps: number;
  directRps: number;
  rawRps: number;
  rawBeforeRps: number;
  rawAfterRps: number;
  p99: number;
  errors: number;
}

/** Runs `call` from CONNECTIONS concurrent loops for `seconds`; calls per second. */
async function loopRate(call: () => Promise<unknown>, seconds: number): Promise<number> {
  const warmUntil = Date.now() + 1500;
  while (Date.now() < warmUntil) await call();
  let count = 0;
  const started = Date.now();
  const until = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (Date.now() < until) {
        await call();
        count++;
      }
    }),
  );
  return count / ((Date.now() - started) / 1000);
}

async function gatewayRate(url: string, token: string, seconds: number) {
  const options = { url, connections: CONNECTIONS, headers: { authorization: `api ${token}` } };
  await autocannon({ ...options, duration: 1.5 });
  const result = await autocannon({ ...options, duration: seconds });
  return { rps: result.requests.average, p99: result.latency.p99, errors: result.errors + result.non2xx };
}

/** The event API Gateway hands the users function for GET /users/{userid}. */
function usersGetEvent(userid: number, token: string): APIGatewayProxyEventV2 {
  const path = `/api/2.0/users/${userid}`;
  return {
    version: '2.0',
    routeKey: 'GET /api/2.0/users/{userid}',
    rawPath: path,
    rawQueryString: '',
    headers: { authorization: `api ${token}`, host: 'bench.local', 'user-agent': 'bench' },
    pathParameters: { userid: String(userid) },
    requestContext: {
      accountId: '000000000000',
      apiId: 'bench',
      domainName: 'bench.local',
      domainPrefix: 'bench',
      http: { method: 'GET', path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'bench' },
      requestId: 'bench',
      routeKey: 'GET /api/2.0/users/{userid}',
      stage: '$default',
      time: new Date().toISOString(),
      timeEpoch: Date.now(),
    },
    isBase64Encoded: false,
  };
}

async function login(stack: RunningStack): Promise<string> {
  const response = await fetch(`${stack.url}/user/token`, {
    method: 'POST',
    body: JSON.stringify({ email: 'admin@example.com', password: 'stepwise-admin' }),
  });
  return ((await response.json()) as { authToken: string }).authToken;
}

async function createOtherUser(stack: RunningStack, token: string): Promise<number> {
  const response = await fetch(`${stack.url}/users`, {
    method: 'POST',
    headers: { authorization: `api ${token}` },
    body: JSON.stringify({
      email: `bench.${Date.now()}@example.com`,
      username: 'Bench User',
      password: 'Bench-pass-123',
    }),
  });
  return ((await response.json()) as { userid: number }).userid;
}

type Handler = (event: APIGatewayProxyEventV2, context: never) => Promise<unknown>;

/**
 * The users handler in this process, pointed at the stack's engines: the synthesized bundle
 * with its template environment when `cdkOut` is given (what Lambda runs), else the source
 * module. Imported once per process (module-level clients read the first endpoint they see).
 */
let directHandler: Handler | undefined;
async function loadUsersHandler(
  stack: RunningStack,
  warmUp: APIGatewayProxyEventV2,
  cdkOut?: string,
): Promise<Handler> {
  if (directHandler) return directHandler;
  // As on the gateway path (npm start): no EMF metrics line per request on stdout.
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
  const hostEnvironment = { ...process.env };
  const { applyLocalEnvironment } = await import('../../infra/local/environment.ts');
  let module: string = new URL('../../functions/users/handler.ts', import.meta.url).href;
  if (cdkOut) {
    const { readAssembly } = await import('../../infra/verify/template.ts');
    const assembly = readAssembly(cdkOut, {
      TABLE_NAME: 'stepwise',
      MEDIA_BUCKET: 'stepwise-media',
      MODULES_BUCKET: 'stepwise-modules',
      MODULE_IMPORT_STATE_MACHINE_ARN: 'arn:aws:states:us-east-1:000000000000:stateMachine:stepwise-module-import',
    });
    const users = [...assembly.functions.values()].find((fn) => fn.description === 'Stepwise users endpoints')!;
    Object.assign(process.env, users.environment);
    module = pathToFileURL(join(users.assetDir, `${users.handlerFile}.mjs`)).href;
  }
  applyLocalEnvironment();
  Object.assign(process.env, {
    LOG_LEVEL: 'ERROR',
    POWERTOOLS_METRICS_DISABLED: 'true',
    DDB_ENDPOINT: stack.ddbEndpoint,
    S3_ENDPOINT: stack.s3Endpoint,
    SFN_ENDPOINT: stack.sfnEndpoint,
  });
  const handler = (await import(module)).handler as Handler;
  // One call reads the configuration and creates the clients; then the bench's own
  // environment comes back, so stacks started later do not inherit the function's.
  const warm = (await handler(warmUp, {} as never)) as { statusCode: number };
  if (warm.statusCode !== 200) throw new Error(`direct handler warm-up answered ${warm.statusCode}`);
  for (const name of Object.keys(process.env)) if (!(name in hostEnvironment)) delete process.env[name];
  Object.assign(process.env, hostEnvironment);
  directHandler = handler;
  return directHandler;
}

export async function measureRequestPath(
  stack: RunningStack,
  engine: string,
  seconds: number,
  options: { direct: boolean; cdkOut?: string },
): Promise<RequestPathFigures> {
  const token = await login(stack);
  const otherId = await createOtherUser(stack, token);
  const db = DynamoDBDocumentClient.from(
    new DynamoDBClient({
      endpoint: stack.ddbEndpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' },
    }),
  );
  const rawGet = () => db.send(new GetCommand({ TableName: 'stepwise', Key: { pk: `USER#${otherId}`, sk: 'USER' } }));
  // The floor is measured before and after the request path and averaged: on a shared machine
  // the load drifts within a run, and one raw figure taken at the end skews every ratio.
  const rawBefore = await loopRate(rawGet, seconds);
  const self = await gatewayRate(`${stack.url}/users/1`, token, seconds);
  const other = await gatewayRate(`${stack.url}/users/${otherId}`, token, seconds);

  let directRps = Number.NaN;
  if (options.direct) {
    const event = usersGetEvent(otherId, token);
    const handler = await loadUsersHandler(stack, event, options.cdkOut);
    directRps = await loopRate(async () => {
      const result = (await handler(event, {} as never)) as { statusCode: number };
      if (result.statusCode !== 200) throw new Error(`direct handler answered ${result.statusCode}`);
    }, seconds);
  }

  const rawAfter = await loopRate(rawGet, seconds);
  db.destroy();
  const rawRps = (rawBefore + rawAfter) / 2;
  return {
    engine,
    selfRps: self.rps,
    otherRps: other.rps,
    directRps,
    rawRps,
    rawBeforeRps: rawBefore,
    rawAfterRps: rawAfter,
    p99: other.p99,
    errors: self.errors + other.errors,
  };
}

/** `npm start` as a newcomer runs it: DynamoDB Local on files in a fresh data dir. */
export async function startFileBackedStack(): Promise<{ stack: RunningStack; cleanup(): Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'stepwise-bench-data-'));
  const stack = await startStackProcess({ STEPWISE_IN_MEMORY: '', STEPWISE_DATA_DIR: dataDir, LOG_LEVEL: 'ERROR' });
  return {
    stack,
    cleanup: async () => {
      await stack.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export function printRequestPath(rows: RequestPathFigures[], seconds: number): void {
  console.log(
    `\nRequest path vs its floor (${CONNECTIONS} concurrent callers, ${seconds} s each; same engine, same run)`,
  );
  console.table(
    rows.map((row) => ({
      engine: row.engine,
      'raw GetItem req/s': Math.round(row.rawRps),
      'raw before / after': `${Math.round(row.rawBeforeRps)} / ${Math.round(row.rawAfterRps)}`,
      'GET /users/{other} req/s': Math.round(row.otherRps),
      'gateway ratio (aim >= 0.8)': (row.otherRps / row.rawRps).toFixed(2),
      'direct handler req/s': Number.isNaN(row.directRps) ? '-' : Math.round(row.directRps),
      'direct ratio (aim >= 0.9)': Number.isNaN(row.directRps) ? '-' : (row.directRps / row.rawRps).toFixed(2),
      'GET /users/{self} ratio': (row.selfRps / row.rawRps).toFixed(2),
      'p99 ms (other)': row.p99,
      errors: row.errors,
    })),
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const seconds = Number(process.env.BENCH_SECONDS ?? 5);
  const fileBacked = await startFileBackedStack();
  try {
    // With a cloud assembly folder as argument, the direct figure runs its users bundle.
    const cdkOut = process.argv[2];
    printRequestPath(
      [await measureRequestPath(fileBacked.stack, 'npm start (file-backed)', seconds, { direct: true, cdkOut })],
      seconds,
    );
  } finally {
    await fileBacked.cleanup();
  }
}
