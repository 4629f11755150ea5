/**
 * Where a deployed bundle's import time goes: imports the bundle once in a fresh `node
 * --cpu-prof` process (the function's template environment, as bundle-cold-start.ts does),
 * maps every sample through the bundle's source map and prints the source files (and the
 * packages under node_modules) with the most time, self and by module evaluation.
 *   npx tsx test/bench/import-profile.ts <cdk.out folder> [function description part ...]
 * Used to find what a cold start pays for (docs/benchmarks.md, "Cold start").
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadStatement } from '../../infra/verify/load-bundle.ts';
import { readAssembly, type SynthesizedFunction } from '../../infra/verify/template.ts';
import { runsAlone } from './alone.ts';

interface ProfileNode {
  id: number;
  callFrame: { url: string; lineNumber: number; columnNumber: number; functionName: string };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** A source path as a short label: the npm package, or the project file. */
function label(source: string): string {
  const nodeModules = source.lastIndexOf('node_modules/');
  if (nodeModules >= 0) {
    const rest = source.slice(nodeModules + 'node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  return source.replace(/^(\.\.\/)+/, '');
}

export interface ImportCost {
  source: string;
  /** Samples whose own frame is in this source. */
  selfMs: number;
  /** Samples with this source anywhere on the stack: its module's evaluation and what it calls. */
  totalMs: number;
}

export function profileImport(fn: SynthesizedFunction): ImportCost[] {
  const file = fn.bundleFile;
  const dir = mkdtempSync(join(tmpdir(), 'stepwise-import-profile-'));
  try {
    const script = loadStatement(file);
    const result = spawnSync(
      process.execPath,
      ['--cpu-prof', '--cpu-prof-dir', dir, '--cpu-prof-interval', '100', '--input-type=module', '-e', script],
      {
        env: {
          PATH: process.env.PATH ?? '',
          ...fn.environment,
          AWS_REGION: 'us-east-1',
          AWS_ACCESS_KEY_ID: 'bench',
          AWS_SECRET_ACCESS_KEY: 'bench',
        },
        encoding: 'utf8',
      },
    );
    if (result.status !== 0) throw new Error(`importing ${file} failed: ${result.stderr}`);
    const profile = JSON.parse(readFileSync(join(dir, readdirSync(dir)[0]), 'utf8')) as Profile;
    const map = new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8')));
    const bundleUrl = pathToFileURL(file).href;
    const byNode = new Map(profile.nodes.map((node) => [node.id, node]));
    const parentOf = new Map<number, number>();
    for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
    const sourceOf = (node: ProfileNode): string => {
      const { url, lineNumber, columnNumber, functionName } = node.callFrame;
      if (url === bundleUrl) {
        const entry = map.findEntry(lineNumber, columnNumber) as { originalSource?: string };
        return entry.originalSource ? label(entry.originalSource) : '(bundle, unmapped)';
      }
      if (url) return url.startsWith('node:') ? url : '(other script)';
      return functionName ? `(${functionName})` : '(engine)';
    };
    const selfUs = new Map<string, number>();
    const totalUs = new Map<string, number>();
    profile.samples.forEach((nodeId, index) => {
      const delta = profile.timeDeltas[index] ?? 0;
      const own = sourceOf(byNode.get(nodeId)!);
      selfUs.set(own, (selfUs.get(own) ?? 0) + delta);
      const onStack = new Set<string>();
      for (let id: number | undefined = nodeId; id !== undefined; id = parentOf.get(id))
        onStack.add(sourceOf(byNode.get(id)!));
      for (const source of onStack) totalUs.set(source, (totalUs.get(source) ?? 0) + delta);
    });
    return [...totalUs]
      .map(([source, us]) => ({ source, selfMs: (selfUs.get(source) ?? 0) / 1000, totalMs: us / 1000 }))
      .sort((a, b) => b.selfMs - a.selfMs);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (runsAlone(import.meta)) {
  const [cdkOut, ...filters] = process.argv.slice(2);
  if (!cdkOut) throw new Error('usage: import-profile.ts <cdk.out folder> [function description part ...]');
  const assembly = readAssembly(cdkOut, {
    TABLE_NAME: 'stepwise',
    MEDIA_BUCKET: 'stepwise-media',
    MODULES_BUCKET: 'stepwise-modules',
    MODULE_IMPORT_STATE_MACHINE_ARN: 'arn:aws:states:us-east-1:000000000000:stateMachine:stepwise-module-import',
  });
  for (const fn of assembly.functions.values()) {
    if (filters.length && !filters.some((filter) => fn.description.includes(filter))) continue;
    const rows = profileImport(fn);
    const total = rows.reduce((sum, row) => sum + row.selfMs, 0);
    console.log(`\n${fn.description}: ${total.toFixed(0)} ms sampled; by own time:`);
    for (const row of rows.slice(0, 10)) console.log(`  ${row.selfMs.toFixed(1).padStart(7)} ms  ${row.source}`);
    console.log('  project files by time on the stack (their module evaluation and what it calls):');
    const project = rows.filter((row) => /^(functions|shared|infra)\//.test(row.source));
    for (const row of project.sort((a, b) => b.totalMs - a.totalMs).slice(0, Number(process.env.PROFILE_ROWS ?? 10)))
      console.log(`  ${row.totalMs.toFixed(1).padStart(7)} ms  ${row.source}`);
  }
}
