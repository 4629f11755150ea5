/**
 * Bench section: the users function's CPU per request (GET /users/{another user}, invoked
 * in-process, authentication cached) against a minimal idiomatic handler doing the same read
 * (peer-handler.ts: middy + the DocumentClient), with tracing off and on. Each variant runs in a
 * process of its own (handler-cpu-child.ts), so the tracer's patches and module-level clients
 * of one do not touch another; rounds are interleaved (peer, ours, ours traced, again and again)
 * so load that drifts hits all alike, and each ratio is the median of per-round ratios.
 * Goal (decision 182): ours ≤ 1.3x the peer's CPU per request, tracing off; with tracing on it is
 * reported (decision 184: the tracer's async context is the cost decision 159 removed).
 * BENCH_ROUNDS (default 5) rounds of BENCH_ROUND_SECONDS (default 1.5) per variant.
 * Runs on its own too: `npx tsx test/bench/handler-cpu.ts [cdk.out folder]`.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from '../../infra/repo-paths.ts';
import type { RunningStack } from '../support/local-stack-process.ts';
import { adminToken, createBenchUser, meanMedian, onStackOfItsOwn, runsAlone } from './alone.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const ROUND_SECONDS = Number(process.env.BENCH_ROUND_SECONDS ?? 1.5);
const VARIANTS = ['peer', 'ours', 'ours-traced'] as const;
type Variant = (typeof VARIANTS)[number];
export const CPU_RATIO_GOAL = 1.3;

export interface HandlerCpuFigures {
  /** Median CPU µs per request of each variant. */
  cpuUs: Record<Variant, number>;
  rps: Record<Variant, number>;
  /** Medians of per-round ratios to the peer. */
  ratio: number;
  tracedRatio: number;
  /** X-Ray documents the traced variant sent per request (0 would mean tracing did not run). */
  segmentsPerRequest: number;
  source: string;
}

type Reply = { ready?: boolean; ok?: boolean; error?: string; cpuUs: number; rps: number; segments: number };

function nextMessage(child: ChildProcess): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`bench child exited with ${code}`));
    child.once('exit', onExit);
    child.once('message', (message) => {
      child.off('exit', onExit);
      resolve(message as Reply);
    });
  });
}

async function run(child: ChildProcess, seconds: number): Promise<Reply> {
  const reply = nextMessage(child);
  child.send({ seconds });
  const result = await reply;
  if (!result.ok) throw new Error(result.error);
  return result;
}

export async function measureHandlerCpu(stack: RunningStack, cdkOut?: string): Promise<HandlerCpuFigures> {
  const token = await adminToken(stack);
  const otherId = await createBenchUser(stack, token, 'cpu', 'Cpu Bench');
  const children = new Map<Variant, ChildProcess>();
  try {
    for (const variant of VARIANTS) {
      const child = fork(join(REPO_ROOT, 'test/bench/handler-cpu-child.ts'), [variant], {
        execArgv: ['--import', 'tsx'],
        cwd: REPO_ROOT,
        env: {
          ...process.env,
          BENCH_TOKEN: token,
          BENCH_USERID: String(otherId),
          BENCH_CDK_OUT: cdkOut ?? '',
          DDB_ENDPOINT: stack.ddbEndpoint,
          S3_ENDPOINT: stack.s3Endpoint,
          SFN_ENDPOINT: stack.sfnEndpoint,
        },
        stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      });
      children.set(variant, child);
      const ready = await nextMessage(child);
      if (!ready.ready) throw new Error(`${variant} did not start`);
      await run(child, 1);
    }
    const rounds: Array<Record<Variant, Reply>> = [];
    for (let round = 0; round < ROUNDS; round++) {
      const row = {} as Record<Variant, Reply>;
      for (const variant of VARIANTS) row[variant] = await run(children.get(variant)!, ROUND_SECONDS);
      rounds.push(row);
    }
    const of = (pick: (row: Record<Variant, Reply>) => number) => meanMedian(rounds.map(pick));
    return {
      cpuUs: Object.fromEntries(VARIANTS.map((v) => [v, of((row) => row[v].cpuUs)])) as Record<Variant, number>,
      rps: Object.fromEntries(VARIANTS.map((v) => [v, of((row) => row[v].rps)])) as Record<Variant, number>,
      ratio: of((row) => row.ours.cpuUs / row.peer.cpuUs),
      tracedRatio: of((row) => row['ours-traced'].cpuUs / row.peer.cpuUs),
      segmentsPerRequest: of((row) => row['ours-traced'].segments),
      source: cdkOut ? 'the synthesized users bundle' : 'the users handler source',
    };
  } finally {
    for (const child of children.values()) child.kill();
  }
}

export function printHandlerCpu(figures: HandlerCpuFigures): void {
  console.log(
    `\nHandler CPU per request, GET /users/{other}, in-process, authentication cached (${figures.source}; ` +
      `${ROUNDS} interleaved rounds of ${ROUND_SECONDS} s, 10 callers; ratios: medians of per-round ratios)`,
  );
  console.table([
    {
      handler: 'peer: middy + DocumentClient',
      'CPU µs/request': Math.round(figures.cpuUs.peer),
      'req/s': Math.round(figures.rps.peer),
      'ratio to peer': '1.00',
      verdict: '',
    },
    {
      handler: 'users function, tracing off',
      'CPU µs/request': Math.round(figures.cpuUs.ours),
      'req/s': Math.round(figures.rps.ours),
      'ratio to peer': figures.ratio.toFixed(2),
      verdict: figures.ratio <= CPU_RATIO_GOAL ? `ok (≤ ${CPU_RATIO_GOAL})` : `over ${CPU_RATIO_GOAL}`,
    },
    {
      handler: `users function, tracing on (${figures.segmentsPerRequest.toFixed(1)} X-Ray documents/request)`,
      'CPU µs/request': Math.round(figures.cpuUs['ours-traced']),
      'req/s': Math.round(figures.rps['ours-traced']),
      'ratio to peer': figures.tracedRatio.toFixed(2),
      verdict: figures.tracedRatio <= CPU_RATIO_GOAL ? `ok (≤ ${CPU_RATIO_GOAL})` : `over ${CPU_RATIO_GOAL}`,
    },
  ]);
}

if (runsAlone(import.meta))
  await onStackOfItsOwn(async (stack) => printHandlerCpu(await measureHandlerCpu(stack, process.argv[2])));
