/**
 * Executions of the module import state machine, one per attempt of an import, named
 * `import-<importid>` (then `import-<importid>-<attempt>` for restarts after an interruption:
 * Step Functions keeps a name taken for 90 days). The name makes StartExecution idempotent and
 * the execution ARN computable in advance.
 */
import { config } from '../config.ts';
import { sfn } from './sfn.ts';
import { isAwsError } from '../domain/aws-error.ts';
import { moduleImportInputSchema, type ModuleImportInput } from './module-import-contract.ts';

/** The execution input: the pipeline's contract (module-import-contract.ts). */
export type ImportExecutionInput = ModuleImportInput;

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
      // Parsed first: an input the pipeline would refuse never starts an execution.
      input: JSON.stringify(moduleImportInputSchema.parse(input)),
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
