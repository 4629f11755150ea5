/**
 * Loads a synthesized bundle the way the Lambda Node.js runtime does: a `.js` file is required as
 * CommonJS unless its nearest package.json says "type": "module", `.mjs` is imported, `.cjs` is
 * required. Hosts running bundles here (verify:deploy, the bench) go through this so what they
 * run and time is what a cold start runs: an ES-module `import()` of a CommonJS bundle would add
 * a scan of the whole file for its exports that Lambda never does.
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

export function loadsAsEsModule(file: string): boolean {
  if (file.endsWith('.mjs')) return true;
  if (!file.endsWith('.js')) return false;
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    if (dir.endsWith('/node_modules')) return false;
    const packageJson = join(dir, 'package.json');
    if (existsSync(packageJson)) return JSON.parse(readFileSync(packageJson, 'utf8')).type === 'module';
    if (dirname(dir) === dir) return false;
  }
}

export async function loadBundle(file: string): Promise<Record<string, unknown>> {
  if (loadsAsEsModule(file)) return import(pathToFileURL(file).href);
  return createRequire(import.meta.url)(resolve(file));
}

/** The same, as a statement for a fresh `node --input-type=module -e` process (the bench's cold imports). */
export function loadStatement(file: string): string {
  return loadsAsEsModule(file)
    ? `await import(${JSON.stringify(pathToFileURL(file).href)});`
    : `process.getBuiltinModule('node:module').createRequire(import.meta.url)(${JSON.stringify(resolve(file))});`;
}

/**
 * Runs `script` (an ES module, e.g. around loadStatement) in a fresh `node` with a function's
 * template environment and what the Lambda runtime adds (region, credentials, function name):
 * a cold start's process, for the bench's import times and verify:deploy's side-bundle check.
 */
export function runInFreshNode(
  script: string,
  fn: { environment: Record<string, string>; functionName: string },
): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    env: {
      PATH: process.env.PATH ?? '',
      ...fn.environment,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_LAMBDA_FUNCTION_NAME: fn.functionName,
    },
    encoding: 'utf8',
  });
}
