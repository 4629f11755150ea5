/**
 * Every side bundle (decision 155) of every synthesized function loads: a fresh `node` requires
 * it with the function's environment, as the first request that needs it would in Lambda. The
 * API tests reach most of them, but not all: `#ses-mail` only runs where mail goes to SES, and
 * verify:deploy sends mail to the outbox.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadStatement } from './load-bundle.ts';
import { readAssembly } from './template.ts';

export interface SideBundleCheck {
  loaded: number;
  failures: string[];
}

export function checkSideBundles(cdkOut: string): SideBundleCheck {
  const assembly = readAssembly(cdkOut, {
    TABLE_NAME: 'stepwise',
    MEDIA_BUCKET: 'stepwise-media',
    MODULES_BUCKET: 'stepwise-modules',
    MODULE_IMPORT_STATE_MACHINE_ARN: 'arn:aws:states:us-east-1:000000000000:stateMachine:stepwise-module-import',
  });
  const result: SideBundleCheck = { loaded: 0, failures: [] };
  for (const fn of assembly.functions.values()) {
    if (!fn.assetDir) continue;
    const packageJson = JSON.parse(readFileSync(join(fn.assetDir, 'package.json'), 'utf8'));
    const imports = Object.entries<string>(packageJson.imports ?? {});
    // Only the side bundles this bundle loads were built into its asset.
    for (const [name, file] of imports.map(([name, target]) => [name, join(fn.assetDir, target)] as const)) {
      if (!existsSync(file)) continue;
      const loaded = spawnSync(process.execPath, ['--input-type=module', '-e', loadStatement(file)], {
        env: {
          PATH: process.env.PATH ?? '',
          ...fn.environment,
          AWS_REGION: 'us-east-1',
          AWS_ACCESS_KEY_ID: 'verify',
          AWS_SECRET_ACCESS_KEY: 'verify',
        },
        encoding: 'utf8',
      });
      if (loaded.status === 0) result.loaded++;
      else result.failures.push(`${fn.description}: ${name} (${file}) does not load: ${loaded.stderr.trim()}`);
    }
  }
  return result;
}
