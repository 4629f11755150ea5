/**
 * The `revisionid` query parameter every write to a revisioned resource (guide, step, wiki,
 * course) carries. Missing: 422 with field `revisionid`, code `missing_field`; not an integer:
 * 422. Whether it is stale is for the write to find out (shared/db/revisions.ts): 409 with the
 * current resource as the body.
 */
import * as z from 'zod/mini';

const revisionid = z.pipe(
  z.string().check(z.regex(/^\d{1,15}$/, 'must be an integer revisionid')),
  z.transform((value: string) => Number.parseInt(value, 10)),
);

/** Query schema of a write that must name the current revision. */
export const revisionQuery = z.object({ revisionid });

/** Query schema where a revisionid is checked when given (e.g. adding a step). */
export const optionalRevisionQuery = z.object({ revisionid: z.optional(revisionid) });
