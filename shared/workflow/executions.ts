/**
 * Executions of any of the pipeline's state machines (the module import, the site export and
 * import): their names and ARNs, start, stop and describe. The runs files of each machine
 * (module-import-runs.ts, site-transfer-runs.ts) name their executions and parse their inputs
 * through these.
 */
import { sfn } from './sfn.ts';
import { isAwsError } from '../domain/aws-error.ts';

/** What Step Functions says of an execution; undefined: there is no such execution. */
type ExecutionDescription = { status: string; error?: string; cause?: string } | undefined;

/**
 * The execution of a job's attempt: `<prefix>-<id>`, then `<prefix>-<id>-<attempt>` for restarts
 * after an interruption (Step Functions keeps a name taken for 90 days). The name makes
 * StartExecution idempotent and the execution ARN computable in advance.
 */
export function attemptExecutionName(prefix: string, id: number, attempt: number): string {
  return attempt <= 1 ? `${prefix}-${id}` : `${prefix}-${id}-${attempt}`;
}

/** The ARN the execution named `name` of the state machine `stateMachineArn` has. */
export function executionArnOf(stateMachineArn: string, name: string): string {
  return `${stateMachineArn.replace(':stateMachine:', ':execution:')}:${name}`;
}

/** Starts the execution `name` with `input` (parsed by the caller against its contract); its ARN. */
export async function startExecution(stateMachineArn: string, name: string, input: unknown): Promise<string> {
  const { client, sdk } = await sfn();
  const result = await client.send(
    new sdk.StartExecutionCommand({ stateMachineArn, name, input: JSON.stringify(input) }),
  );
  return result.executionArn!;
}

/** Stops an execution with the error name `error`; one never started, or already gone, is left alone. */
export async function stopExecution(executionArn: string, error: string, cause: string): Promise<void> {
  try {
    const { client, sdk } = await sfn();
    await client.send(new sdk.StopExecutionCommand({ executionArn, error, cause }));
  } catch (failure) {
    if (!isAwsError(failure, 'ExecutionDoesNotExist')) throw failure;
  }
}

export async function describeExecution(executionArn: string): Promise<ExecutionDescription> {
  try {
    const { client, sdk } = await sfn();
    const result = await client.send(new sdk.DescribeExecutionCommand({ executionArn }));
    return { status: result.status ?? 'RUNNING', error: result.error, cause: result.cause };
  } catch (error) {
    if (isAwsError(error, 'ExecutionDoesNotExist')) return undefined;
    throw error;
  }
}
