/**
 * The site export and import state machines (functions/pipeline/site-transfer.definition.ts),
 * deployed in the pipeline stack next to the module import: the same ASL objects the local
 * runner executes, with the ARNs of their task functions filled in.
 */
import { Duration, type Stack } from 'aws-cdk-lib';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import {
  siteExportDefinition,
  siteExportTasks,
  siteImportDefinition,
  siteImportTasks,
  STEP_TASK_TIMEOUT_SECONDS,
} from '../../../functions/pipeline/site-transfer.definition.ts';
import type { PipelineTask } from '../../../functions/pipeline/pipeline-task.definition.ts';
import { addAlarm } from '../constructs/alarm.ts';
import { taskStateMachine } from '../constructs/task-state-machine.ts';
import type { FunctionAccess, GrantTargets } from '../grants.ts';
import { SITE_TRANSFER_PREFIX } from '../../../shared/site-archive/keys.ts';
import { SEARCH_INDEX_PREFIX } from '../../../shared/search/keys.ts';
import type { SiteSettings } from '../site-settings.ts';

const TRANSFER = [SITE_TRANSFER_PREFIX];
const WHOLE_BUCKET = [''];
const JOB: FunctionAccess = { table: ['GetItem', 'UpdateItem'] };

/**
 * What each site transfer task may do, by state name (a task missing here fails synth). The two
 * steps are the only functions granted dynamodb:Scan: background jobs, never a request path.
 */
export const SITE_TRANSFER_TASK_ACCESS: Record<string, FunctionAccess> = {
  // Scans the table and reads every object of both buckets (site-transfer/ itself left out);
  // streams its parts under site-transfer/ (multipart; a failed part aborts); saves its cursor;
  // a step that finds its export cancelled removes the parts it wrote.
  ExportStep: {
    table: ['Scan', 'GetItem', 'UpdateItem'],
    objects: [
      { bucket: 'media', prefixes: WHOLE_BUCKET, actions: ['GetObject'] },
      { bucket: 'modules', prefixes: WHOLE_BUCKET, actions: ['GetObject'] },
      { bucket: 'modules', prefixes: TRANSFER, actions: ['PutObject', 'AbortMultipartUpload', 'DeleteObject'] },
    ],
    list: [{ bucket: 'media' }, { bucket: 'modules' }],
  },
  MarkExportFailed: JOB,
  // Reads the uploaded file and its scratch under site-transfer/; compares and writes items (the
  // target scanned in empty mode, the first Admin's items cleared, counters moved, the operator's
  // tokens dropped when the file gives them another userid, audit chains verified); restores
  // objects under their own keys in both buckets (a HEAD first: identical ones are skipped);
  // mails reset links on request; rebuilds the search index.
  ImportStep: {
    table: ['Scan', 'GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem'],
    objects: [
      { bucket: 'media', prefixes: WHOLE_BUCKET, actions: ['GetObject', 'PutObject', 'AbortMultipartUpload'] },
      { bucket: 'modules', prefixes: WHOLE_BUCKET, actions: ['GetObject', 'PutObject', 'AbortMultipartUpload'] },
      { bucket: 'modules', prefixes: TRANSFER, actions: ['DeleteObject'] },
      // The search index it rebuilds when it finishes (older index objects go).
      { bucket: 'modules', prefixes: [SEARCH_INDEX_PREFIX], actions: ['DeleteObject'] },
    ],
    list: [{ bucket: 'media' }, { bucket: 'modules' }],
    sendMail: true,
  },
  MarkSiteImportFailed: JOB,
};

export function siteTransferStateMachines(
  stack: Stack,
  props: { settings: SiteSettings; environment: Record<string, string>; alarmTopic: ITopic; grants: GrantTargets },
): { exportMachine: StateMachine; importMachine: StateMachine } {
  const machine = (name: string, definition: object, tasks: PipelineTask[]) => {
    const { stateMachine } = taskStateMachine(stack, name, {
      definition,
      tasks,
      access: SITE_TRANSFER_TASK_ACCESS,
      accessTable: 'SITE_TRANSFER_TASK_ACCESS (infra/cdk/stacks/site-transfer-machines.ts)',
      label: name,
      defaultTaskTimeoutSeconds: STEP_TASK_TIMEOUT_SECONDS,
      ...props,
    });
    addAlarm(stack, `${name}FailedAlarm`, {
      metric: stateMachine.metricFailed({ period: Duration.minutes(5) }),
      threshold: 1,
      description: `Stepwise ${name}: executions failed (see the state machine log group).`,
      topic: props.alarmTopic,
    });
    return stateMachine;
  };
  return {
    exportMachine: machine('SiteExport', siteExportDefinition, siteExportTasks),
    importMachine: machine('SiteImport', siteImportDefinition, siteImportTasks),
  };
}
