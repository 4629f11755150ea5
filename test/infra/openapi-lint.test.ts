/**
 * The OpenAPI document passes two linters with nothing to say (decisions 177, 264): Redocly's
 * recommended rules (redocly.yaml) and Spectral's `spectral:oas` ruleset, no error, no warning, no
 * hint. Redocly's `no-invalid-media-type-examples` is a second check of every example beside the
 * zod one of openapi-examples.test.ts. Redocly's `no-ambiguous-paths` is replaced by a check that
 * reads the path parameters' patterns too (test/support/openapi-paths.ts). Redocly runs from
 * node_modules on a file in a temp dir, with its telemetry and update check off; Spectral in process.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Document, type RulesetDefinition, Spectral } from '@stoplight/spectral-core';
import spectralParsers from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';
import { describe, expect, it } from 'vitest';
import { routeGroups } from '../../functions/routes.ts';
import { buildOpenApiDocument } from '../../shared/http/openapi.ts';
import { ambiguousPaths, ambiguousPathStrings } from '../support/openapi-paths.ts';

const run = promisify(execFile);
const document = buildOpenApiDocument(routeGroups);
const paths = document.paths as Record<string, Record<string, never>>;

/** Each linter reads the whole document (over 300 paths): a minute of CPU or more on a loaded two-core machine. */
const LINT_TIMEOUT_MS = 180_000;

interface Problem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
}

it('redocly lint: no errors, no warnings', { timeout: LINT_TIMEOUT_MS }, async () => {
  const dir = await mkdtemp(join(tmpdir(), 'stepwise-openapi-'));
  try {
    const file = join(dir, 'openapi.json');
    await writeFile(file, JSON.stringify(document));
    const result = await run(
      process.execPath,
      ['node_modules/@redocly/cli/bin/cli.js', 'lint', file, '--config=redocly.yaml', '--format=json'],
      {
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', CI: 'true' },
        maxBuffer: 32 * 1024 * 1024,
      },
    ).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
    const report = JSON.parse(result.stdout.slice(result.stdout.indexOf('{'))) as { problems: Problem[] };
    expect(report.problems.map((problem) => `${problem.severity} ${problem.ruleId}: ${problem.message}`)).toEqual([]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

it("spectral's spectral:oas ruleset: nothing at any severity", { timeout: LINT_TIMEOUT_MS }, async () => {
  const spectral = new Spectral();
  // As `extends: spectral:oas` in a .spectral.yaml: the ruleset's recommended rules (its types lag its shape).
  spectral.setRuleset(oas as RulesetDefinition);
  const results = await spectral.run(new Document(JSON.stringify(document), spectralParsers.Json, 'openapi.json'));
  expect(results.map((result) => `${result.code} at ${result.path.join('.')}: ${result.message}`)).toEqual([]);
});

describe('paths a request could match twice', () => {
  it('none: where the path strings overlap, a parameter pattern tells them apart', () => {
    // What redocly's string-only rule would report: the check below has something to decide.
    expect(ambiguousPathStrings(paths).length).toBeGreaterThan(0);
    expect(ambiguousPaths(paths)).toEqual([]);
  });

  it('are found when a pattern does not tell them apart', () => {
    const digits = { parameters: [{ name: 'id', in: 'path', schema: { pattern: '^\\d+$' } }] };
    const anyName = { parameters: [{ name: 'id', in: 'path', schema: { type: 'string' } }] };
    const search = { parameters: [{ name: 'q', in: 'path', schema: { type: 'string' } }] };
    expect(ambiguousPaths({ '/u/{id}/badges': { get: digits }, '/u/search/{q}': { get: search } })).toEqual([]);
    expect(ambiguousPaths({ '/u/{id}/badges': { get: anyName }, '/u/search/{q}': { get: search } })).toEqual([
      '/u/{id}/badges | /u/search/{q}',
    ]);
  });
});
