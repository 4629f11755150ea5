/**
 * The site export and site import jobs, each ONE Amazon States Language object read by the CDK
 * pipeline stack and by the local runner (infra/local/sfn-local.ts), like the module import.
 * Both are a loop: a step task works until its time budget or part size is used up, saves its
 * cursor in the job item and answers `{ ..., done }`; a Choice runs it again until done. Any
 * error left after the retries goes to the job's Mark...Failed task, then to Fail.
 *
 * Execution input and loop state: shared/workflow/site-transfer-contract.ts.
 */
import { DONE_FIELD } from '../../shared/workflow/site-transfer-contract.ts';
import { lambdaInvokeState, type PipelineTask, pipelineTask } from './pipeline-task.definition.ts';

export const siteExportTasks: PipelineTask[] = [
  pipelineTask('ExportStep', 'site-export-step'),
  pipelineTask('MarkExportFailed', 'site-export-failed'),
];

export const siteImportTasks: PipelineTask[] = [
  pipelineTask('ImportStep', 'site-import-step'),
  pipelineTask('MarkSiteImportFailed', 'site-import-failed'),
];

/** Seconds a step task may run: the budget (STEPWISE_TRANSFER_STEP_SECONDS, 600) plus room to close its part. */
export const STEP_TASK_TIMEOUT_SECONDS = 900;

function invoke(task: PipelineTask, timeoutSeconds: number, next: { Next: string }, catchTo: string | null) {
  return lambdaInvokeState(task, {
    timeoutSeconds,
    ...(catchTo ? { catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.failure', Next: catchTo }] } : {}),
    next,
  });
}

function jobDefinition(kind: 'export' | 'import', tasks: PipelineTask[], comment: string) {
  const [step, markFailed] = tasks as [PipelineTask, PipelineTask];
  const failed = `${kind === 'export' ? 'Export' : 'Import'}Failed`;
  return {
    Comment: comment,
    StartAt: step.stateName,
    // A 10 GB site at a few MB/s stays well within a day.
    TimeoutSeconds: 86_400,
    States: {
      [step.stateName]: invoke(step, STEP_TASK_TIMEOUT_SECONDS, { Next: 'Done?' }, markFailed.stateName),
      'Done?': {
        Type: 'Choice',
        Choices: [{ Variable: `$.${DONE_FIELD}`, BooleanEquals: true, Next: 'Finished' }],
        Default: step.stateName,
      },
      Finished: { Type: 'Succeed' },
      [markFailed.stateName]: invoke(markFailed, 60, { Next: failed }, null),
      [failed]: { Type: 'Fail', ErrorPath: '$.failure.Error', CausePath: '$.failure.Cause' },
    },
  };
}

export const siteExportDefinition = jobDefinition(
  'export',
  siteExportTasks,
  'Export the whole site (table items and bucket objects) as site-file parts, step by step',
);

export const siteImportDefinition = jobDefinition(
  'import',
  siteImportTasks,
  'Validate an uploaded site file, then write its items and objects, step by step',
);
