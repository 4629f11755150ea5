/**
 * Bench section: every deployed bundle as synthesized (cdk.out, AWS SDK included), its size
 * and its import time, the median of several fresh `node` processes each importing the bundle
 * once (what a cold start pays on top of the runtime's own start), with the function's template
 * environment. The aims are in the process's CPU time for the import (issue 36: <= 100 ms for every
 * API function, <= 50 ms their median); wall time is printed beside it, but on a shared machine it
 * mostly measures the neighbours.
 * Runs on its own too: `npx tsx test/bench/bundle-cold-start.ts [cdk.out folder] [name part ...]`: the
 * name parts keep only the functions whose description holds one (`... .bench/cdk.out sso work-log`).
 * `BENCH_BASELINE=<another cdk.out>` times that build's function of the same description in the same
 * rounds, interleaved, and prints both: on a shared machine the only before/after worth reading.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../../infra/repo-paths.ts';
import { loadStatement, runInFreshNode } from '../../infra/verify/load-bundle.ts';
import { LOCAL_RESOURCE_NAMES, readAssembly, type SynthesizedFunction } from '../../infra/verify/template.ts';
import { runsAlone } from './alone.ts';

/**
 * Fresh processes per bundle: API functions (the aim is theirs; five, since with three one run's
 * median for an unchanged bundle moved by 10 ms and more), pipeline functions.
 */
const RUNS = Number(process.env.BENCH_IMPORT_RUNS ?? 5);
const PIPELINE_RUNS = Math.min(RUNS, 3);
const API_IMPORT_AIM_MS = 100;
const API_MEDIAN_AIM_MS = 50;

/** Synthesizes the app (with bundling) into `outdir`; about half a minute. */
export function synthesize(outdir: string): void {
  const result = spawnSync('npx', ['cdk', 'synth', '--quiet', '-o', outdir], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, CDK_DISABLE_VERSION_CHECK: '1' },
  });
  // esbuild reports every bundle on stderr: shown only when synthesis fails.
  if (result.status !== 0) throw new Error(`cdk synth failed (${result.status})\n${result.stderr}`);
}

/**
 * One fresh process: wall and CPU milliseconds from just before loading the bundle to the module
 * evaluated, loaded as the Lambda runtime loads it (CommonJS required, ES modules imported).
 */
