/**
 * The module import state machine. Its definition is the same ASL object the local runner
 * executes (functions/pipeline/module-import.definition.ts); CDK only fills in the ARNs of
 * the task functions.
 */
import { Duration, Stack, type StackProps } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Bucket, EventType, type IBucket } from 'aws-cdk-lib/aws-s3';
import { LambdaDestination } from 'aws-cdk-lib/aws-s3-notifications';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import { moduleImportDefinition, moduleImportTasks } from '../../../functions/pipeline/module-import.definition.ts';
import { objectCreatedTriggers } from '../../../functions/pipeline/triggers.ts';
import { addAlarm } from '../constructs/alarm.ts';
import { ProjectFunction } from '../constructs/project-function.ts';
import { requiredAccess, taskStateMachine } from '../constructs/task-state-machine.ts';
import { functionEnvironment } from '../function-environment.ts';
import { type FunctionAccess, grantFunctionAccess } from '../grants.ts';
import { MEDIA_DERIVED_PREFIX, MEDIA_ORIGINALS_PREFIX } from '../../../shared/storage/media-objects.ts';
import { MODULE_CONTENT_PREFIX, MODULE_PACKAGES_PREFIX } from '../../../shared/storage/module-objects.ts';
import { repoPath } from '../../repo-paths.ts';
import type { SiteSettings } from '../site-settings.ts';
import { siteTransferStateMachines } from './site-transfer-machines.ts';

const PACKAGES = [MODULE_PACKAGES_PREFIX];
const CONTENT = [MODULE_CONTENT_PREFIX];
/**
 * progress() (functions/pipeline/import-task.ts): an UpdateItem; when the import was cancelled
 * meanwhile, the task removes what was extracted (list content/<importid>/, delete it). That
 * clean-up is the rare path of every task that reports progress.
 */
const PROGRESS: FunctionAccess = {
  table: ['UpdateItem'],
  objects: [{ bucket: 'modules', prefixes: CONTENT, actions: ['DeleteObject'] }],
  list: [{ bucket: 'modules', prefixes: CONTENT }],
};

/**
 * What each task may touch, by state name: the exact table actions and, per key prefix, the
 * object actions its code uses. A task missing here fails synth, so a new step cannot ship
 * without someone deciding its permissions. `npm run verify:deploy` fails on a grant its bundle
 * cannot use (docs/deploy-verification.md).
 */
export const PIPELINE_TASK_ACCESS: Record<string, FunctionAccess> = {
  // Streams the fetched package into imports/ (multipart; a failed upload aborts its parts); progress.
  FetchPackage: withProgress({
    objects: [{ bucket: 'modules', prefixes: PACKAGES, actions: ['PutObject', 'AbortMultipartUpload'] }],
  }),
  // HeadObject until the browser's upload is there (ListBucket: a missing key answers 404, not 403); progress.
  AwaitUpload: withProgress({
    objects: [{ bucket: 'modules', prefixes: PACKAGES, actions: ['GetObject'] }],
    list: [{ bucket: 'modules' }],
  }),
  // HeadObject on the uploaded package, with ListBucket for the same reason.
  InspectPackage: {
    objects: [{ bucket: 'modules', prefixes: PACKAGES, actions: ['GetObject'] }],
    list: [{ bucket: 'modules' }],
  },
  // Ranged reads of the zip; progress.
  ValidatePackage: withProgress({ objects: [{ bucket: 'modules', prefixes: PACKAGES, actions: ['GetObject'] }] }),
  // Ranged reads of the zip, each entry uploaded under content/<importid>/ (multipart); progress.
  ExtractPackage: withProgress({
    objects: [
      { bucket: 'modules', prefixes: PACKAGES, actions: ['GetObject'] },
      { bucket: 'modules', prefixes: CONTENT, actions: ['PutObject', 'AbortMultipartUpload'] },
    ],
  }),
  // The import becomes a version: read it, update it with its outbox event (one transaction); the module may take
  // its title.
  RecordVersion: { table: ['GetItem', 'UpdateItem', 'PutItem'] },
  // Marks the import failed (read, then update with its outbox event) and removes partly extracted content.
  MarkImportFailed: {
    table: ['GetItem', 'UpdateItem', 'PutItem'],
    objects: [{ bucket: 'modules', prefixes: CONTENT, actions: ['DeleteObject'] }],
    list: [{ bucket: 'modules', prefixes: CONTENT }],
  },
};

function withProgress(access: FunctionAccess): FunctionAccess {
  return {
    table: [...(PROGRESS.table ?? []), ...(access.table ?? [])],
    objects: [...(access.objects ?? []), ...(PROGRESS.objects ?? [])],
    // A task that may list the whole bucket (HeadObject) needs no content/ listing besides.
    list: access.list ?? PROGRESS.list,
  };
}

