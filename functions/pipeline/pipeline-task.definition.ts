/**
 * What every state machine definition of the pipeline is built of (the module import,
 * module-import.definition.ts; the site export and import, site-transfer.definition.ts): a
 * task's function and its ARN placeholder, and the Task state that invokes it.
 */
import { PipelineErrorName } from './errors.ts';

export interface PipelineTask {
  /** Definition placeholder `${<substitution>}` that holds the function ARN. */
  substitution: string;
  stateName: string;
  /** Repo-relative path of the handler module. */
  entry: string;
  exportName: 'handler';
}

/** The task of state `stateName`, run by the handler of functions/pipeline/<file>.ts. */
export function pipelineTask(stateName: string, file: string): PipelineTask {
  return {
    substitution: `${stateName}FunctionArn`,
    stateName,
    entry: `functions/pipeline/${file}.ts`,
    exportName: 'handler',
  };
}

/** Failures of the Lambda service itself (the same set CDK's LambdaInvoke retries). */
const LAMBDA_SERVICE_ERRORS = [
  'Lambda.ClientExecutionTimeoutException',
  'Lambda.ServiceException',
  'Lambda.AWSLambdaException',
  'Lambda.SdkClientException',
  'Lambda.TooManyRequestsException',
];

export interface TaskStateOptions {
  timeoutSeconds: number;
  /** Retriers tried before the two every task has (the Lambda service's errors, then transient storage). */
  retry?: object[];
  /** Caps the wait between retries of transient storage errors. */
  transientMaxDelaySeconds?: number;
  catch?: object[];
  next: { Next: string } | { End: true };
}

/**
 * A Task state invoking the task's function through the optimized Lambda integration: the
 * function receives the state input as its event; the state output is the function's result.
 * Every task retries the Lambda service's own failures and PipelineErrorName.TransientStorage
 * (a task saves nothing until its work is written, so running it again is safe).
 */
export function lambdaInvokeState(task: PipelineTask, state: TaskStateOptions) {
  const maxDelay = state.transientMaxDelaySeconds;
  return {
    Type: 'Task',
    Resource: 'arn:aws:states:::lambda:invoke',
    Parameters: { FunctionName: `\${${task.substitution}}`, 'Payload.$': '$' },
    OutputPath: '$.Payload',
    TimeoutSeconds: state.timeoutSeconds,
    Retry: [
      ...(state.retry ?? []),
      {
        ErrorEquals: LAMBDA_SERVICE_ERRORS,
        IntervalSeconds: 1,
        MaxAttempts: 3,
        BackoffRate: 2,
        JitterStrategy: 'FULL',
      },
      {
        ErrorEquals: [PipelineErrorName.TransientStorage],
        IntervalSeconds: 2,
        MaxAttempts: 4,
        BackoffRate: 2,
        ...(maxDelay === undefined ? {} : { MaxDelaySeconds: maxDelay }),
        JitterStrategy: 'FULL',
      },
    ],
    ...(state.catch ? { Catch: state.catch } : {}),
    ...state.next,
  };
}
