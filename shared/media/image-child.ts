/**
 * The image child process (decision 162): image-pool.ts forks this file and sends it one job
 * at a time over IPC; it answers `{ok, value}` or `{ok: false, ...}`. Killed with SIGKILL when
 * a job overruns its deadline, which is the one way to stop a libvips render once started.
 * Deployed, it is a side bundle beside the function's bundle (`#image-child`, decision 155).
 */
import { InvalidEditError } from './image-markup.ts';
import { type ImageJob, ImageRefusedError, runImageJob, warmUp } from './image-ops.ts';

export type ChildAnswer =
  | { ok: true; value: unknown }
  | { ok: false; refused: { code: ImageRefusedError['code']; message: string } }
  | { ok: false; invalidEdit: { field: string; message: string } }
  | { ok: false; error: string };

async function answer(job: ImageJob): Promise<ChildAnswer> {
  try {
    return { ok: true, value: await runImageJob(job) };
  } catch (error) {
    if (error instanceof ImageRefusedError) return { ok: false, refused: { code: error.code, message: error.message } };
    if (error instanceof InvalidEditError)
      return { ok: false, invalidEdit: { field: error.field, message: error.message } };
    return { ok: false, error: (error as Error).stack ?? String(error) };
  }
}

if (process.send) {
  process.on('message', (job: ImageJob) => {
    void answer(job).then((reply) => process.send?.(reply));
  });
  // The parent is gone (its end of the IPC channel closed): nothing is left to answer.
  process.on('disconnect', () => process.exit(0));
  // Ready once sharp is loaded: the pool starts a job's deadline only then.
  void warmUp().then(() => process.send?.({ ready: true }));
}
