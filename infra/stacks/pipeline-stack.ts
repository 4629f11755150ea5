/**
 * The module import state machine. Its definition is the same ASL object the local runner
 * executes (functions/pipeline/module-import.definition.ts); CDK only fills in the ARNs of
 * the task functions.
 */
import { Duration, Stack, type StackProps } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Bucket, EventType, type IBucket } from 'aws-cdk-lib/aws-s3';
import { LambdaDestination } from 'aws-cdk-lib/aws-s3-notifications';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { DefinitionBody, LogLevel, StateMachine, StateMachineType } from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import {
  moduleImportDefinition,
  moduleImportTasks,
  type PipelineTask,
} from '../../functions/pipeline/module-import.definition.ts';
import { objectCreatedTriggers } from '../../functions/pipeline/triggers.ts';
import { addAlarm } from '../constructs/alarm.ts';
import { ProjectFunction } from '../constructs/project-function.ts';
import { functionEnvironment } from '../function-environment.ts';
import { grantAccess } from '../grants.ts';
import type { GroupAccess } from '../../shared/http/route.ts';
import { repoPath } from '../repo-paths.ts';
import type { SiteSettings } from '../site-settings.ts';
import { siteTransferStateMachines } from './site-transfer-machines.ts';

/**
 * What each task may touch, by state name. A task missing here fails synth, so a new step
 * cannot ship without someone deciding its permissions.
 */
export const PIPELINE_TASK_ACCESS: Record<string, GroupAccess> = {
  // Streams the fetched package into the bucket (multipart) and records progress.
  FetchPackage: { table: 'readwrite', modulesBucket: 'readwrite' },
  // HeadObject until the browser's upload is there, then records progress.
  AwaitUpload: { table: 'readwrite', modulesBucket: 'read' },
  // HeadObject on the uploaded package; s3:ListBucket lets a missing key answer 404, not 403.
  InspectPackage: { table: 'none', modulesBucket: 'read' },
  // Ranged reads of the zip; progress.
  ValidatePackage: { table: 'readwrite', modulesBucket: 'read' },
  // Reads the zip, writes content/<importid>/...; progress.
  ExtractPackage: { table: 'readwrite', modulesBucket: 'readwrite' },
  // The import becomes a version; the module may take its title.
  RecordVersion: { table: 'readwrite' },
  // Marks the import failed and removes partly extracted content.
  MarkImportFailed: { table: 'readwrite', modulesBucket: 'readwrite' },
};

/** What each S3-triggered function (functions/pipeline/triggers.ts) may touch, by trigger name. */
export const TRIGGER_ACCESS: Record<string, GroupAccess> = {
  // Reads originals, writes the image sizes, records the result on the media item.
  ProcessMedia: { table: 'readwrite', mediaBucket: 'readwrite' },
};

const TASK_MEMORY_MB = 1024;
/** The Lambda timeout stays below the Task state's, so a slow run fails as a Lambda error. */
const TASK_TIMEOUT_MARGIN_SECONDS = 5;
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
  readonly taskFunctions: Record<string, ProjectFunction> = {};
  readonly triggerFunctions: Record<string, ProjectFunction> = {};

  constructor(scope: Construct, id: string, props: PipelineStackProps) {
    super(scope, id, props);
    const { settings } = props;
    const environment = functionEnvironment(settings, props);

    const definitionSubstitutions: Record<string, string> = {};
    for (const task of moduleImportTasks) {
      const access = PIPELINE_TASK_ACCESS[task.stateName];
      if (!access)
        throw new Error(
          `Pipeline task ${task.stateName} has no entry in PIPELINE_TASK_ACCESS (infra/stacks/pipeline-stack.ts)`,
        );

      const taskFunction = new ProjectFunction(this, task.stateName, {
        entry: repoPath(task.entry),
        handlerExport: task.exportName,
        description: `Stepwise module import step ${task.stateName}`,
        environment,
        memoryMb: TASK_MEMORY_MB,
        timeoutSeconds: taskStateTimeoutSeconds(task) - TASK_TIMEOUT_MARGIN_SECONDS,
        logRetention: settings.logRetentionDays,
        logLevel: settings.logLevel,
        alarmTopic: props.alarmTopic,
      });
      grantAccess(taskFunction, access, { ...props, mailFrom: settings.mailFrom });
      this.taskFunctions[task.stateName] = taskFunction;
      definitionSubstitutions[task.substitution] = taskFunction.function.functionArn;
    }

    for (const trigger of objectCreatedTriggers) {
      const access = TRIGGER_ACCESS[trigger.name];
      if (!access)
        throw new Error(`S3 trigger ${trigger.name} has no entry in TRIGGER_ACCESS (infra/stacks/pipeline-stack.ts)`);
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
      grantAccess(triggerFunction, access, { ...props, mailFrom: settings.mailFrom });
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

    this.importStateMachine = new StateMachine(this, 'ModuleImport', {
      stateMachineType: StateMachineType.STANDARD,
      definitionBody: DefinitionBody.fromString(JSON.stringify(moduleImportDefinition)),
      definitionSubstitutions,
      logs: {
        destination: new LogGroup(this, 'ModuleImportLogs', { retention: settings.logRetentionDays }),
        level: LogLevel.ALL,
        includeExecutionData: true,
      },
      tracingEnabled: true,
    });
    // A definition given as a string is opaque to CDK, so the invoke grant is explicit: the
    // unqualified ARNs the definition names, not grantInvoke's extra `<arn>:*` for versions.
    this.importStateMachine.addToRolePolicy(
      new PolicyStatement({
        actions: ['lambda:InvokeFunction'],
        resources: Object.values(this.taskFunctions).map((taskFunction) => taskFunction.function.functionArn),
      }),
    );

    // Site export and import (site-transfer-machines.ts).
    const transfer = siteTransferStateMachines(this, {
      settings,
      environment,
      alarmTopic: props.alarmTopic,
      grants: { ...props, mailFrom: settings.mailFrom },
    });
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

function taskStateTimeoutSeconds(task: PipelineTask): number {
  const states = moduleImportDefinition.States as Record<string, { TimeoutSeconds?: number }>;
  return states[task.stateName]?.TimeoutSeconds ?? DEFAULT_TASK_STATE_TIMEOUT_SECONDS;
}
