/**
 * The OpenAPI document passes Redocly's recommended rules (decision 177): no errors, and every
 * example conforms to its JSON Schema as the document states it (`no-invalid-media-type-examples`,
 * a second check beside the zod one of openapi-examples.test.ts). The
 * warnings left are the spec's own wire paths (`no-ambiguous-paths`, e.g. /users/search/{search}
 * beside /users/{userid}/badges), which stay as they are, and the missing licence. The linter
 * runs from node_modules on a file in a temp dir, with its telemetry and update check off.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { routeGroups } from '../../functions/routes.ts';
import { buildOpenApiDocument } from '../../shared/http/openapi.ts';

const run = promisify(execFile);

interface Problem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
}

it('redocly lint: no errors; only the known warnings', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'stepwise-openapi-'));
  try {
    const file = join(dir, 'openapi.json');
    await writeFile(file, JSON.stringify(buildOpenApiDocument(routeGroups)));
    const result = await run(
      process.execPath,
      ['node_modules/@redocly/cli/bin/cli.js', 'lint', file, '--format=json'],
      {
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', CI: 'true' },
        maxBuffer: 32 * 1024 * 1024,
      },
    ).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
    const report = JSON.parse(result.stdout.slice(result.stdout.indexOf('{'))) as { problems: Problem[] };
    const errors = report.problems.filter((problem) => problem.severity === 'error');
    expect(errors.map((problem) => `${problem.ruleId}: ${problem.message}`)).toEqual([]);
    const warningRules = new Set(report.problems.map((problem) => problem.ruleId));
    expect([...warningRules].sort()).toEqual(['info-license', 'no-ambiguous-paths']);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
