/**
 * The module import state machine. Its definition is the same ASL object the local runner
 * executes (functions/pipeline/module-import.definition.ts); CDK only fills in the ARNs of
 * the task functions.
 */
import { Duration, Stack, type StackProps } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { DefinitionBody, LogLevel, StateMachine, StateMachineType } from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import {
  moduleImportDefinition,
  moduleImportTasks,
  type PipelineTask,
} from '../../functions/pipeline/module-import.definition.ts';
import { addAlarm } from '../constructs/alarm.ts';
import { ProjectFunction } from '../constructs/project-function.ts';
import { functionEnvironment } from '../function-environment.ts';
import { grantAccess } from '../grants.ts';
import type { GroupAccess } from '../../shared/http/route.ts';
import { repoPath } from '../repo-paths.ts';
import type { SiteSettings } from '../site-settings.ts';

/**
 * What each task may touch, by state name. A task missing here fails synth, so a new step
 * cannot ship without someone deciding its permissions.
 */
export const PIPELINE_TASK_ACCESS: Record<string, GroupAccess> = {
  // HeadObject on the uploaded package; s3:ListBucket lets a missing key answer 404, not 403.
  InspectPackage: { table: 'none', modulesBucket: 'read' },
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
  readonly taskFunctions: Record<string, ProjectFunction> = {};

  constructor(scope: Construct, id: string, props: PipelineStackProps) {
    super(scope, id, props);
    const { settings } = props;
    const environment = functionEnvironment(settings, props);

    const definitionSubstitutions: Record<string, string> = {};
    for (const task of moduleImportTasks) {
      const access = PIPELINE_TASK_ACCESS[task.stateName];
      if (!access) throw new Error(`Pipeline task ${task.stateName} has no entry in PIPELINE_TASK_ACCESS (infra/stacks/pipeline-stack.ts)`);

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
