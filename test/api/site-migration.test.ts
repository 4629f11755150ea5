/**
 * Issue 15's proofs through the operators' commands: `npm run export` and `npm run import` move a
 * populated site into an empty one, and `npm run migrate` crawls a running Stepwise (it speaks
 * API 2.0) into a file `npm run import` brings into another empty one. Every GET the round trip
 * compares answers the same, except what API 2.0 does not expose (MIGRATION_UNEXPOSED below).
 * Three stacks are started here: the populated source and two empty targets.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as wait } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN } from '../support/api.ts';
import { startStackProcess, type RunningStack } from '../support/local-stack-process.ts';
import { runOperatorCommand } from '../support/operator-commands.ts';
import { differingPaths, onEachReading, populateSite, type Population } from '../support/site-population.ts';
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
  await onEachReading(made, async (path, token) => {
    const [one, other] = await Promise.all([
      before.call('GET', path, { token: await tokenOn(before, token) }),
      after.call('GET', path, { token: await tokenOn(after, token) }),
    ]);
    expect(one.status, path).toBe(200);
    const paths = other.status === one.status ? differingPaths(one.body, other.body) : [`status ${other.status}`];
    if (paths.length > 0) differences[path] = paths;
  });
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

/**
 * What a migrated site answers differently, by reading (the readings' ids as `{id}`), each with its
 * reason; docs/migration-content.md and docs/migration-training.md list these as not exposed.
 */
const MIGRATION_UNEXPOSED: Record<string, { paths: string[]; reason: string }> = {
  '/audit/documents/guide/{id}': {
    paths: ['head_seq', 'records'],
    reason: 'the audit trail is beyond API 2.0: a migrated document starts a new, empty chain',
  },
  '/audit/users/{id}': {
    paths: ['head_seq', 'records'],
    reason: 'the audit trail is beyond API 2.0: a migrated user starts a new, empty chain',
  },
  // Competency (docs/competency.md) is beyond API 2.0: nothing of it is crawled.
  '/qualifications/skills/{id}': { paths: ['status 404'], reason: 'skills are beyond API 2.0' },
  '/qualifications/matrix': {
    paths: ['[0].skills'],
    reason: "competency levels are beyond API 2.0: a migrated person's row names no skill",
  },
  '/acknowledgements/{id}': { paths: ['status 404'], reason: 'acknowledgements are beyond API 2.0' },
  '/acknowledgements/{id}/signatures': { paths: ['signed'], reason: 'acknowledgements are beyond API 2.0' },
  '/work_log/{id}/qualification': {
    paths: ['status 404'],
    reason: "the gate's record on a work-log entry is beyond API 2.0",
  },
  '/guides/{id}/teams': {
    paths: ['[0]'],
    reason: 'a removed team is beyond API 2.0 (/teams lists none): the grant to it names a team not crawled',
  },
  '/user/media/GuideImage/{id}': {
    paths: ['date'],
    reason: "an image's upload date shows only in its owner's library, not to the migrating Admin",
  },
};

/** A reading's path with its ids as `{id}`. */
const patternOf = (path: string) => path.replace(/\/\d+(?=\/|$)/g, '/{id}');

/** A difference is expected when its reading and its JSON path (or a parent of it) are listed. */
function unexpected(differences: Record<string, string[]>): Record<string, string[]> {
  const left: Record<string, string[]> = {};
  for (const [path, paths] of Object.entries(differences)) {
    const listed = MIGRATION_UNEXPOSED[patternOf(path)]?.paths ?? [];
    const rest = paths.filter((at) => !listed.some((known) => at === known || at.startsWith(`${known}[`)));
    if (rest.length > 0) left[path] = rest;
  }
  return left;
}

