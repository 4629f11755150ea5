/**
 * GET /health (beyond the spec): the version and whether each store answers. Names, counts and
 * errors stay out: the route is open to anyone, on private sites too.
 */
import * as z from 'zod/mini';

const answer = z.enum(['ok', 'unavailable']);

export const healthSchema = z.object({
  /** `ok` when every check answered (200), `unavailable` otherwise (503). */
  status: answer,
  /** The deployed release: package.json `version` when the bundle was built. */
  version: z.string(),
  checks: z.object({ table: answer, media_bucket: answer, modules_bucket: answer }),
});

export type Health = z.output<typeof healthSchema>;
