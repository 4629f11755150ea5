/**
 * `npm run migrate` against the local stack (Stepwise speaks API 2.0): the users crawler (users and their badges)
 * end to end, sign-in by email and password, and a crawl killed with SIGKILL then resumed.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as wait } from 'node:timers/promises';
import { siteRecordSchema, type SiteRecord } from '../../shared/site-archive/records.ts';
import { ADMIN, api, apiUrl, createUser, loginAdmin, type TestUser } from '../support/api.ts';

function startMigrate(
  args: string[],
  env: Record<string, string> = {},
): {
  child: ChildProcess;
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
} {
  const child = spawn(process.execPath, ['--import', 'tsx', 'infra/ops/migrate/main.ts', ...args], {
    env: { ...process.env, LOG_LEVEL: 'ERROR', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  );
  return { child, done };
}

async function recordsOf(file: string): Promise<SiteRecord[]> {
  const text = await readFile(file, 'utf8');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => siteRecordSchema.parse(JSON.parse(line)));
}

/**
 * A source that is the local stack with only `userids` listed: `GET /users` and
 * `GET /users/created_users` answer those users (pages by offset and limit, ascending, as the
 * stack does), everything else is passed through as it is. A crawl of it costs the same however
 * many users the rest of the suite has made on the shared stack.
 */
async function scopedSource(userids: number[], token: string): Promise<{ url: string; server: Server }> {
  const upstream = new URL(apiUrl());
  const base = upstream.pathname.replace(/\/+$/, '');
  const listed = [...userids].sort((a, b) => a - b);
  // Which of them the migrating account created (the crawler credits those to it), read once.
  const created = new Set<number>();
  for (let offset = 0; ; offset += 100) {
    const page = await api('GET', `/users/created_users?offset=${offset}&limit=100`, { token });
    expect(page.status).toBe(200);
    for (const user of page.body as Array<{ userid: number }>)
      if (listed.includes(user.userid)) created.add(user.userid);
    if (page.body.length < 100) break;
  }
  const server = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? '/', 'http://source');
      const answerList = (ids: number[]) => {
        const offset = Number(url.searchParams.get('offset') ?? 0);
        const limit = Number(url.searchParams.get('limit') ?? 20);
        const page = ids.slice(offset, offset + limit).map((userid) => ({ userid }));
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(page));
      };
      if (request.method === 'GET' && url.pathname === `${base}/users`) return answerList(listed);
      if (request.method === 'GET' && url.pathname === `${base}/users/created_users`)
        return answerList(listed.filter((userid) => created.has(userid)));
      const forwarded = await fetch(new URL(`${url.pathname}${url.search}`, upstream.origin), {
        method: request.method ?? 'GET',
        headers: request.headers.authorization ? { authorization: request.headers.authorization } : {},
      });
      response.writeHead(forwarded.status, {
        'content-type': forwarded.headers.get('content-type') ?? 'application/octet-stream',
      });
      response.end(Buffer.from(await forwarded.arrayBuffer()));
    })().catch((error: unknown) => response.writeHead(502).end(String(error)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${base}`, server };
}

type ItemRecord = Extract<SiteRecord, { type: 'item' }>;
const itemsOf = (records: SiteRecord[]) => records.filter((record): record is ItemRecord => record.type === 'item');
const pkOf = (record: ItemRecord) => (record.item.pk as { S: string }).S;

let users: TestUser[];
let outDir: string;

beforeAll(async () => {
  outDir = await mkdtemp(path.join(tmpdir(), 'migrate-api-'));
  const admin = await loginAdmin();
  users = await Promise.all(Array.from({ length: 6 }, () => createUser()));
  for (const user of users) {
    const patched = await api('PATCH', `/users/${user.userid}`, { token: admin, body: { about_raw: 'Shop floor.' } });
    expect(patched.status).toBe(200);
  }
});

describe('npm run migrate', () => {
  it('signs in by email and password (from the environment) and writes a site file the import reads', async () => {
    const out = path.join(outDir, 'site.jsonl');
    const run = await startMigrate(
      ['--from', apiUrl(), '--email', ADMIN.email, '--out', out, '--rate', '100', '--only', 'users'],
      { STEPWISE_MIGRATE_PASSWORD: ADMIN.password },
    ).done;
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Badge:');
    const records = await recordsOf(out);
    expect(records[0]).toMatchObject({
      type: 'header',
      format: 'stepwise-site',
      source: { kind: 'migration', base_url: apiUrl() },
    });
    const end = records.at(-1)!;
    expect(end).toMatchObject({ type: 'end', records: records.length - 1, objects: 0 });
    const badges = itemsOf(records).filter((record) => record.entity === 'Badge');
    for (const user of users) {
      const badge = badges.find((record) => pkOf(record) === `USER#${user.userid}`);
      expect(badge?.item).toMatchObject({
        sk: { S: 'BADGE#autobiographer' },
        entity: { S: 'Badge' },
        userid: { N: String(user.userid) },
        level: { S: 'bronze' },
      });
    }
    const counter = itemsOf(records).find((record) => pkOf(record) === 'COUNTER#user');
    expect(counter?.entity).toBe('Counter');
    const highest = Math.max(...users.map((user) => user.userid));
    expect(Number((counter!.item.value as { N: string }).N)).toBeGreaterThanOrEqual(highest);
    const report = JSON.parse(await readFile(`${out}.report.json`, 'utf8'));
    expect(report.counts.Badge).toBe(badges.length);
    expect(report.crawlers).toEqual(['users']);
  });

  it('stops with a clear error and a non-zero exit on a wrong password', async () => {
    const run = await startMigrate(
      ['--from', apiUrl(), '--email', users[0]!.email, '--out', path.join(outDir, 'refused.jsonl')],
      { STEPWISE_MIGRATE_PASSWORD: 'not-the-password' },
    ).done;
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('the source refused the credentials (401');
  });

  it('warns when the account is not an Admin (the file holds only what it may see)', async () => {
    const out = path.join(outDir, 'plain-user.jsonl');
    const run = await startMigrate([
      '--from',
      apiUrl(),
      '--token',
      users[1]!.token,
      '--out',
      out,
      '--rate',
      '100',
      '--only',
      'users',
    ]).done;
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('this account is not an Admin');
  });

  it('refuses bad arguments with the usage and exit code 2', async () => {
    const run = await startMigrate(['--from', 'http://example.com/', '--token', 't', '--out', 'x.jsonl']).done;
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('ending in /api/2.0');
  });

  it('resumes after a SIGKILL into a file with every record once', async () => {
    // Its own users only (a source listing just them): the same work whatever else the stack holds.
    const token = await loginAdmin();
    const source = await scopedSource(
      users.map((user) => user.userid),
      token,
    );
    try {
      await killedAndResumed(source.url, token);
    } finally {
      await new Promise<void>((resolve) => source.server.close(() => resolve()));
    }
  });
});

