/**
 * The site export and import state machines (functions/pipeline/site-transfer.definition.ts),
 * deployed in the pipeline stack next to the module import: the same ASL objects the local
 * runner executes, with the ARNs of their task functions filled in.
 */
import { Duration, type Stack } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { DefinitionBody, LogLevel, StateMachine, StateMachineType } from 'aws-cdk-lib/aws-stepfunctions';
import {
  siteExportDefinition,
  siteExportTasks,
  siteImportDefinition,
  siteImportTasks,
  STEP_TASK_TIMEOUT_SECONDS,
} from '../../../functions/pipeline/site-transfer.definition.ts';
import type { PipelineTask } from '../../../functions/pipeline/pipeline-task.definition.ts';
import { addAlarm } from '../constructs/alarm.ts';
import { ProjectFunction } from '../constructs/project-function.ts';
import { type FunctionAccess, grantFunctionAccess, type GrantTargets } from '../grants.ts';
import { SITE_TRANSFER_PREFIX } from '../../../shared/site-archive/keys.ts';
import { SEARCH_INDEX_PREFIX } from '../../../shared/search/keys.ts';
import { repoPath } from '../../repo-paths.ts';
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

const TASK_MEMORY_MB = 1024;
const TASK_TIMEOUT_MARGIN_SECONDS = 5;

export function siteTransferStateMachines(
  stack: Stack,
  props: { settings: SiteSettings; environment: Record<string, string>; alarmTopic: ITopic; grants: GrantTargets },
): { exportMachine: StateMachine; importMachine: StateMachine } {
  const machine = (name: string, definition: object, tasks: PipelineTask[]) => {
    const substitutions: Record<string, string> = {};
    const functions: ProjectFunction[] = [];
    for (const task of tasks) {
      const access = SITE_TRANSFER_TASK_ACCESS[task.stateName];
      if (!access) throw new Error(`Site transfer task ${task.stateName} has no entry in SITE_TRANSFER_TASK_ACCESS`);
      const states = (definition as { States: Record<string, { TimeoutSeconds?: number }> }).States;
      const taskFunction = new ProjectFunction(stack, task.stateName, {
        entry: repoPath(task.entry),
        handlerExport: task.exportName,
        description: `Stepwise ${name} step ${task.stateName}`,
        environment: props.environment,
        memoryMb: TASK_MEMORY_MB,
        timeoutSeconds:
          (states[task.stateName]?.TimeoutSeconds ?? STEP_TASK_TIMEOUT_SECONDS) - TASK_TIMEOUT_MARGIN_SECONDS,
        logRetention: props.settings.logRetentionDays,
        logLevel: props.settings.logLevel,
        alarmTopic: props.alarmTopic,
      });
      grantFunctionAccess(taskFunction, access, props.grants);
      substitutions[task.substitution] = taskFunction.function.functionArn;
      functions.push(taskFunction);
    }
    const stateMachine = new StateMachine(stack, name, {
      stateMachineType: StateMachineType.STANDARD,
      definitionBody: DefinitionBody.fromString(JSON.stringify(definition)),
      definitionSubstitutions: substitutions,
      logs: {
        destination: new LogGroup(stack, `${name}Logs`, { retention: props.settings.logRetentionDays }),
        level: LogLevel.ALL,
        // Execution data is `{ exportid | importid, done }`; job state stays in the table.
        includeExecutionData: true,
      },
      tracingEnabled: true,
    });
    stateMachine.addToRolePolicy(
      new PolicyStatement({
        actions: ['lambda:InvokeFunction'],
        resources: functions.map((fn) => fn.function.functionArn),
      }),
    );
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
