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
import { lambdaInvokeState, type PipelineTask, pipelineTask } from './pipeline-task.definition.ts';

export const moduleImportTasks: PipelineTask[] = [
  pipelineTask('FetchPackage', 'fetch-package'),
  pipelineTask('AwaitUpload', 'await-upload'),
  pipelineTask('InspectPackage', 'inspect-package'),
  pipelineTask('ValidatePackage', 'validate-package'),
  pipelineTask('ExtractPackage', 'extract-package'),
  pipelineTask('RecordVersion', 'record-version'),
  pipelineTask('MarkImportFailed', 'mark-import-failed'),
];

const IMPORT_FAILED = 'ImportFailed';
const IMPORT_SUCCEEDED = 'ImportSucceeded';
const MARK_IMPORT_FAILED = 'MarkImportFailed';

/**
 * A task of the import (pipeline-task.definition.ts). Only transient errors are retried
 * (States.TaskFailed would also retry a missing package); anything left goes to MarkImportFailed
 * (then ImportFailed) with the input kept and the error under `$.failure`.
 */
function lambdaTask(
  task: PipelineTask,
  next: { Next: string } | { End: true },
  options: { timeoutSeconds?: number; retry?: object[]; catchTo?: string } = {},
) {
  return lambdaInvokeState(task, {
    timeoutSeconds: options.timeoutSeconds ?? 60,
    retry: options.retry,
    transientMaxDelaySeconds: 30,
    catch: [
      {
        ErrorEquals: ['States.ALL'],
        ResultPath: options.catchTo === IMPORT_FAILED ? '$.markFailure' : '$.failure',
        Next: options.catchTo ?? MARK_IMPORT_FAILED,
      },
    ],
    next,
  });
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
