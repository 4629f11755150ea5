/**
 * The data directory lock on its own (infra/local/data-dir-lock.ts): exclusive while its owner
 * lives, reclaimed from a dead owner, given back on release. test/local/stack-lifecycle.test.ts
 * covers the same rules with real stacks.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DataDirInUseError, isProcessAlive, LOCK_FILE_NAME, lockDataDir } from '../../infra/local/data-dir-lock.ts';

const directories: string[] = [];
function dataDir(): string {
  const directory = mkdtempSync(join(tmpdir(), 'stepwise-lock-'));
  directories.push(directory);
  return directory;
}

/** The pid of a process that has already ended. */
function deadPid(): number {
  return spawnSync(process.execPath, ['-e', '0']).pid!;
}

afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

describe('data directory lock', () => {
  it('is taken once: a second take while the owner lives is refused, naming the owner', async () => {
    const directory = dataDir();
    const lock = await lockDataDir(directory);
    expect(JSON.parse(readFileSync(join(directory, LOCK_FILE_NAME), 'utf8'))).toMatchObject({
      pid: process.pid,
      children: {},
    });
    await expect(lockDataDir(directory)).rejects.toThrow(
      new RegExp(`in use by another Stepwise local stack \\(pid ${process.pid}`),
    );
    await expect(lockDataDir(directory)).rejects.toBeInstanceOf(DataDirInUseError);

    lock.addChild('dynamodb', 12345);
    expect(JSON.parse(readFileSync(join(directory, LOCK_FILE_NAME), 'utf8')).children).toEqual({ dynamodb: 12345 });
    lock.release();
    expect(existsSync(join(directory, LOCK_FILE_NAME))).toBe(false);
    (await lockDataDir(directory)).release();
  });

  it('reclaims the lock of a dead owner whose children are gone', async () => {
    const directory = dataDir();
    const dead = deadPid();
    expect(isProcessAlive(dead)).toBe(false);
    writeFileSync(
      join(directory, LOCK_FILE_NAME),
      JSON.stringify({ pid: dead, started: '2026-01-01T00:00:00.000Z', children: { dynamodb: deadPid() } }),
    );
    const lock = await lockDataDir(directory);
    expect(JSON.parse(readFileSync(join(directory, LOCK_FILE_NAME), 'utf8')).pid).toBe(process.pid);
    lock.release();
  });

  it('refuses a lock another start is still writing (fresh and unreadable)', async () => {
    const directory = dataDir();
    writeFileSync(join(directory, LOCK_FILE_NAME), '');
    await expect(lockDataDir(directory)).rejects.toThrow(/Another Stepwise local stack is starting/);
  });
});
