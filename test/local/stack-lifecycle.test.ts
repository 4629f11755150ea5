/**
 * The local stack's processes and its data directory (infra/local/dynamodb.ts,
 * parent-watchdog.mjs, data-dir-lock.ts): `npm start` killed with SIGKILL leaves no JVM behind,
 * a second start on a directory a live stack holds is refused with a clear message, and a
 * start after a crash reclaims the directory and finds the data.
 */
import { readFileSync, existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isProcessAlive, LOCK_FILE_NAME, type LockContent } from '../../infra/local/data-dir-lock.ts';
import { startStackOnDataDir, waitUntil, type RunningStack } from '../support/local-stack-process.ts';

const ADMIN = { email: 'admin@example.com', password: 'stepwise-admin' };
const started: RunningStack[] = [];
let dataDir: string;
const jvms: number[] = [];
const dirs: string[] = [];

afterAll(async () => {
  await Promise.all(started.map((stack) => stack.stop()));
  for (const pid of jvms.filter(isProcessAlive)) process.kill(pid, 'SIGKILL');
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

const readLock = (): LockContent => JSON.parse(readFileSync(join(dataDir, LOCK_FILE_NAME), 'utf8'));

async function login(stack: RunningStack): Promise<number> {
  const response = await fetch(`${stack.url}/user/token`, { method: 'POST', body: JSON.stringify(ADMIN) });
  return response.status;
}

describe('local stack lifecycle on a data directory', () => {
  it('kill -9 ends the JVM too; a live holder is refused; a dead one is reclaimed', { timeout: 240_000 }, async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'stepwise-lifecycle-'));
    dirs.push(dataDir);
    const first = await startStackOnDataDir(dataDir);
    started.push(first);
    const lock = readLock();
    expect(lock.pid).toBe(first.child.pid);
    const jvm = lock.children.dynamodb!;
    const watchdog = lock.children['dynamodb-watchdog']!;
    expect(isProcessAlive(jvm)).toBe(true);
    expect(await login(first)).toBe(201);

    // A second stack on the same directory while the first lives: refused, by name, nothing started.
    const refused = await startStackOnDataDir(dataDir).then(
      () => 'started',
      (error: Error) => error.message,
    );
    expect(refused).toMatch(new RegExp(`in use by another Stepwise local stack \\(pid ${first.child.pid}`));
    expect(readLock().pid).toBe(first.child.pid);

    first.child.kill('SIGKILL');
    await waitUntil(`JVM ${jvm} to end after its parent was killed`, () => !isProcessAlive(jvm));
    await waitUntil(`watchdog ${watchdog} to end`, () => !isProcessAlive(watchdog));

    // The dead holder's lock is reclaimed and the data is there (the Admin is not created again).
    const again = await startStackOnDataDir(dataDir);
    started.push(again);
    const reclaimed = readLock();
    expect(reclaimed.pid).toBe(again.child.pid);
    expect(await login(again)).toBe(201);

    // A clean stop ends the JVM before it gives the directory back.
    await again.stop();
    expect(isProcessAlive(reclaimed.children.dynamodb!)).toBe(false);
    expect(existsSync(join(dataDir, LOCK_FILE_NAME))).toBe(false);
  });

  // Issue 23 item 10: the watchdog alone killed must not leave a JVM on the files a next stack opens.
  // setpriv is turned off here, as on a platform without it: the stop and the lock must hold alone
  // (test/local/parent-watchdog.test.ts proves the kernel's part).
  it('kill -9 on the watchdog alone: the JVM is gone before the directory is given back', {
    timeout: 240_000,
  }, async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'stepwise-watchdog-'));
    dirs.push(dataDir);
    const first = await startStackOnDataDir(dataDir, { STEPWISE_WATCHDOG_NO_PDEATHSIG: '1' });
    started.push(first);
    const { dynamodb: jvm, 'dynamodb-watchdog': watchdog } = readLock().children;
    jvms.push(jvm!);
    process.kill(watchdog!, 'SIGKILL');
    await waitUntil(`watchdog ${watchdog} to end`, () => !isProcessAlive(watchdog!));
    // The hazard itself: the JVM outlived its watchdog and still has the files open.
    expect(isProcessAlive(jvm!)).toBe(true);
    // The stack's stop ends the JVM before it releases the lock.
    await first.stop();
    expect(isProcessAlive(jvm!)).toBe(false);
    expect(existsSync(join(dataDir, LOCK_FILE_NAME))).toBe(false);

    const second = await startStackOnDataDir(dataDir);
    started.push(second);
    expect(await login(second)).toBe(201);
    await second.stop();
  });
});
