/**
 * One local stack per data directory. DynamoDB Local keeps its SQLite files open; two JVMs on
 * the same files corrupt them. `<dataDir>/stepwise.lock` holds the owner's pid and the pids of
 * its child processes; it is created with O_EXCL (the atomic "create if absent"), so of two
 * starts only one wins. A lock whose owner is dead is reclaimed once its children are gone too
 * (the watchdog stops the JVM within seconds of its parent's death); a live owner is refused
 * with a message naming it. The owner gives the lock back only once its recorded children are
 * gone (dynamodb.ts ends a JVM that outlived its watchdog before this): one still running keeps
 * the lock, so a later start waits for it or refuses naming it.
 */
import { closeSync, linkSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const LOCK_FILE_NAME = 'stepwise.lock';
/** How long a start waits for a dead owner's children to end before refusing. */
const CHILDREN_GRACE_MS = 15_000;

export interface LockContent {
  pid: number;
  started: string;
  /** Child processes that use the data directory, by role (e.g. dynamodb: the JVM). */
  children: Record<string, number>;
}

export class DataDirInUseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DataDirInUseError';
  }
}

export interface DataDirLock {
  path: string;
  /** Records a child process so a later start waits for it after a crash. */
  addChild(role: string, pid: number): void;
  release(): void;
}

/** True while `pid` runs (a zombie, dead but not yet reaped, counts as gone). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    // Linux: field 3 of /proc/<pid>/stat is the state; Z = zombie.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return true; // no /proc: trust kill(0)
  }
}

/** A lock file younger than this with unreadable content is one another start is writing. */
const FRESH_LOCK_MS = 5000;

function readLock(path: string): LockContent | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as LockContent;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    let fresh = false;
    try {
      fresh = Date.now() - statSync(path).mtimeMs < FRESH_LOCK_MS;
    } catch {
      return undefined;
    }
    if (fresh) throw new DataDirInUseError(`Another Stepwise local stack is starting on ${path}`);
    // Old and unreadable: an owner that can be checked no further (pid 0 = dead).
    return { pid: 0, started: '', children: {} };
  }
}

function createExclusive(path: string, content: LockContent): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    writeFileSync(fd, JSON.stringify(content));
  } finally {
    closeSync(fd);
  }
  return true;
}

async function waitForChildren(content: LockContent, path: string): Promise<void> {
  const deadline = Date.now() + CHILDREN_GRACE_MS;
  for (;;) {
    const alive = Object.entries(content.children ?? {}).filter(([, pid]) => isProcessAlive(pid));
    if (alive.length === 0) return;
    if (Date.now() > deadline) {
      throw new DataDirInUseError(
        `The local stack that held ${path} (pid ${content.pid}) is gone, but its ` +
          `${alive.map(([role, pid]) => `${role} (pid ${pid})`).join(', ')} still runs. Stop it, then start again.`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Moves a dead owner's lock aside and checks it was that lock (not a racer's new one) that
 * moved; a racer's lock is put back.
 */
function setAside(path: string, stale: LockContent): void {
  const aside = `${path}.stale-${process.pid}`;
  try {
    renameSync(path, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return; // another start removed it
    throw error;
  }
  const moved = readLock(aside);
  if (moved && (moved.pid !== stale.pid || moved.started !== stale.started)) {
    try {
      linkSync(aside, path); // a live racer's lock: restore it (fails only if yet another start made one)
    } catch {
      // the racer lost its lock file; its start already succeeded and will not notice
    }
  }
  unlinkSync(aside);
}

/** Blocks this thread for `ms` (release() runs in exit paths, where nothing may wait asynchronously). */
function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * The recorded children still running after up to ~5 s. Not killed here: a pid recorded long ago
 * may name another program by now; the one that started them ends them (dynamodb.ts stop()).
 */
function survivingChildren(children: Record<string, number>): Array<[string, number]> {
  const alive = () => Object.entries(children).filter(([, pid]) => isProcessAlive(pid));
  for (let waited = 0; waited < 5000 && alive().length > 0; waited += 50) sleepSync(50);
  return alive();
}

/** Takes the data directory for this process, or throws DataDirInUseError naming the live owner. */
export async function lockDataDir(dataDir: string): Promise<DataDirLock> {
  const path = join(dataDir, LOCK_FILE_NAME);
  let content: LockContent = { pid: process.pid, started: new Date().toISOString(), children: {} };
  const refuseIfHeld = (holder: LockContent | undefined) => {
    if (holder && holder.pid !== 0 && isProcessAlive(holder.pid)) {
      throw new DataDirInUseError(
        `The data directory ${dataDir} is in use by another Stepwise local stack (pid ${holder.pid}, ` +
          `started ${holder.started}). ` +
          `Stop that one first, or use another STEPWISE_DATA_DIR.`,
      );
    }
  };
  if (!createExclusive(path, content)) {
    const stale = readLock(path);
    refuseIfHeld(stale);
    if (stale) {
      await waitForChildren(stale, path);
      setAside(path, stale);
    }
    // Once more, exclusively: a start that raced us to the stale lock and won is refused by name.
    if (!createExclusive(path, content)) {
      refuseIfHeld(readLock(path));
      throw new DataDirInUseError(`Could not take ${path}: another start is taking it`);
    }
  }

  const write = () => {
    const temporary = `${path}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify(content));
    renameSync(temporary, path); // readers see the old or the new content, never half of it
  };
  let released = false;
  return {
    path,
    addChild(role, pid) {
      content = { ...content, children: { ...content.children, [role]: pid } };
      if (!released) write();
    },
    release() {
      if (released) return;
      released = true;
      const survivors = survivingChildren(content.children);
      if (survivors.length > 0) {
        process.stderr.write(
          `Keeping ${path}: ${survivors.map(([role, pid]) => `${role} (pid ${pid})`).join(', ')} still runs\n`,
        );
        return;
      }
      try {
        if (readLock(path)?.pid === process.pid) unlinkSync(path);
      } catch {
        // already gone
      }
    },
  };
}
