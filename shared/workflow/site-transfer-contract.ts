/**
 * The site export and import pipelines' contract (decision 188, as for the module import): the
 * execution input the site-transfer group starts each job with, and the state each step task
 * receives and returns. The definitions (functions/pipeline/site-transfer.definition.ts) read
 * their fields from here, the tasks parse their input and output with it, and the starters
 * (site-transfer-runs.ts) parse what they send, so the three cannot drift apart.
 */
import * as z from 'zod/mini';
import { pipelineFailureSchema } from './module-import-contract.ts';

const jobId = z.int().check(z.positive());

/** StartExecution's input of an export: `export-<exportid>`. */
export const siteExportInputSchema = z.object({ exportid: jobId });

/** StartExecution's input of an import: the attempt numbers a restart after an interruption. */
export const siteImportInputSchema = z.object({
  importid: jobId,
  // Executions started before attempts were numbered carry none: attempt 1.
  attempt: z._default(z.int().check(z.positive()), 1),
});

/** The field the loop's Choice reads: a step answers `done: true` when the job is finished. */
export const DONE_FIELD = 'done';

const stepState = { [DONE_FIELD]: z.optional(z.boolean()), failure: z.optional(pipelineFailureSchema) };

/** What goes round the export loop: the input, whether the last step finished, and a Catch's failure. */
export const siteExportStateSchema = z.object({ ...siteExportInputSchema.shape, ...stepState });
/** What goes round the import loop (the attempt goes round with it). */
export const siteImportStateSchema = z.object({ ...siteImportInputSchema.shape, ...stepState });

export type SiteExportState = z.output<typeof siteExportStateSchema>;
export type SiteImportState = z.output<typeof siteImportStateSchema>;
