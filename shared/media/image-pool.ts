/**
 * Where image work runs (decision 162): in child processes, at most `concurrency` jobs at a
 * time per container, each with a deadline. A job over its deadline gets its process killed
 * (SIGKILL), and its slot is given back only once that process is gone, so a refused request
 * leaves no render running. A worker thread would not do: Worker.terminate() waits for the
 * native call in progress (a 3000 px SVG blur went on for 8 s after terminate()), and sharp's
 * own timeout() stops output operations only. A job that waits longer than `queueWaitMs` for a
 * slot is refused with ImageBusyError (503). A job's deadline starts once its child is ready
 * (sharp loaded), not while a new child starts. Children are reused; idle ones do not keep the
 * process alive.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { config } from '../config.ts';
import type { ChildAnswer } from './image-child.ts';
import { InvalidEditError } from './image-markup.ts';
import { type ImageJob, ImageRefusedError } from './image-ops.ts';

/** The child's entry: a side bundle beside a deployed bundle (decision 155), the source otherwise. */
export const IMAGE_CHILD_IMPORT = '#image-child';

export interface ImagePoolOptions {
  /** Jobs running at once in this process (each in its own child). */
  concurrency: number;
  /** How long a job may wait for a slot before ImageBusyError. */
  queueWaitMs: number;
  /** A job's default deadline, from when it starts on a child. */
  deadlineMs: number;
  /** The child's entry (a `#name` of package.json "imports"); the image child by default. */
  entry?: string;
  /** The child's V8 heap limit (--max-old-space-size): a job past it ends its child, not the host. */
  heapMb?: number;
  /** The errors a job's end gives when its child stopped under it or overran; the image decoder's by default. */
  failures?: { stopped(): Error; overran(deadlineMs: number): Error };
}

const IMAGE_FAILURES = {
  // The decoder died under the job (a crash, or the OS killed it for memory): the image's doing.
  stopped: () => new ImageRefusedError('not_an_image', 'The image could not be decoded (the decoder stopped)'),
  overran: (deadlineMs: number) =>
    new ImageRefusedError('too_slow_to_decode', `Decoding the image took longer than ${deadlineMs} ms; it was stopped`),
};

/** Every slot stayed busy for the whole wait: the API answers 503. */
export class ImageBusyError extends Error {
  constructor(waitedMs: number) {
    super(`Image work is busy: no slot came free within ${waitedMs} ms; try again shortly`);
    this.name = 'ImageBusyError';
  }
}

function childEntry(name: string): string {
  // A deployed bundle is CommonJS: __dirname is its asset folder, where the side bundle was built.
  if (typeof __dirname === 'string') {
    const built = join(__dirname, `${name.slice(1)}.js`);
    if (existsSync(built)) return built;
  }
  // From source (tsx, vitest): the repository's package.json "imports" names the file; npm
  // scripts, the local stack and the tests all run from the repository root.
  return createRequire(join(process.cwd(), 'package.json')).resolve(name);
}

function spawnChild(name: string, heapMb: number | undefined): ChildProcess {
  const entry = childEntry(name);
  // The TypeScript source needs tsx in the child (the local stack's own loader, else added).
  const needsTsx = entry.endsWith('.ts') && !process.execArgv.some((arg) => arg.includes('tsx'));
  const heap = heapMb ? [`--max-old-space-size=${heapMb}`] : [];
  const inherited = process.execArgv.filter((arg) => !arg.startsWith('--max-old-space-size'));
  return fork(entry, [], {
    execArgv: entry.endsWith('.ts') ? [...inherited, ...(needsTsx ? ['--import', 'tsx'] : []), ...heap] : heap,
    // Not the parent's environment: the local stack carries embeds there (hundreds of KB, past the
    // kernel's limit for one variable), and the child needs none of the configuration.
    env: childEnvironment(),
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
}

const CHILD_ENVIRONMENT = /^(PATH|HOME|TMPDIR|LANG|LC_\w+|NODE_OPTIONS|TSX_\w+|VIPS_\w+)$/;

function childEnvironment(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] => CHILD_ENVIRONMENT.test(entry[0]) && entry[1] !== undefined,
    ),
  );
}

/** How long a new child may take to load sharp and say it is ready. */
const START_TIMEOUT_MS = 30_000;

/** Resolves once the child has loaded sharp; a child that dies or hangs first is an error (500). */
function started(child: ChildProcess): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const fail = (reason: string) => {
      clearTimeout(timer);
      child.off('message', onReady);
      child.kill('SIGKILL');
      reject(new Error(`The image child did not start: ${reason}`));
    };
    const onExit = (code: number | null) => fail(`it exited (${code})`);
    const onReady = () => {
      clearTimeout(timer);
      child.off('exit', onExit);
      resolve(child);
    };
    const timer = setTimeout(() => fail(`not ready after ${START_TIMEOUT_MS} ms`), START_TIMEOUT_MS);
    child.once('message', onReady);
    child.once('exit', onExit);
  });
}