function importOnce(fn: SynthesizedFunction): { wallMs: number; cpuMs: number } {
  const script =
    `const c=process.cpuUsage(),t=performance.now();${loadStatement(fn.bundleFile)}` +
    `const w=performance.now()-t,u=process.cpuUsage(c);` +
    `process.stdout.write(JSON.stringify([w,(u.user+u.system)/1e3]));`;
  const result = runInFreshNode(script, fn);
  if (result.status !== 0) throw new Error(`importing ${fn.bundleFile} failed: ${result.stderr}`);
  const [wallMs, cpuMs] = JSON.parse(result.stdout) as [number, number];
  return { wallMs, cpuMs };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export interface BundleFigure {
  function: string;
  kind: 'api' | 'pipeline';
  bytes: number;
  importMs: number;
  cpuMs: number;
  /** The baseline build's function of the same description, timed in the same rounds (BENCH_BASELINE). */
  baseline?: { bytes: number; importMs: number; cpuMs: number };
}

type Times = Array<{ wallMs: number; cpuMs: number }>;

export function measureBundles(cdkOut: string, only: string[] = [], baselineOut?: string): BundleFigure[] {
  const assembly = readAssembly(cdkOut, LOCAL_RESOURCE_NAMES);
  const baseline = baselineOut ? readAssembly(baselineOut, LOCAL_RESOURCE_NAMES) : undefined;
  const baselineOf = new Map([...(baseline?.functions.values() ?? [])].map((fn) => [fn.description, fn]));
  const chosen = [...assembly.functions.values()].filter(
    (fn) => only.length === 0 || only.some((part) => fn.description.includes(part)),
  );
  const bundles = chosen.map((fn) => ({
    fn,
    before: baselineOf.get(fn.description),
    kind: fn.stack.includes('-Api') ? ('api' as const) : ('pipeline' as const),
    times: [] as Times,
    beforeTimes: [] as Times,
  }));
  // Round by round over every bundle, not one bundle's runs in a row: load that comes and goes on
  // this machine then slows every bundle alike instead of whichever was being timed (decision 144).
  // With a baseline, its bundle goes first in odd rounds and second in even ones.
  for (let round = 0; round < Math.max(RUNS, PIPELINE_RUNS); round++) {
    for (const bundle of bundles) {
      if (round >= (bundle.kind === 'api' ? RUNS : PIPELINE_RUNS)) continue;
      const timeBefore = () => bundle.before && bundle.beforeTimes.push(importOnce(bundle.before));
      if (round % 2) timeBefore();
      bundle.times.push(importOnce(bundle.fn));
      if (!(round % 2)) timeBefore();
    }
  }
  const figures: BundleFigure[] = bundles.map(({ fn, before, kind, times, beforeTimes }) => ({
    function: fn.description.replace(/^Stepwise /, ''),
    kind,
    bytes: statSync(fn.bundleFile).size,
    importMs: median(times.map((time) => time.wallMs)),
    cpuMs: median(times.map((time) => time.cpuMs)),
    ...(before && {
      baseline: {
        bytes: statSync(before.bundleFile).size,
        importMs: median(beforeTimes.map((time) => time.wallMs)),
        cpuMs: median(beforeTimes.map((time) => time.cpuMs)),
      },
    }),
  }));
  return figures.sort((a, b) => a.kind.localeCompare(b.kind) || b.importMs - a.importMs);
}

export function printBundles(figures: BundleFigure[]): void {
  console.log(
    `\nDeployed bundles as synthesized (AWS SDK bundled): size and import time, median of ${RUNS} rounds of ` +
      `fresh node processes (pipeline functions ${PIPELINE_RUNS})`,
  );
  console.table(
    figures.map((figure) => ({
      function: figure.function,
      ...(figure.baseline && {
        'KB before': (figure.baseline.bytes / 1024).toFixed(0),
        'import ms before': figure.baseline.importMs.toFixed(0),
        'CPU ms before': figure.baseline.cpuMs.toFixed(0),
      }),
      KB: (figure.bytes / 1024).toFixed(0),
      'import ms': figure.importMs.toFixed(0),
      'CPU ms': figure.cpuMs.toFixed(0),
      [`CPU within ${API_IMPORT_AIM_MS} ms`]:
        figure.kind === 'api' ? (figure.cpuMs <= API_IMPORT_AIM_MS ? 'yes' : 'NO') : '-',
    })),
  );
  const api = figures.filter((figure) => figure.kind === 'api');
  console.log(
    `API functions: median import ${median(api.map((figure) => figure.importMs)).toFixed(0)} ms, slowest ` +
      `${Math.max(...api.map((figure) => figure.importMs)).toFixed(0)} ms (CPU: median ` +
      `${median(api.map((figure) => figure.cpuMs)).toFixed(0)} ms, most ` +
      `${Math.max(...api.map((figure) => figure.cpuMs)).toFixed(0)} ms); ` +
      `${api.filter((figure) => figure.cpuMs > API_IMPORT_AIM_MS).length} of ${api.length} over ` +
      `${API_IMPORT_AIM_MS} ms of CPU; median aim ${API_MEDIAN_AIM_MS} ms of CPU`,
  );
  const compared = api.filter((figure) => figure.baseline);
  const before = compared.map((figure) => figure.baseline!.cpuMs);
  if (compared.length)
    console.log(
      `Baseline (same rounds): API median CPU ${median(before).toFixed(0)} ms, most ` +
        `${Math.max(...before).toFixed(0)} ms; ${before.filter((cpuMs) => cpuMs > API_IMPORT_AIM_MS).length} of ` +
        `${compared.length} over ${API_IMPORT_AIM_MS} ms; median ratio of CPU after/before ` +
        `${median(compared.map((figure) => figure.cpuMs / figure.baseline!.cpuMs)).toFixed(2)}`,
    );
}

if (runsAlone(import.meta)) {
  const [folder, ...only] = process.argv.slice(2);
  const cdkOut = folder ?? join(REPO_ROOT, '.bench', 'cdk.out');
  if (!folder || !existsSync(join(cdkOut, 'manifest.json'))) synthesize(cdkOut);
  printBundles(measureBundles(cdkOut, only, process.env.BENCH_BASELINE));
}
