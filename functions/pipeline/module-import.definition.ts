/**
 * The external-training-module import pipeline, as ONE Amazon States Language object
 * (JSONPath; aws-local-stepfunctions ignores JSONata). Two consumers read it:
 * - the CDK pipeline stack: `DefinitionBody.fromString(JSON.stringify(moduleImportDefinition))`
 *   with `definitionSubstitutions: { [task.substitution]: fn.functionArn }` per task;
 * - the local runner (infra/local/sfn-local.ts), which substitutes fake ARNs and runs each
 *   task's handler in-process.
 *
 * Execution input: `{ bucket, key }` of the uploaded package. Output: the package facts.
 * To add a step: add an entry to `moduleImportTasks`, a state built with `lambdaTask`, and
 * point the previous state's `Next` at it.
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

export const moduleImportTasks: PipelineTask[] = [
  {
    substitution: 'InspectPackageFunctionArn',
    stateName: 'InspectPackage',
    entry: 'functions/pipeline/inspect-package.ts',
    exportName: 'handler',
  },
];

const IMPORT_FAILED = 'ImportFailed';
const IMPORT_SUCCEEDED = 'ImportSucceeded';

/** Failures of the Lambda service itself (the same set CDK's LambdaInvoke retries). */
const LAMBDA_SERVICE_ERRORS = [
  'Lambda.ClientExecutionTimeoutException',
  'Lambda.ServiceException',
  'Lambda.AWSLambdaException',
  'Lambda.SdkClientException',
  'Lambda.TooManyRequestsException',
];

/**
 * A Task invoking one pipeline function through the optimized Lambda integration. The
 * function receives the state input as its event; the state output is the function's result.
 * Only transient errors are retried (States.TaskFailed would also retry a missing package);
 * anything left goes to ImportFailed with the input kept and the error under `$.failure`.
 */
function lambdaTask(task: PipelineTask, next: { Next: string } | { End: true }) {
  return {
    Type: 'Task',
    Resource: 'arn:aws:states:::lambda:invoke',
    Parameters: {
      FunctionName: `\${${task.substitution}}`,
      'Payload.$': '$',
    },
    OutputPath: '$.Payload',
    TimeoutSeconds: 60,
    Retry: [
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
        MaxDelaySeconds: 30,
        JitterStrategy: 'FULL',
      },
    ],
    Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.failure', Next: IMPORT_FAILED }],
    ...next,
  };
}

function task(stateName: string): PipelineTask {
  const found = moduleImportTasks.find((t) => t.stateName === stateName);
  if (!found) throw new Error(`No pipeline task for state ${stateName}`);
  return found;
}

export const moduleImportDefinition = {
  Comment: 'Import an external training module package uploaded to S3',
  StartAt: 'InspectPackage',
  TimeoutSeconds: 900,
  States: {
    InspectPackage: lambdaTask(task('InspectPackage'), { Next: IMPORT_SUCCEEDED }),
    [IMPORT_SUCCEEDED]: { Type: 'Succeed' },
    [IMPORT_FAILED]: {
      Type: 'Fail',
      Comment: 'Error and Cause of the failed task, as Step Functions reported them',
      ErrorPath: '$.failure.Error',
      CausePath: '$.failure.Cause',
    },
  },
};