async function killedAndResumed(from: string, token: string) {
  const out = path.join(outDir, 'killed.jsonl');
  const args = ['--from', from, '--token', token, '--out', out, '--only', 'users'];
  // The same users' records as an uninterrupted crawl, made meanwhile into a file of its own.
  const whole = path.join(outDir, 'whole.jsonl');
  const uninterruptedRun = startMigrate([
    '--from',
    from,
    '--token',
    token,
    '--out',
    whole,
    '--rate',
    '100',
    '--only',
    'users',
  ]).done;
  const first = startMigrate([...args, '--concurrency', '1', '--rate', '4']);
  let exited = false;
  void first.done.then(() => (exited = true));
  // Kill once some users are done: wait for a checkpoint that lists finished units.
  while (!exited) {
    const checkpoint = await readFile(`${out}.checkpoint`, 'utf8').catch(() => '');
    if (checkpoint && JSON.parse(checkpoint).done.length >= 2) break;
    await wait(50);
  }
  expect(exited, 'the crawl finished before it could be killed').toBe(false);
  first.child.kill('SIGKILL');
  await first.done;

  const resumed = await startMigrate([...args, '--resume', '--rate', '100']).done;
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(resumed.stdout).toContain('(resumed)');
  const records = await recordsOf(out);
  expect(records.filter((record) => record.type === 'header')).toHaveLength(1);
  expect(records.at(-1)).toMatchObject({ type: 'end', records: records.length - 1 });
  const keys = itemsOf(records).map((record) => JSON.stringify([record.item.pk, record.item.sk]));
  expect(new Set(keys).size).toBe(keys.length);

  const uninterrupted = await uninterruptedRun;
  expect(uninterrupted.code, uninterrupted.stderr).toBe(0);
  const mine = new Set(users.map((user) => `USER#${user.userid}`));
  const ofMine = (list: SiteRecord[]) =>
    itemsOf(list)
      .filter((record) => mine.has(pkOf(record)))
      .map((record) => JSON.stringify(record))
      .sort();
  expect(ofMine(records)).toEqual(ofMine(await recordsOf(whole)));
  // Each user's own item and badge at least.
  expect(ofMine(records).length).toBeGreaterThanOrEqual(2 * users.length);
  // Nothing but its own users was crawled, so the whole file is theirs and the same both ways.
  const crawled = itemsOf(records).filter((record) => (record.item.entity as { S?: string } | undefined)?.S === 'User');
  expect(crawled.map(pkOf).sort()).toEqual([...mine].sort());
}