describe('npm run migrate (killed, then --resume) from a live API 2.0 site, then npm run import', () => {
  const file = join(work, 'migrated.jsonl');

  beforeAll(async () => {
    // The source's media comes from its S3 emulator, another port on loopback: the operator allows it.
    const allowHost = ['--allow-host', new URL(source.url).hostname];
    const args = ['--from', source.url, '--token', await source.admin(), '--out', file, ...allowHost];
    // Slow at first, so the crawl is still running when a few units are done; then killed outright.
    const first = runOperatorCommand('migrate', [...args, '--rate', '20', '--concurrency', '1']);
    let exited = false;
    void first.done.then(() => (exited = true));
    while (!exited) {
      const checkpoint = await readFile(`${file}.checkpoint`, 'utf8').catch(() => '');
      if (checkpoint && JSON.parse(checkpoint).done.length >= 3) break;
      await wait(50);
    }
    if (exited) throw new Error(`the crawl ended before it could be killed: ${(await first.done).stderr}`);
    first.killAll();
    await first.done;
    const resumed = await runOperatorCommand('migrate', [...args, '--resume', '--rate', '1000', '--concurrency', '4'])
      .done;
    if (resumed.code !== 0 || !resumed.stdout.includes('(resumed)'))
      throw new Error(`migrate --resume exited ${resumed.code}: ${resumed.stdout} ${resumed.stderr}`);
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

  it('the resumed crawl wrote one header, one end and every item once', async () => {
    const records = (await readFile(file, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(records.filter((record) => record.type === 'header')).toHaveLength(1);
    expect(records.at(-1)).toMatchObject({ type: 'end', records: records.length - 1 });
    const keys = records
      .filter((record) => record.type === 'item')
      .map((record) => JSON.stringify([record.item.pk, record.item.sk]));
    expect(new Set(keys).size).toBe(keys.length);
  });

  /** Each person's token on the migrated site, by their token on the source. */
  const migratedTokens = new Map<string, string>();
  const NEW_PASSWORD = 'Moved-house-2026';

  it('the operator (matched by email) still logs in; migrated users cannot with their old password', async () => {
    expect((await migrated.call('POST', '/user/token', { body: ADMIN })).status).toBe(201);
    for (const person of made.people) {
      const old = await migrated.call('POST', '/user/token', {
        body: { email: person.email, password: person.password },
      });
      expect(old.status, person.email).toBe(401);
    }
  });

  it('after the reset flow, migrated users log in with their new password', async () => {
    for (const person of made.people) {
      const asked = await migrated.call('POST', '/users/reset_password', { body: { email: person.email } });
      expect(asked.status).toBe(200);
      const mail = readdirSync(migrationOutbox)
        .map((name) => JSON.parse(readFileSync(join(migrationOutbox, name), 'utf8')))
        .find((message) => message.to === person.email && message.kind === 'password-reset');
      const token = /token=([0-9a-f]{64})/.exec(mail?.text ?? '')?.[1];
      expect(token, person.email).toBeDefined();
      const set = await migrated.call('POST', '/users/reset_password/complete', {
        body: { token, password: NEW_PASSWORD },
      });
      expect(set.status).toBe(200);
      const login = await migrated.call('POST', '/user/token', {
        body: { email: person.email, password: NEW_PASSWORD },
      });
      expect(login.status).toBe(201);
      expect(login.body.userid).toBe(person.userid);
      migratedTokens.set(person.token, login.body.authToken);
    }
  });

  it('every GET answers the same, except what API 2.0 does not expose', async () => {
    const tokenOn = async (site: Site, token: string) =>
      token === 'admin' ? site.admin() : site === migrated ? migratedTokens.get(token)! : token;
    const differences = await compare(source, migrated, tokenOn);
    expect(unexpected(differences)).toEqual({});
    // The exceptions still hold: a listed difference that no longer exists should leave the list.
    for (const pattern of Object.keys(MIGRATION_UNEXPOSED)) {
      expect(Object.keys(differences).map(patternOf), pattern).toContain(pattern);
    }
  });

  it("ids, revisionids and dates are the source's; the chains verify", async () => {
    const read = async (site: Site) =>
      (await site.call('GET', `/guides/${made.guideid}`, { token: await site.admin() })).body;
    const [before, after] = await Promise.all([read(source), read(migrated)]);
    expect(after).toMatchObject({
      guideid: before.guideid,
      revisionid: before.revisionid,
      created_date: before.created_date,
      modified_date: before.modified_date,
    });
    expect(after.steps.map((step: any) => [step.stepid, step.revisionid])).toEqual(
      before.steps.map((step: any) => [step.stepid, step.revisionid]),
    );
    const admin = await migrated.admin();
    const verified = await migrated.call('GET', `/audit/documents/guide/${made.guideid}/verify`, { token: admin });
    expect(verified.body).toMatchObject({ valid: true });
  });

  it('a new guide and a new user get ids past the highest imported', async () => {
    const [author] = made.people;
    const guide = await migrated.call('POST', '/guides', {
      token: migratedTokens.get(author!.token),
      body: { category: made.category, type: 'how-to', title: 'After the migration' },
    });
    expect(guide.status).toBe(201);
    expect(guide.body.guideid).toBeGreaterThan(made.guideid);
    const user = await migrated.call('POST', '/users', {
      token: await migrated.admin(),
      body: { email: 'new@example.com', username: 'New', password: 'pw-new-Secret', unique_username: 'new_one' },
    });
    expect(user.status).toBe(201);
    expect(user.body.userid).toBeGreaterThan(Math.max(...made.people.map((person) => person.userid)));
  });
});
