/**
 * What the site export and import tasks share: their input and output checked against the
 * pipelines' contract (shared/workflow/site-transfer-contract.ts), storage trouble named so the
 * state machine retries it, and the failure reason the API reports.
 */
import type * as z from 'zod/mini';
import { contractProblem } from '../../shared/workflow/module-import-contract.ts';
import { PipelineError, PipelineErrorName, storageError } from './errors.ts';

type StateSchema = z.ZodMiniType<Record<string, unknown>>;

function checked<S extends StateSchema>(schema: S, value: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success)
    throw new PipelineError(PipelineErrorName.InvalidInput, `${what} (${contractProblem(parsed.error)})`);
  return parsed.data;
}

/**
 * A site job task: its input parsed by the contract (InvalidInput naming the fields, not retried),
 * its work with S3 and DynamoDB trouble worth a retry named TransientStorageError, and its output
 * parsed too (a task that breaks the contract fails itself, not the next one).
 */
export function siteJobTask<S extends StateSchema>(
  name: string,
  schema: S,
  work: (state: z.output<S>) => Promise<z.output<S>>,
) {
  return async (input: unknown): Promise<z.output<S>> => {
    const state = checked(schema, input, `${name}: an input that breaks the contract`);
    let output: z.output<S>;
    try {
      output = await work(state);
    } catch (error) {
      throw storageError(error, name);
    }
    return checked(schema, output, `${name} returned a state that breaks the contract`);
  };
}

/** The reason a job failed, from Step Functions' Error and Cause (Lambda's error document). */
export function jobFailureReason(failure: { Error?: string; Cause?: string } | undefined): string {
  const error = failure?.Error ?? 'States.Runtime';
  let message = failure?.Cause ?? '';
  try {
    const document = JSON.parse(message) as { errorMessage?: string };
    if (typeof document.errorMessage === 'string') message = document.errorMessage;
  } catch {
    // a plain-text cause (States.* errors)
  }
  if (error === 'States.Timeout') return 'A step of the job took too long';
  return `${error}: ${message}`.slice(0, 1000);
}
