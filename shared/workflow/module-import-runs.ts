/**
 * Executions of the module import state machine, one per import, named `import-<importid>`:
 * the name makes StartExecution idempotent and the execution ARN computable in advance.
 */
import { DescribeExecutionCommand, StartExecutionCommand, StopExecutionCommand } from '@aws-sdk/client-sfn';
import { config } from '../config.ts';
import { sfnClient } from './sfn-client.ts';

export interface ImportExecutionInput {
  importid: number;
  moduleid: number;
  bucket: string;
  key: string;
  source: 'upload' | 'url';
  url?: string;
}

export function importExecutionArn(importid: number): string {
  return `${config().MODULE_IMPORT_STATE_MACHINE_ARN.replace(':stateMachine:', ':execution:')}:import-${importid}`;
}

export async function startImportExecution(input: ImportExecutionInput): Promise<string> {
  const result = await sfnClient().send(
    new StartExecutionCommand({
      stateMachineArn: config().MODULE_IMPORT_STATE_MACHINE_ARN,
      name: `import-${input.importid}`,
      input: JSON.stringify(input),
    }),
  );
  return result.executionArn!;
}

export async function stopImportExecution(executionArn: string, cause: string): Promise<void> {
  try {
    await sfnClient().send(new StopExecutionCommand({ executionArn, error: 'ImportCancelled', cause }));
  } catch (error) {
    // Never started, or already gone: nothing left to stop.
    if ((error as Error).name !== 'ExecutionDoesNotExist') throw error;
  }
}

export async function describeImportExecution(executionArn: string): Promise<{ status: string; error?: string; cause?: string } | undefined> {
  try {
    const result = await sfnClient().send(new DescribeExecutionCommand({ executionArn }));
    return { status: result.status ?? 'RUNNING', error: result.error, cause: result.cause };
  } catch (error) {
    if ((error as Error).name === 'ExecutionDoesNotExist') return undefined;
    throw error;
  }
}
