/**
 * Bench section: the request path against its floor, on the project's own `npm start` stack
 * (file-backed DynamoDB Local in a temp data dir) and, for comparison, the in-memory one.
 * - GET /users/{another user} through the gateway (what a client sees);
 * - a raw GetItem of the same user item through the SDK's default document client, same engine,
 *   same run.
 * The handler's own CPU against an idiomatic peer is test/bench/handler-cpu.ts (decision 182);
 * loadUsersHandler below serves it.
 * Interleaved: short rounds of raw, other, self, again and again, so load that drifts
 * during the run (a shared machine) hits the floor and the measured paths alike; each ratio is
 * the median of the per-round ratios (decision 144). All at 10 concurrent callers.
 * Goal: gateway >= 0.8x raw, both ways (decision 339):
 * - interleaved (above): BENCH_ROUNDS (default 5) rounds of BENCH_ROUND_SECONDS (default 1.5);
 * - sequential, issue 36's way (measureSequential): BENCH_SEQUENTIAL_RUNS (default 3) runs of
 *   BENCH_SEQUENTIAL_SECONDS (default 10) of the raw GetItem on an *in-memory* DynamoDB Local,
 *   then as many of GET /users/{another user} through a plain `npm start` (file-backed).
 * Both print the CPU per request of each process on the path (test/bench/process-cpu.ts), which
 * says what bounds it. Runs on its own too: `npx tsx test/bench/request-path.ts` (both ways).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { moveCounterPast } from '../../shared/db/counters.ts';
import { startStackProcess, type RunningStack } from '../support/local-stack-process.ts';
import { localDb } from '../support/local-db.ts';
import { availableParallelism } from 'node:os';
import { adminToken, createBenchUser, getLoad, meanMedian } from './alone.ts';
import { CpuMeter, type CpuPerRequest, cpuBoundRatio, engineProcessOf, formatCpu } from './process-cpu.ts';

const CONNECTIONS = 10;
export const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
export const ROUND_SECONDS = Number(process.env.BENCH_ROUND_SECONDS ?? 1.5);
const WARM_UP_SECONDS = 1;
export const SEQUENTIAL_RUNS = Number(process.env.BENCH_SEQUENTIAL_RUNS ?? 3);
export const SEQUENTIAL_SECONDS = Number(process.env.BENCH_SEQUENTIAL_SECONDS ?? 10);

export interface RequestPathFigures {
  engine: string;
  /** Medians over the rounds, requests per second. */
  selfRps: number;
  otherRps: number;
  rawRps: number;
  rawMinRps: number;
  rawMaxRps: number;
  /** Medians of the per-round ratios to that round's raw GetItem. */
  otherRatio: number;
  selfRatio: number;
  p99: number;
  errors: number;
  /** µs of CPU per request of each process: the raw GetItem's, and GET /users/{other}'s. */
  rawCpu: CpuPerRequest;
  otherCpu: CpuPerRequest;
}

/** Runs `call` from CONNECTIONS concurrent loops for `seconds`; calls per second and made. */
async function loopRate(call: () => Promise<unknown>, seconds: number): Promise<{ rps: number; requests: number }> {
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
  return { rps: count / ((Date.now() - started) / 1000), requests: count };
}

type Handler = (event: APIGatewayProxyEventV2, context: never) => Promise<unknown>;

/**
 * The users handler in this process, pointed at the stack's engines: the synthesized bundle
 * with its template environment when `cdkOut` is given (what Lambda runs), else the source
 * module. Imported once per process (module-level clients read the first endpoint they see).
 */
let directHandler: Handler | undefined;
export async function loadUsersHandler(
  stack: RunningStack,
  warmUp: APIGatewayProxyEventV2,
  cdkOut?: string,
): Promise<Handler> {
  if (directHandler) return directHandler;
  // As on the gateway path (npm start): no EMF metrics line per request on stdout.
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
  const hostEnvironment = { ...process.env };
  const { applyLocalEnvironment } = await import('../../infra/local/environment.ts');
  let load = () => import('../../functions/users/handler.ts') as Promise<Record<string, unknown>>;
  if (cdkOut) {
    const { readAssembly } = await import('../../infra/verify/template.ts');
    const { loadBundle } = await import('../../infra/verify/load-bundle.ts');
    const assembly = readAssembly(cdkOut, {
      TABLE_NAME: 'stepwise',
      MEDIA_BUCKET: 'stepwise-media',
      MODULES_BUCKET: 'stepwise-modules',
      MODULE_IMPORT_STATE_MACHINE_ARN: 'arn:aws:states:us-east-1:000000000000:stateMachine:stepwise-module-import',
    });
    const users = [...assembly.functions.values()].find((fn) => fn.description === 'Stepwise users endpoints')!;
    Object.assign(process.env, users.environment);
    load = () => loadBundle(users.bundleFile);
  }
  applyLocalEnvironment();
  Object.assign(process.env, {
    LOG_LEVEL: 'ERROR',
    POWERTOOLS_METRICS_DISABLED: 'true',
    DDB_ENDPOINT: stack.ddbEndpoint,
    S3_ENDPOINT: stack.s3Endpoint,
    SFN_ENDPOINT: stack.sfnEndpoint,
  });
  const handler = (await load()).handler as Handler;
  // One call reads the configuration and creates the clients; then the bench's own
  // environment comes back, so stacks started later do not inherit the function's.
  const warm = (await handler(warmUp, {} as never)) as { statusCode: number };
  if (warm.statusCode !== 200) throw new Error(`direct handler warm-up answered ${warm.statusCode}`);
  for (const name of Object.keys(process.env)) if (!(name in hostEnvironment)) delete process.env[name];
  Object.assign(process.env, hostEnvironment);
  directHandler = handler;
  return directHandler;
}

