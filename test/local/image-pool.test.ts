/**
 * The image pool (decision 162) with real child processes: a job past its deadline has its
 * process killed (gone from the OS, not just abandoned) and its slot given back only then; at
 * most `concurrency` jobs run, a job waits for a slot at most `queueWaitMs` (then ImageBusyError,
 * the API's 503); bytes that are no accepted format never reach a child.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ImageBusyError, ImagePool } from '../../shared/media/image-pool.ts';
import { ImageRefusedError } from '../../shared/media/image-ops.ts';
import { inspectImage } from '../../shared/media/images.ts';
import { solidPng, SVG_BLUR_BOMB } from '../support/image-bombs.ts';

/** Decoding this takes a few hundred ms: 36 million pixels, each size of the Image object. */
const SLOW = solidPng(6000, 6000);
const SMALL = solidPng(64, 48);

const pools: ImagePool[] = [];
function pool(options: Partial<ImagePool['options']> = {}): ImagePool {
  const created = new ImagePool({ concurrency: 1, queueWaitMs: 10_000, deadlineMs: 30_000, ...options });
  pools.push(created);
  return created;
}
afterEach(() => {
  for (const created of pools.splice(0)) created.close();
});

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function busyPid(of: ImagePool): Promise<number> {
  for (let attempt = 0; attempt < 200 && of.busyPids.size === 0; attempt++) await new Promise((r) => setTimeout(r, 5));
  return [...of.busyPids][0]!;
}

describe('ImagePool', () => {
  it('kills a decode past its deadline: its process is gone when the job is refused; the slot is free', async () => {
    const images = pool();
    // A warm child, so the deadline below is spent decoding, not starting.
    await expect(images.run({ op: 'inspect', input: SMALL, decode: true })).resolves.toMatchObject({ width: 64 });
    const started = Date.now();
    const job = images.run({ op: 'render', input: SLOW }, { deadlineMs: 50 });
    const pid = await busyPid(images);
    expect(alive(pid)).toBe(true);
    const refused = await job.catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ImageRefusedError);
    expect(refused).toMatchObject({ code: 'too_slow_to_decode' });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(alive(pid)).toBe(false);
    expect(images.load()).toEqual({ running: 0, waiting: 0 });
    // The next job gets a fresh child.
    await expect(images.run({ op: 'inspect', input: SMALL, decode: false })).resolves.toMatchObject({ height: 48 });
  });

  it('runs at most `concurrency` jobs; one more waits, and past queueWaitMs is refused busy', async () => {
    const images = pool({ concurrency: 1, queueWaitMs: 100 });
    const first = images.run({ op: 'render', input: SLOW });
    await busyPid(images);
    const second = images.run({ op: 'inspect', input: SMALL, decode: false });
    expect(images.load()).toEqual({ running: 1, waiting: 1 });
    await expect(second).rejects.toBeInstanceOf(ImageBusyError);
    expect(images.load()).toEqual({ running: 1, waiting: 0 });
    await first;

    const patient = pool({ concurrency: 1, queueWaitMs: 30_000 });
    const order: string[] = [];
    await Promise.all([
      patient.run({ op: 'render', input: SLOW }).then(() => order.push('slow')),
      patient.run({ op: 'inspect', input: SMALL, decode: false }).then(() => order.push('small')),
    ]);
    // One slot: the small job waited for the slow one although it needed far less.
    expect(order).toEqual(['slow', 'small']);
  }, 60_000);

  it('refuses SVG before any child is asked', async () => {
    const started = Date.now();
    await expect(inspectImage(SVG_BLUR_BOMB)).rejects.toMatchObject({ code: 'unsupported_format' });
    expect(Date.now() - started).toBeLessThan(100);
  });
});
