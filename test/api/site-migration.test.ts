/**
 * Issue 15's proofs through the operators' commands: `npm run export` and `npm run import` move a
 * populated site into an empty one, and `npm run migrate` crawls a running Stepwise (it speaks
 * API 2.0) into a file `npm run import` brings into another empty one. Every GET the round trip
 * compares answers the same, except what API 2.0 does not expose (MIGRATION_UNEXPOSED below).
 * Three stacks are started here: the populated source and two empty targets.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN } from '../support/api.ts';
import { startStackProcess, type RunningStack } from '../support/local-stack-process.ts';
import { runOperatorCommand } from '../support/operator-commands.ts';
import { differingPaths, populateSite, readingsOf, type Population } from '../support/site-population.ts';
import { siteAt, type Site } from '../support/site-transfer.ts';

const ADMIN_ENV = { STEPWISE_ADMIN_EMAIL: ADMIN.email, STEPWISE_ADMIN_PASSWORD: ADMIN.password };
const work = mkdtempSync(join(tmpdir(), 'stepwise-migration-'));
const migrationOutbox = mkdtempSync(join(tmpdir(), 'stepwise-migration-outbox-'));
let stacks: RunningStack[] = [];
let source: Site;
let restored: Site;
let migrated: Site;
let made: Population;

const POLL = ['--poll', '0.1'];

beforeAll(async () => {
  stacks = await Promise.all([
    startStackProcess(ADMIN_ENV),
    startStackProcess(ADMIN_ENV),
    startStackProcess({ ...ADMIN_ENV, STEPWISE_OUTBOX_DIR: migrationOutbox }),
  ]);
  [source, restored, migrated] = stacks.map((stack) => siteAt(stack.url)) as [Site, Site, Site];
  made = await populateSite(source);
}, 240_000);

afterAll(async () => {
  await Promise.all(stacks.map((stack) => stack.stop()));
});

/** The readings on both sites: each path with the differing JSON paths of its body. */
async function compare(
  before: Site,
  after: Site,
  tokenOn: (site: Site, token: string) => Promise<string>,
): Promise<Record<string, string[]>> {
  const differences: Record<string, string[]> = {};
  for (const [path, token] of readingsOf(made)) {
    const one = await before.call('GET', path, { token: await tokenOn(before, token) });
    const other = await after.call('GET', path, { token: await tokenOn(after, token) });
    expect(one.status, path).toBe(200);
    const paths = other.status === one.status ? differingPaths(one.body, other.body) : [`status ${other.status}`];
    if (paths.length > 0) differences[path] = paths;
  }
  return differences;
}

const adminOr = async (site: Site, token: string) => (token === 'admin' ? site.admin() : token);

describe('npm run export, then npm run import into an empty site', () => {
  const file = join(work, 'backup.jsonl');

  it('exports the site to a file and exits 0', async () => {
    const run = await runOperatorCommand('export', [
      '--from',
      source.url,
      '--token',
      await source.admin(),
      '--out',
      file,
      ...POLL,
    ]).done;
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^Export \S+: .* in \d+ part\(s\)/);
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(JSON.parse(lines[0]!)).toMatchObject({ type: 'header', format: 'stepwise-site' });
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ type: 'end', records: lines.length - 1 });
  });

  it('--dry-run prints the report, writes nothing and exits 0', async () => {
    const run = await runOperatorCommand('import', [
      '--to',
      restored.url,
      '--token',
      await restored.admin(),
      '--dry-run',
      ...POLL,
      file,
    ]).done;
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('validated (dry run, nothing written)');
    const report = JSON.parse(run.stdout.slice(run.stdout.indexOf('{')));
    expect(report).toMatchObject({ unknown_types: [], refusal: null });
    expect(report.counts.Guide).toBeGreaterThan(0);
    const guide = await restored.call('GET', `/guides/${made.guideid}`, { token: await restored.admin() });
    expect(guide.status).toBe(404);
  });

  it('imports the file and exits 0; the site answers the same', async () => {
    const run = await runOperatorCommand('import', [
      '--to',
      restored.url,
      '--token',
      await restored.admin(),
      ...POLL,
      file,
    ]).done;
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Import \S+ complete/);
    expect(await compare(source, restored, adminOr)).toEqual({});
  });

  it('a refused file exits 1 with the reason: empty mode into a site that is not empty', async () => {
    const run = await runOperatorCommand('import', [
      '--to',
      restored.url,
      '--token',
      await restored.admin(),
      ...POLL,
      file,
    ]).done;
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/Import \S+ failed: .*not empty/);
  });

  it('a file that is not a site file exits 2 before anything is uploaded', async () => {
    const notSite = join(work, 'not-a-site.jsonl');
    writeFileSync(notSite, '{"hello":"world"}\n');
    const run = await runOperatorCommand('import', ['--to', restored.url, '--token', 't', notSite]).done;
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('is not a site file');
  });
});

describe('npm run migrate from a live API 2.0 site, then npm run import', () => {
  const file = join(work, 'migrated.jsonl');
  let differences: Record<string, string[]>;

  beforeAll(async () => {
    const crawl = await runOperatorCommand('migrate', [
      '--from',
      source.url,
      '--token',
      await source.admin(),
      '--out',
      file,
      '--rate',
      '1000',
      '--concurrency',
      '4',
    ]).done;
    if (crawl.code !== 0) throw new Error(`migrate exited ${crawl.code}: ${crawl.stderr}`);
    const imported = await runOperatorCommand('import', [
      '--to',
      migrated.url,
      '--token',
      await migrated.admin(),
      ...POLL,
      file,
    ]).done;
    if (imported.code !== 0) throw new Error(`import exited ${imported.code}: ${imported.stderr}`);
  }, 120_000);

  it('every GET answers the same, except what API 2.0 does not expose', async () => {
    differences = await compare(source, migrated, adminOr);
    expect(differences).toEqual({});
  });
});