export async function measureRequestPath(stack: RunningStack, engine: string): Promise<RequestPathFigures> {
  const token = await adminToken(stack);
  const otherId = await createBenchUser(stack, token, 'bench', 'Bench User');
  const db = localDb(stack.ddbEndpoint);
  const rawGet = () => db.send(new GetCommand({ TableName: 'stepwise', Key: { pk: `USER#${otherId}`, sk: 'USER' } }));
  const selfUrl = `${stack.url}/users/1`;
  const otherUrl = `${stack.url}/users/${otherId}`;

  // Warm every path once (connections, caches, JIT), then interleave short rounds.
  await loopRate(rawGet, WARM_UP_SECONDS);
  await getLoad(otherUrl, token, CONNECTIONS, WARM_UP_SECONDS);
  await getLoad(selfUrl, token, CONNECTIONS, WARM_UP_SECONDS);
  const rounds: Array<{ raw: number; other: number; self: number; p99: number; errors: number }> = [];
  const engineProcess = engineProcessOf(stack.child.pid);
  const rawCpu = new CpuMeter({ engine: engineProcess });
  const otherCpu = new CpuMeter({ stack: stack.child.pid, engine: engineProcess });
  for (let round = 0; round < ROUNDS; round++) {
    const raw = await rawCpu.measure(() => loopRate(rawGet, ROUND_SECONDS));
    const other = await otherCpu.measure(() => getLoad(otherUrl, token, CONNECTIONS, ROUND_SECONDS));
    const self = await getLoad(selfUrl, token, CONNECTIONS, ROUND_SECONDS);
    rounds.push({
      raw: raw.rps,
      other: other.rps,
      self: self.rps,
      p99: other.p99,
      errors: other.errors + self.errors,
    });
  }
  db.destroy();
  const of = (pick: (round: (typeof rounds)[number]) => number) => meanMedian(rounds.map(pick));
  return {
    engine,
    rawRps: of((round) => round.raw),
    rawMinRps: Math.min(...rounds.map((round) => round.raw)),
    rawMaxRps: Math.max(...rounds.map((round) => round.raw)),
    otherRps: of((round) => round.other),
    selfRps: of((round) => round.self),
    otherRatio: of((round) => round.other / round.raw),
    selfRatio: of((round) => round.self / round.raw),
    p99: of((round) => round.p99),
    errors: rounds.reduce((sum, round) => sum + round.errors, 0),
    rawCpu: rawCpu.perRequest(),
    otherCpu: otherCpu.perRequest(),
  };
}

/**
 * `npm start` as a newcomer runs it: DynamoDB Local on files in a fresh data dir, the log at
 * INFO and the notice and cmi5 sweeps on their timers (shared/config.ts defaults), as plain
 * `npm start` runs (the harness's default turns the sweeps off).
 */
