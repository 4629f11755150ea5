/**
 * The checkpoint beside the output (`<out>.checkpoint`): what an interrupted crawl had finished.
 * It is taken between two writes of the output, so `length` is a record boundary and every unit
 * in `done` has all its records before it. Known ids, counters and the report so far ride along,
 * since a resumed crawl skips the done units that first found them.
 */
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import * as z from 'zod/mini';

export const CHECKPOINT_VERSION = 1;

const reportEntrySchema = z.object({ what: z.string(), detail: z.string(), count: z.int() });

export const checkpointSchema = z.object({
  version: z.literal(CHECKPOINT_VERSION),
  base_url: z.string(),
  /** The crawlers the run was asked for (`--only`), or null for all. */
  only: z.nullable(z.array(z.string())),
  length: z.int().check(z.nonnegative()),
  done: z.array(z.string()),
  known: z.record(z.string(), z.array(z.int())),
  counters: z.record(z.string(), z.int()),
  unexposed: z.array(reportEntrySchema),
  skipped: z.array(reportEntrySchema),
  retries: z.int(),
  requests: z.int(),
  elapsed_ms: z.number(),
});

export type Checkpoint = z.infer<typeof checkpointSchema>;

export function checkpointPathOf(out: string): string {
  return `${out}.checkpoint`;
}

export async function readCheckpoint(path: string): Promise<Checkpoint | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const parsed = checkpointSchema.safeParse(JSON.parse(text));
  if (!parsed.success) throw new Error(`${path} is not a checkpoint this version can resume from`);
  return parsed.data;
}

/** Written beside and renamed over, so a kill leaves the old checkpoint or the new one, never half. */
export async function writeCheckpoint(path: string, checkpoint: Checkpoint): Promise<void> {
  const temporary = `${path}.tmp`;
  await writeFile(temporary, JSON.stringify(checkpoint));
  await rename(temporary, path);
}

export async function removeCheckpoint(path: string): Promise<void> {
  await rm(path, { force: true });
  await rm(`${path}.tmp`, { force: true });
}
