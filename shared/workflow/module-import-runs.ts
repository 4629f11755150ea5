/**
 * Executions of the module import state machine, one per attempt of an import, named
 * `import-<importid>` (then `import-<importid>-<attempt>` for restarts after an interruption:
 * Step Functions keeps a name taken for 90 days). The name makes StartExecution idempotent and
 * the execution ARN computable in advance.
 */
import { config } from '../config.ts';
import { sfn } from './sfn.ts';
import { isAwsError } from '../domain/aws-error.ts';

export interface ImportExecutionInput {
  importid: number;
  moduleid: number;
  bucket: string;
  key: string;
  source: 'upload' | 'url';
  url?: string;
}

function executionName(importid: number, attempt: number): string {
  return attempt <= 1 ? `import-${importid}` : `import-${importid}-${attempt}`;
}

export function importExecutionArn(importid: number, attempt = 1): string {
  const executionsOf = config().MODULE_IMPORT_STATE_MACHINE_ARN.replace(':stateMachine:', ':execution:');
  return `${executionsOf}:${executionName(importid, attempt)}`;
}

export async function startImportExecution(input: ImportExecutionInput, attempt = 1): Promise<string> {
  const { client, sdk } = await sfn();
  const result = await client.send(
    new sdk.StartExecutionCommand({
      stateMachineArn: config().MODULE_IMPORT_STATE_MACHINE_ARN,
      name: executionName(input.importid, attempt),
      input: JSON.stringify(input),
    }),
  );
  return result.executionArn!;
}

export async function stopImportExecution(executionArn: string, cause: string): Promise<void> {
  try {
    const { client, sdk } = await sfn();
    await client.send(new sdk.StopExecutionCommand({ executionArn, error: 'ImportCancelled', cause }));
  } catch (error) {
    // Never started, or already gone: nothing left to stop.
    if (!isAwsError(error, 'ExecutionDoesNotExist')) throw error;
  }
}

export async function describeImportExecution(
  executionArn: string,
): Promise<{ status: string; error?: string; cause?: string } | undefined> {
  try {
    const { client, sdk } = await sfn();
    const result = await client.send(new sdk.DescribeExecutionCommand({ executionArn }));
    return { status: result.status ?? 'RUNNING', error: result.error, cause: result.cause };
  } catch (error) {
    if (isAwsError(error, 'ExecutionDoesNotExist')) return undefined;
    throw error;
  }
}

/**
 * Why an import the table still calls running can no longer finish, or undefined while its
 * execution may still record an outcome. Gone (a local runner restarted; an execution past
 * Step Functions' retention), TIMED_OUT, ABORTED (stopped other than by a cancel, which marks
 * the import first) and FAILED (the failure path itself failed) all mean the pipeline will
 * never write again. SUCCEEDED is left alone: RecordVersion wrote before the execution ended.
 */
export async function interruptionOf(executionArn: string): Promise<{ reason: string; gone: boolean } | undefined> {
  const execution = await describeImportExecution(executionArn);
  if (!execution) return { reason: 'Its execution no longer exists (the workflow runner was restarted)', gone: true };
  if (execution.status === 'RUNNING' || execution.status === 'SUCCEEDED' || execution.status === 'PENDING_REDRIVE')
    return undefined;
  return {
    reason:
      `Its execution ended ${execution.status}${execution.error ? ` (${execution.error})` : ''} before the ` +
      `import was recorded`,
    gone: false,
  };
}
