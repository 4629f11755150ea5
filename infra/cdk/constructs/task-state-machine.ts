/**
 * The one way this project deploys a state machine whose definition is an ASL object the local
 * runner also executes (functions/pipeline/*.definition.ts): the module import and the site
 * export and import. Each Task state gets a ProjectFunction granted what its access entry names,
 * and its ARN fills the definition's substitution.
 */
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { DefinitionBody, LogLevel, StateMachine, StateMachineType } from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import type { PipelineTask } from '../../../functions/pipeline/pipeline-task.definition.ts';
import { repoPath } from '../../repo-paths.ts';
import { type FunctionAccess, grantFunctionAccess, type GrantTargets } from '../grants.ts';
import type { SiteSettings } from '../site-settings.ts';
import { ProjectFunction } from './project-function.ts';

const TASK_MEMORY_MB = 1024;
/** The Lambda timeout stays below the Task state's, so a slow run fails as a Lambda error. */
const TASK_TIMEOUT_MARGIN_SECONDS = 5;

/**
 * The entry of `name` in an access table (`table` names it in the error), which every function
 * must have: a function missing from its table fails synth rather than deploying without grants.
 */
export function requiredAccess(access: Record<string, FunctionAccess>, name: string, table: string): FunctionAccess {
  const entry = access[name];
  if (!entry) throw new Error(`${name} has no entry in ${table}`);
  return entry;
}

export interface TaskStateMachineProps {
  definition: object;
  tasks: PipelineTask[];
  /** What each task may do, by state name, and where that table is (named when an entry is missing). */
  access: Record<string, FunctionAccess>;
  accessTable: string;
  /** How a task function describes itself: `Stepwise <label> step <state name>`. */
  label: string;
  /** A Task state's timeout where the definition gives none. */
  defaultTaskTimeoutSeconds: number;
  settings: SiteSettings;
  environment: Record<string, string>;
  alarmTopic: ITopic;
  grants: GrantTargets;
}

/** The task functions (by state name) and the STANDARD state machine `name` that invokes them. */
export function taskStateMachine(
  scope: Construct,
  name: string,
  props: TaskStateMachineProps,
): { stateMachine: StateMachine; taskFunctions: Record<string, ProjectFunction> } {
  const { settings } = props;
  const states = (props.definition as { States: Record<string, { TimeoutSeconds?: number }> }).States;
  const substitutions: Record<string, string> = {};
  const taskFunctions: Record<string, ProjectFunction> = {};
  for (const task of props.tasks) {
    const access = requiredAccess(props.access, task.stateName, props.accessTable);
    const taskFunction = new ProjectFunction(scope, task.stateName, {
      entry: repoPath(task.entry),
      handlerExport: task.exportName,
      description: `Stepwise ${props.label} step ${task.stateName}`,
      environment: props.environment,
      memoryMb: TASK_MEMORY_MB,
      timeoutSeconds:
        (states[task.stateName]?.TimeoutSeconds ?? props.defaultTaskTimeoutSeconds) - TASK_TIMEOUT_MARGIN_SECONDS,
      logRetention: settings.logRetentionDays,
      logLevel: settings.logLevel,
      alarmTopic: props.alarmTopic,
    });
    grantFunctionAccess(taskFunction, access, props.grants);
    substitutions[task.substitution] = taskFunction.function.functionArn;
    taskFunctions[task.stateName] = taskFunction;
  }
  const stateMachine = new StateMachine(scope, name, {
    stateMachineType: StateMachineType.STANDARD,
    definitionBody: DefinitionBody.fromString(JSON.stringify(props.definition)),
    definitionSubstitutions: substitutions,
    logs: {
      destination: new LogGroup(scope, `${name}Logs`, { retention: settings.logRetentionDays }),
      level: LogLevel.ALL,
      // Execution data is small (ids, a done flag); job state stays in the table.
      includeExecutionData: true,
    },
    tracingEnabled: true,
  });
  // A definition given as a string is opaque to CDK, so the invoke grant is explicit: the
  // unqualified ARNs the definition names, not grantInvoke's extra `<arn>:*` for versions.
  stateMachine.addToRolePolicy(
    new PolicyStatement({
      actions: ['lambda:InvokeFunction'],
      resources: Object.values(taskFunctions).map((taskFunction) => taskFunction.function.functionArn),
    }),
  );
  return { stateMachine, taskFunctions };
}