/** What each S3-triggered function (functions/pipeline/triggers.ts) may touch, by trigger name. */
export const TRIGGER_ACCESS: Record<string, FunctionAccess> = {
  // Reads the item and the original (whole, or ranges of a video), writes the sizes and posters, records the
  // result on the item. Rare path: an item deleted before or during processing has its objects removed
  // (shared/storage/media-objects.ts deleteMediaObjects: list and delete both prefixes of the item).
  ProcessMedia: {
    table: ['GetItem', 'UpdateItem'],
    objects: [
      { bucket: 'media', prefixes: [MEDIA_ORIGINALS_PREFIX], actions: ['GetObject', 'DeleteObject'] },
      { bucket: 'media', prefixes: [MEDIA_DERIVED_PREFIX], actions: ['PutObject', 'DeleteObject'] },
    ],
    list: [{ bucket: 'media', prefixes: [MEDIA_ORIGINALS_PREFIX, MEDIA_DERIVED_PREFIX] }],
  },
};

const DEFAULT_TASK_STATE_TIMEOUT_SECONDS = 60;

export interface PipelineStackProps extends StackProps {
  settings: SiteSettings;
  table: ITableV2;
  mediaBucket: IBucket;
  modulesBucket: IBucket;
  alarmTopic: ITopic;
}

export class PipelineStack extends Stack {
  readonly importStateMachine: StateMachine;
  readonly siteExportStateMachine: StateMachine;
  readonly siteImportStateMachine: StateMachine;
  readonly taskFunctions: Record<string, ProjectFunction>;
  readonly triggerFunctions: Record<string, ProjectFunction> = {};

  constructor(scope: Construct, id: string, props: PipelineStackProps) {
    super(scope, id, props);
    const { settings } = props;
    const environment = functionEnvironment(settings, props);

    for (const trigger of objectCreatedTriggers) {
      const access = requiredAccess(
        TRIGGER_ACCESS,
        trigger.name,
        'TRIGGER_ACCESS (infra/cdk/stacks/pipeline-stack.ts)',
      );
      const triggerFunction = new ProjectFunction(this, trigger.name, {
        entry: repoPath(trigger.entry),
        handlerExport: trigger.exportName,
        description:
          `Stepwise ${trigger.name} (S3 objects created under ${trigger.prefix} in the ` + `${trigger.bucket} bucket)`,
        environment,
        memoryMb: trigger.memoryMb,
        timeoutSeconds: trigger.timeoutSeconds,
        nodeModules: trigger.nodeModules,
        logRetention: settings.logRetentionDays,
        logLevel: settings.logLevel,
        alarmTopic: props.alarmTopic,
      });
      grantFunctionAccess(triggerFunction, access, { ...props, mailFrom: settings.mailFrom });
      const bucket = trigger.bucket === 'media' ? props.mediaBucket : props.modulesBucket;
      // Referenced by name: a notification added to the stateful stack's own Bucket object
      // would be created in that stack, which would then depend on this one (a cycle). On a
      // referenced bucket CDK adds it from here and leaves other notifications in place.
      Bucket.fromBucketAttributes(this, `${trigger.name}Bucket`, {
        bucketName: bucket.bucketName,
        bucketArn: bucket.bucketArn,
      }).addEventNotification(EventType.OBJECT_CREATED, new LambdaDestination(triggerFunction.function), {
        prefix: trigger.prefix,
      });
      this.triggerFunctions[trigger.name] = triggerFunction;
    }

    // What every state machine of the stack gives its task functions.
    const machineProps = {
      settings,
      environment,
      alarmTopic: props.alarmTopic,
      grants: { ...props, mailFrom: settings.mailFrom },
    };
    const moduleImport = taskStateMachine(this, 'ModuleImport', {
      definition: moduleImportDefinition,
      tasks: moduleImportTasks,
      access: PIPELINE_TASK_ACCESS,
      accessTable: 'PIPELINE_TASK_ACCESS (infra/cdk/stacks/pipeline-stack.ts)',
      label: 'module import',
      defaultTaskTimeoutSeconds: DEFAULT_TASK_STATE_TIMEOUT_SECONDS,
      ...machineProps,
    });
    this.importStateMachine = moduleImport.stateMachine;
    this.taskFunctions = moduleImport.taskFunctions;

    // Site export and import (site-transfer-machines.ts).
    const transfer = siteTransferStateMachines(this, machineProps);
    this.siteExportStateMachine = transfer.exportMachine;
    this.siteImportStateMachine = transfer.importMachine;

    addAlarm(this, 'ImportsFailedAlarm', {
      metric: this.importStateMachine.metricFailed({ period: Duration.minutes(5) }),
      threshold: 1,
      description: 'Stepwise module import: executions failed (see the state machine log group).',
      topic: props.alarmTopic,
    });
    addAlarm(this, 'ImportsTimedOutAlarm', {
      metric: this.importStateMachine.metricTimedOut({ period: Duration.minutes(5) }),
      threshold: 1,
      description: 'Stepwise module import: executions hit the state machine timeout.',
      topic: props.alarmTopic,
    });
  }
}
