/** The execution input of the site export and import jobs, and their failure reason. */
import { PipelineError, PipelineErrorName, storageError } from './errors.ts';

export function requireJobId(input: unknown, name: 'exportid' | 'importid'): number {
  const id = (input as Record<string, unknown> | null)?.[name];
  if (!Number.isInteger(id)) throw new PipelineError(PipelineErrorName.InvalidInput, `Expected input { ${name} }`);
  return id as number;
}

/** A step's work, with S3 and DynamoDB trouble worth a retry named so the state machine retries it. */
export async function jobStep<T>(what: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw storageError(error, what);
  }
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