/** Lets an idle child (and its IPC channel) not hold the process open, or holds it again. */
function hold(child: ChildProcess, held: boolean): void {
  const channel = child.channel as { ref?: () => void; unref?: () => void } | undefined;
  if (held) {
    child.ref();
    channel?.ref?.();
  } else {
    child.unref();
    channel?.unref?.();
  }
}

const gone = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

export class ImagePool {
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  private readonly idle: ChildProcess[] = [];
  /** Pids of every child doing a job now (tests check a killed one is gone). */
  readonly busyPids = new Set<number>();

  constructor(readonly options: ImagePoolOptions) {}

  /** Jobs running and waiting now. */
  load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  /** Runs one job; `deadlineMs` and `queueWaitMs` override the pool's for this job. */
  async run<T, Job extends { op: string } = ImageJob>(
    job: Job,
    limits: { deadlineMs?: number; queueWaitMs?: number } = {},
  ): Promise<T> {
    const deadlineMs = limits.deadlineMs ?? this.options.deadlineMs;
    await this.acquire(limits.queueWaitMs ?? this.options.queueWaitMs);
    try {
      return (await this.runOnChild(job, deadlineMs)) as T;
    } finally {
      this.release();
    }
  }

  /** Kills the idle children (tests, shutdown). */
  close(): void {
    for (const child of this.idle.splice(0)) child.kill('SIGKILL');
  }

  private acquire(queueWaitMs: number): Promise<void> {
    if (this.running < this.options.concurrency) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const start = () => {
        clearTimeout(timer);
        this.running++;
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiting.splice(this.waiting.indexOf(start), 1);
        reject(new ImageBusyError(queueWaitMs));
      }, queueWaitMs);
      this.waiting.push(start);
    });
  }

  private release(): void {
    this.running--;
    this.waiting.shift()?.();
  }

  private async runOnChild(job: { op: string }, deadlineMs: number): Promise<unknown> {
    const failures = this.options.failures ?? IMAGE_FAILURES;
    let child = this.idle.pop();
    while (child && gone(child)) child = this.idle.pop();
    const worker = child ?? (await started(spawnChild(this.options.entry ?? IMAGE_CHILD_IMPORT, this.options.heapMb)));
    hold(worker, true);
    if (worker.pid !== undefined) this.busyPids.add(worker.pid);
    return new Promise<unknown>((resolve, reject) => {
      let settled = false;
      const finish = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('exit', onExit);
        outcome();
      };
      const onMessage = (reply: ChildAnswer) =>
        finish(() => {
          if (worker.pid !== undefined) this.busyPids.delete(worker.pid);
          this.keepIdle(worker);
          if (reply.ok) resolve(reply.value);
          else if ('refused' in reply) reject(new ImageRefusedError(reply.refused.code, reply.refused.message));
          else if ('invalidEdit' in reply)
            reject(new InvalidEditError(reply.invalidEdit.field, reply.invalidEdit.message));
          else reject(new Error(`Child job ${job.op} failed: ${reply.error}`));
        });
      const onExit = () =>
        finish(() => {
          if (worker.pid !== undefined) this.busyPids.delete(worker.pid);
          reject(failures.stopped());
        });
      const timer = setTimeout(() => {
        worker.off('exit', onExit);
        // The slot stays taken until the process is really gone.
        worker.once('exit', () =>
          finish(() => {
            if (worker.pid !== undefined) this.busyPids.delete(worker.pid);
            reject(failures.overran(deadlineMs));
          }),
        );
        worker.kill('SIGKILL');
      }, deadlineMs);
      worker.on('message', onMessage);
      worker.once('exit', onExit);
      worker.send(job as ImageJob);
    });
  }

  private keepIdle(child: ChildProcess): void {
    if (gone(child) || this.idle.length >= this.options.concurrency) {
      child.kill('SIGKILL');
      return;
    }
    hold(child, false);
    this.idle.push(child);
  }
}

let pool: ImagePool | undefined;

/** The container's pool, sized by STEPWISE_IMAGE_CONCURRENCY / _QUEUE_MS / _DEADLINE_MS. */
export function imagePool(): ImagePool {
  const settings = config();
  pool ??= new ImagePool({
    concurrency: settings.STEPWISE_IMAGE_CONCURRENCY,
    queueWaitMs: settings.STEPWISE_IMAGE_QUEUE_MS,
    deadlineMs: settings.STEPWISE_IMAGE_DEADLINE_MS,
  });
  return pool;
}

/**
 * Processing (S3 events) may take longer than a request: STEPWISE_IMAGE_PROCESSING_DEADLINE_MS,
 * and, off the request path, it waits for a slot up to half of that (wait plus work stay within
 * the processor's 120 s timeout at the default 60 s).
 */
export function processingLimits(): { deadlineMs: number; queueWaitMs: number } {
  const deadlineMs = config().STEPWISE_IMAGE_PROCESSING_DEADLINE_MS;
  return { deadlineMs, queueWaitMs: Math.max(config().STEPWISE_IMAGE_QUEUE_MS, deadlineMs / 2) };
}
