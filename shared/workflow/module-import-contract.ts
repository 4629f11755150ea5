/**
 * The module import pipeline's one contract (decision 188): the execution input the modules
 * group starts it with, and the state each task receives and returns (the input plus what the
 * tasks learned). The state machine definition (functions/pipeline/module-import.definition.ts)
 * reads its fields from here, the tasks parse their input and their output with it, and the
 * starter (module-import-runs.ts) parses what it sends, so the three cannot drift apart.
 */
import { scormStructureSchema } from '../domain/scorm-structure.ts';
import { cmi5CourseSchema } from '../domain/xapi/cmi5-structure.ts';
import * as z from 'zod/mini';
import type { ManifestFacts } from '../domain/module-package.ts';

export const IMPORT_SOURCES = ['upload', 'url'] as const;

/** StartExecution's input: `source` picks the first state (FetchPackage for 'url'). */
export const moduleImportInputSchema = z.object({
  importid: z.int().check(z.positive()),
  moduleid: z.int().check(z.positive()),
  bucket: z.string().check(z.minLength(1)),
  /** The package zip. */
  key: z.string().check(z.minLength(1)),
  source: z.enum(IMPORT_SOURCES),
  url: z.optional(z.string()),
});

const manifestFactsSchema = z.object({
  standard: z.enum(['scorm12', 'scorm2004', 'cmi5', 'tincan']),
  identifier: z.nullable(z.string()),
  title: z.string(),
  launch: z.string(),
  schema_version: z.nullable(z.string()),
  scorm: z.optional(scormStructureSchema),
  cmi5: z.optional(cmi5CourseSchema),
});

/** Step Functions' error document under `$.failure` (the Catch's ResultPath). */
export const pipelineFailureSchema = z.object({ Error: z.optional(z.string()), Cause: z.optional(z.string()) });

/** What flows between the tasks: each returns what it received plus what it learned. */
export const moduleImportStateSchema = z.looseObject({
  ...moduleImportInputSchema.shape,
  /** InspectPackage */
  size: z.optional(z.number()),
  contentType: z.optional(z.nullable(z.string())),
  /** ValidatePackage */
  layout: z.optional(
    z.object({
      manifestPath: z.string(),
      rootPrefix: z.string(),
      repaired: z.boolean(),
      /** The upload is a bare cmi5.xml, not a zip: nothing to extract. */
      bare: z.optional(z.boolean()),
    }),
  ),
  manifest: z.optional(manifestFactsSchema),
  files: z.optional(z.int()),
  totalBytes: z.optional(z.number()),
  /** ExtractPackage */
  extractedFiles: z.optional(z.int()),
  extractedBytes: z.optional(z.number()),
  /** Set by the Catch that leads to MarkImportFailed. */
  failure: z.optional(pipelineFailureSchema),
  /** Set by MarkImportFailed's own Catch, on the way to ImportFailed. */
  markFailure: z.optional(pipelineFailureSchema),
});

export type ModuleImportInput = z.output<typeof moduleImportInputSchema>;
export type ModuleImportState = z.output<typeof moduleImportStateSchema>;

/** The manifest facts the contract carries are the domain's (a compile-time check both ways). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const manifestMatches: Same<z.output<typeof manifestFactsSchema>, ManifestFacts> = true;
void manifestMatches;

/** The field the definition's first Choice reads, and the value that sends it to FetchPackage. */
export const SOURCE_FIELD = 'source' satisfies keyof ModuleImportInput;
export const FETCH_SOURCE = 'url' satisfies ModuleImportInput['source'];

/** One line naming what a value breaks of a contract (for the task's InvalidInput error). */
export function contractProblem(error: z.core.$ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
    .join('; ');
}
