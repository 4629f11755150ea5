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

/** A commit of one SCO's CMI data (decision 271): one schema for this route and the player page's. */
export { commitInputSchema as commitBody, type CommitInput } from '../../shared/training/scorm-commit-input.ts';