export async function startFileBackedStack(): Promise<{ stack: RunningStack; cleanup(): Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'stepwise-bench-data-'));
  const stack = await startStackProcess({
    STEPWISE_IN_MEMORY: '',
    STEPWISE_DATA_DIR: dataDir,
    LOG_LEVEL: 'INFO',
    STEPWISE_NOTICE_SWEEP_MS: '60000',
    STEPWISE_CMI5_ABANDON_SWEEP_MS: '300000',
  });
  return {
    stack,
    cleanup: async () => {
      await stack.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export function printRequestPath(rows: RequestPathFigures[]): void {
  console.log(
    `\nRequest path vs its floor (${CONNECTIONS} concurrent callers; ${ROUNDS} interleaved rounds of ` +
      `${ROUND_SECONDS} s per path; medians; ratios are medians of per-round ratios; same engine, same run)`,
  );
  console.table(
    rows.map((row) => ({
      engine: row.engine,
      'raw GetItem req/s': Math.round(row.rawRps),
      'raw min / max': `${Math.round(row.rawMinRps)} / ${Math.round(row.rawMaxRps)}`,
      'GET /users/{other} req/s': Math.round(row.otherRps),
      'gateway ratio (aim >= 0.8)': row.otherRatio.toFixed(2),
      'GET /users/{self} ratio': row.selfRatio.toFixed(2),
      'p99 ms (other)': row.p99,
      errors: row.errors,
      'raw µs/req: caller / - / engine': formatCpu(row.rawCpu),
      'other µs/req: load gen / stack / engine': formatCpu(row.otherCpu),
      [`CPU-bound ratio, ${availableParallelism()} idle cores`]: cpuBoundRatio(
        row.rawCpu,
        row.otherCpu,
        availableParallelism(),
      ),
    })),
  );
}

export interface SequentialFigures {
  runs: number;
  seconds: number;
  /** Requests per second of each run, in order. */
  rawRps: number[];
  gatewayRps: number[];
  /** Mean gateway rate over mean raw rate. */
  ratio: number;
  rawCpu: CpuPerRequest;
  gatewayCpu: CpuPerRequest;
  errors: number;
}

/**
 * Issue 36's way: `runs` sequential runs of `seconds` each, 10 connections, of a raw SDK GetItem
 * on `rawStack`'s in-memory DynamoDB Local, then as many runs of GET /users/{another user}
 * through `gateway` (a plain `npm start`, file-backed). The user's item is copied to the
 * in-memory engine, so both sides read the same bytes.
 */
export async function measureSequential(
  gateway: RunningStack,
  rawStack: RunningStack,
  runs = SEQUENTIAL_RUNS,
  seconds = SEQUENTIAL_SECONDS,
): Promise<SequentialFigures> {
  const token = await adminToken(gateway);
  const otherId = await createBenchUser(gateway, token, 'bench', 'Bench User');
  const Key = { pk: `USER#${otherId}`, sk: 'USER' };
  const { Item } = await localDb(gateway.ddbEndpoint).send(new GetCommand({ TableName: 'stepwise', Key }));
  const rawDb = localDb(rawStack.ddbEndpoint);
  await rawDb.send(new PutCommand({ TableName: 'stepwise', Item }));
  // The copy keeps the gateway's userid: the raw stack's user counter moves past it, so the users later
  // sections make there (the round-trip counter's) never collide with it.
  await moveCounterPast('user', otherId, { client: rawDb, name: 'stepwise' });
  const rawGet = () => rawDb.send(new GetCommand({ TableName: 'stepwise', Key }));
  const url = `${gateway.url}/users/${otherId}`;
  await loopRate(rawGet, WARM_UP_SECONDS);
  await getLoad(url, token, CONNECTIONS, WARM_UP_SECONDS);
  const rawCpu = new CpuMeter({ engine: engineProcessOf(rawStack.child.pid) });
  const gatewayCpu = new CpuMeter({ stack: gateway.child.pid, engine: engineProcessOf(gateway.child.pid) });
  const rawRps: number[] = [];
  const gatewayRps: number[] = [];
  let errors = 0;
  for (let run = 0; run < runs; run++) rawRps.push((await rawCpu.measure(() => loopRate(rawGet, seconds))).rps);
  for (let run = 0; run < runs; run++) {
    const result = await gatewayCpu.measure(() => getLoad(url, token, CONNECTIONS, seconds));
    gatewayRps.push(result.rps);
    errors += result.errors;
  }
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  return {
    runs,
    seconds,
    rawRps,
    gatewayRps,
    ratio: mean(gatewayRps) / mean(rawRps),
    rawCpu: rawCpu.perRequest(),
    gatewayCpu: gatewayCpu.perRequest(),
    errors,
  };
}

export function printSequential(figures: SequentialFigures): void {
  console.log(
    `\nRequest path, issue 36's way (${figures.runs} sequential runs of ${figures.seconds} s each side, ` +
      `${CONNECTIONS} connections; raw GetItem on an in-memory DynamoDB Local, GET /users/{other} through ` +
      'a plain npm start, file-backed; ratio of the means; CPU µs per request of each process)',
  );
  const rates = (values: number[]) => values.map((value) => Math.round(value)).join(', ');
  console.table([
    {
      'raw GetItem req/s (in memory)': rates(figures.rawRps),
      'GET /users/{other} req/s': rates(figures.gatewayRps),
      'ratio (aim >= 0.8)': figures.ratio.toFixed(2),
      'raw µs/req: caller / - / engine': formatCpu(figures.rawCpu),
      'gateway µs/req: load gen / stack / engine': formatCpu(figures.gatewayCpu),
      [`CPU-bound ratio, ${availableParallelism()} idle cores`]: cpuBoundRatio(
        figures.rawCpu,
        figures.gatewayCpu,
        availableParallelism(),
      ),
      errors: figures.errors,
    },
  ]);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const fileBacked = await startFileBackedStack();
  try {
    const interleaved = await measureRequestPath(fileBacked.stack, 'npm start (file-backed)');
    const inMemory = await startStackProcess({ LOG_LEVEL: 'ERROR' });
    try {
      printSequential(await measureSequential(fileBacked.stack, inMemory));
    } finally {
      await inMemory.stop();
    }
    printRequestPath([interleaved]);
  } finally {
    await fileBacked.cleanup();
  }
}
