/**
 * Request bodies of the modules group that its service takes as input (`z.output` of these),
 * declared once for the routes and the service (a service never imports a routes file).
 */
import * as z from 'zod/mini';

export const createImportBody = z.object({
  moduleid: z.optional(z.int().check(z.positive())),
  title: z.optional(z.string().check(z.maxLength(255))),
});
export const draftsBody = z.object({ ids: z.optional(z.array(z.int().check(z.positive())).check(z.maxLength(100))) });
export const startByUrlBody = z.object({ url: z.string().check(z.minLength(1), z.maxLength(2048)) });

export type CreateImportInput = z.output<typeof createImportBody>;
export type DraftsInput = z.output<typeof draftsBody>;
export type StartByUrlInput = z.output<typeof startByUrlBody>;

/** A commit of one SCO's CMI data (decision 271); the limits of shared/domain/scorm-attempt.ts are checked after. */
export const commitBody = z.object({
  /** The attempt's version this commit replaces (0 for an attempt not yet kept). */
  version: z.int().check(z.nonnegative()),
  sco: z.string().check(z.minLength(1), z.maxLength(255)),
  /** Flattened CMI data: element -> value. */
  cmi: z.record(z.string().check(z.maxLength(255)), z.string()),
  /** The runtime's Initialize / LMSInitialize: opens a session of the SCO. */
  initialize: z.optional(z.boolean()),
  /** The runtime's Terminate / LMSFinish: ends it (its session_time joins total_time). */
  terminate: z.optional(z.boolean()),
});
export type CommitInput = z.output<typeof commitBody>;
