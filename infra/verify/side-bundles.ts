/**
 * Every side bundle (decision 155) of every synthesized function loads: a fresh `node` requires
 * it with the function's environment, as the first request that needs it would in Lambda. The
 * API tests reach most of them, but not all: `#ses-mail` only runs where mail goes to SES, and
 * verify:deploy sends mail to the outbox.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadStatement, runInFreshNode } from './load-bundle.ts';
import { LOCAL_RESOURCE_NAMES, readAssembly } from './template.ts';

export interface SideBundleCheck {
  loaded: number;
  failures: string[];
}

export function checkSideBundles(cdkOut: string): SideBundleCheck {
  const assembly = readAssembly(cdkOut, LOCAL_RESOURCE_NAMES);
  const result: SideBundleCheck = { loaded: 0, failures: [] };
  for (const fn of assembly.functions.values()) {
    if (!fn.assetDir) continue;
    const packageJson = JSON.parse(readFileSync(join(fn.assetDir, 'package.json'), 'utf8'));
    const imports = Object.entries<string>(packageJson.imports ?? {});
    // Only the side bundles this bundle loads were built into its asset.
    for (const [name, file] of imports.map(([name, target]) => [name, join(fn.assetDir, target)] as const)) {
      if (!existsSync(file)) continue;
      const loaded = runInFreshNode(loadStatement(file), fn);
      if (loaded.status === 0) result.loaded++;
      else result.failures.push(`${fn.description}: ${name} (${file}) does not load: ${loaded.stderr.trim()}`);
    }
  }
  return result;
}
