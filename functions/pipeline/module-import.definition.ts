/**
 * The external-training-module import pipeline, as ONE Amazon States Language object
 * (JSONPath; aws-local-stepfunctions ignores JSONata). Two consumers read it:
 * - the CDK pipeline stack: `DefinitionBody.fromString(JSON.stringify(moduleImportDefinition))`
 *   with `definitionSubstitutions: { [task.substitution]: fn.functionArn }` per task;
 * - the local runner (infra/local/sfn-local.ts), which substitutes fake ARNs and runs each
 *   task's handler in-process.
 *
 * Execution input and task state: ONE contract, shared/workflow/module-import-contract.ts
 * (zod), which the starter, this definition (the first Choice's field) and every task (input
 * and output, functions/pipeline/import-task.ts) read; every task returns the state it
 * received with what it learned added.
 * To add a step: add an entry to `moduleImportTasks`, a state built with `lambdaTask`, point
 * the previous state's `Next` at it, and declare its access in PIPELINE_TASK_ACCESS.
 */
import { FETCH_SOURCE, SOURCE_FIELD } from '../../shared/workflow/module-import-contract.ts';
import { PipelineErrorName } from './errors.ts';

export interface PipelineTask {
  /** Definition placeholder `${<substitution>}` that holds the function ARN. */
  substitution: string;
  stateName: string;
  /** Repo-relative path of the handler module. */
  entry: string;
  exportName: 'handler';
}

const task = (stateName: string, file: string): PipelineTask => ({
  substitution: `${stateName}FunctionArn`,
  stateName,
  entry: `functions/pipeline/${file}.ts`,
  exportName: 'handler',
});

export const moduleImportTasks: PipelineTask[] = [
  task('FetchPackage', 'fetch-package'),
  task('AwaitUpload', 'await-upload'),
  task('InspectPackage', 'inspect-package'),
  task('ValidatePackage', 'validate-package'),
  task('ExtractPackage', 'extract-package'),
  task('RecordVersion', 'record-version'),
  task('MarkImportFailed', 'mark-import-failed'),
];

const IMPORT_FAILED = 'ImportFailed';
const IMPORT_SUCCEEDED = 'ImportSucceeded';
const MARK_IMPORT_FAILED = 'MarkImportFailed';

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
 * anything left goes to MarkImportFailed (then ImportFailed) with the input kept and the error
 * under `$.failure`.
 */
function lambdaTask(
  task: PipelineTask,
  next: { Next: string } | { End: true },
  options: { timeoutSeconds?: number; retry?: object[]; catchTo?: string } = {},
) {
  return {
    Type: 'Task',
    Resource: 'arn:aws:states:::lambda:invoke',
    Parameters: {
      FunctionName: `\${${task.substitution}}`,
      'Payload.$': '$',
    },
    OutputPath: '$.Payload',
    TimeoutSeconds: options.timeoutSeconds ?? 60,
    Retry: [
      ...(options.retry ?? []),
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
    Catch: [
      {
        ErrorEquals: ['States.ALL'],
        ResultPath: options.catchTo === IMPORT_FAILED ? '$.markFailure' : '$.failure',
        Next: options.catchTo ?? MARK_IMPORT_FAILED,
      },
    ],
    ...next,
  };
}

function taskFor(stateName: string): PipelineTask {
  const found = moduleImportTasks.find((t) => t.stateName === stateName);
  if (!found) throw new Error(`No pipeline task for state ${stateName}`);
  return found;
}

export const moduleImportDefinition = {
  Comment: 'Import an external training module package: fetch or await it, validate, extract to S3, record the version',
  StartAt: 'ReceivePackage',
  // Awaiting a browser upload may take ~12 minutes, extraction up to 15.
  TimeoutSeconds: 3600,
  States: {
    ReceivePackage: {
      Type: 'Choice',
      Choices: [{ Variable: `$.${SOURCE_FIELD}`, StringEquals: FETCH_SOURCE, Next: 'FetchPackage' }],
      Default: 'AwaitUpload',
    },
    FetchPackage: lambdaTask(taskFor('FetchPackage'), { Next: 'InspectPackage' }, { timeoutSeconds: 300 }),
    AwaitUpload: lambdaTask(
      taskFor('AwaitUpload'),
      { Next: 'InspectPackage' },
      {
        retry: [
          {
            ErrorEquals: [PipelineErrorName.PackageNotUploaded],
            IntervalSeconds: 3,
            MaxAttempts: 40,
            BackoffRate: 1.5,
            MaxDelaySeconds: 20,
          },
        ],
      },
    ),
    InspectPackage: lambdaTask(taskFor('InspectPackage'), { Next: 'ValidatePackage' }),
    ValidatePackage: lambdaTask(taskFor('ValidatePackage'), { Next: 'ExtractPackage' }, { timeoutSeconds: 120 }),
    ExtractPackage: lambdaTask(taskFor('ExtractPackage'), { Next: 'RecordVersion' }, { timeoutSeconds: 900 }),
    RecordVersion: lambdaTask(taskFor('RecordVersion'), { Next: IMPORT_SUCCEEDED }),
    [IMPORT_SUCCEEDED]: { Type: 'Succeed' },
    [MARK_IMPORT_FAILED]: lambdaTask(taskFor(MARK_IMPORT_FAILED), { Next: IMPORT_FAILED }, { catchTo: IMPORT_FAILED }),
    [IMPORT_FAILED]: {
      Type: 'Fail',
      Comment: 'Error and Cause of the failed task, as Step Functions reported them',
      ErrorPath: '$.failure.Error',
      CausePath: '$.failure.Cause',
    },
  },
};
