/**
 * The body of a SCORM commit, in a file of its own with no dependency but zod: the route
 * declarations of the modules group and of the player page import it at load, while the
 * attempts' logic (scorm-attempts.ts, with sequencing and rollup) loads on the first commit
 * (decision 355).
 */
import * as z from 'zod/mini';

/**
 * A commit of one SCO's CMI data (decision 271): the modules group's commit body and the player
 * page's (decision 306); the limits of shared/domain/scorm-attempt.ts are checked after.
 */
export const commitInputSchema = z.object({
  /** The attempt's version this commit replaces (0 for an attempt not yet kept). */
  version: z.int().check(z.nonnegative()),
  sco: z.string().check(z.minLength(1), z.maxLength(255)),
  /** Flattened CMI data: element -> value. */
  cmi: z.record(z.string().check(z.maxLength(255)), z.string()),
  /** The runtime's Initialize / LMSInitialize: opens a session of the SCO. */
  initialize: z.optional(z.boolean()),
  /** The runtime's Terminate / LMSFinish: ends it (its session_time joins total_time). */
  terminate: z.optional(z.boolean()),
  /** SCORM 2004: the navigation request (adl.nav.request) that came with the Terminate (decision 335). */
  nav: z.optional(z.string().check(z.maxLength(300))),
});
export type CommitInput = z.output<typeof commitInputSchema>;
