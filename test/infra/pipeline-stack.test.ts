import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { moduleImportDefinition, moduleImportTasks } from '../../functions/pipeline/module-import.definition.ts';
import { PIPELINE_TASK_ACCESS } from '../../infra/stacks/pipeline-stack.ts';
import { actionsOf, buildTestApp, functionIdByDescription, functionStatements, getAttId, resourcesOfType } from './support.ts';

const describeTask = (stateName: string) => `Stepwise module import step ${stateName}`;

let template: Template;
beforeAll(() => {
  template = Template.fromStack(buildTestApp().pipeline);
});

const stateMachine = () => Object.values(resourcesOfType(template, 'AWS::StepFunctions::StateMachine'))[0].Properties;

describe('pipeline stack: state machine', () => {
  it('deploys the ASL object of module-import.definition.ts, with every task ARN substituted', () => {
    template.resourceCountIs('AWS::StepFunctions::StateMachine', 1);
    const { DefinitionString, DefinitionSubstitutions, StateMachineType } = stateMachine();
    expect(StateMachineType).toBe('STANDARD');
    expect(DefinitionString).toBe(JSON.stringify(moduleImportDefinition));
    expect(Object.keys(DefinitionSubstitutions).sort()).toEqual(moduleImportTasks.map((task) => task.substitution).sort());
    for (const task of moduleImportTasks) {
      expect(DefinitionString).toContain(`\${${task.substitution}}`);
      expect(getAttId(DefinitionSubstitutions[task.substitution])).toBe(functionIdByDescription(template, describeTask(task.stateName)));
    }
  });

  it('logs every event with execution data and traces with X-Ray', () => {
    const { LoggingConfiguration, TracingConfiguration } = stateMachine();
    expect(LoggingConfiguration).toMatchObject({ Level: 'ALL', IncludeExecutionData: true });
    expect(getAttId(LoggingConfiguration.Destinations[0].CloudWatchLogsLogGroup.LogGroupArn)).toMatch(/^ModuleImportLogs/);
    expect(TracingConfiguration).toEqual({ Enabled: true });
  });

  it('may invoke exactly the task functions', () => {
    const roleId = getAttId(stateMachine().RoleArn);
    const statements = Object.values(resourcesOfType(template, 'AWS::IAM::Policy'))
      .filter((policy) => policy.Properties.Roles[0].Ref === roleId)
      .flatMap((policy) => policy.Properties.PolicyDocument.Statement);
    const invoke = statements.filter((s) => s.Action === 'lambda:InvokeFunction');
    expect(invoke).toHaveLength(1);
    expect([invoke[0].Resource].flat().map(getAttId).sort()).toEqual(
      moduleImportTasks.map((task) => functionIdByDescription(template, describeTask(task.stateName))).sort(),
    );
  });

  it('alarms on failed and timed-out executions', () => {
    const metrics = Object.values(resourcesOfType(template, 'AWS::CloudWatch::Alarm'))
      .filter((alarm) => alarm.Properties.Namespace === 'AWS/States')
      .map((alarm) => alarm.Properties.MetricName);
    expect(metrics.sort()).toEqual(['ExecutionsFailed', 'ExecutionsTimedOut']);
  });
});

describe('pipeline stack: task functions', () => {
  it('every task has declared access, and its Lambda gives up before its Task state does', () => {
    const states = moduleImportDefinition.States as Record<string, { TimeoutSeconds?: number }>;
    for (const task of moduleImportTasks) {
      expect(PIPELINE_TASK_ACCESS[task.stateName], task.stateName).toBeDefined();
      const fn = resourcesOfType(template, 'AWS::Lambda::Function')[functionIdByDescription(template, describeTask(task.stateName))];
      expect(fn.Properties).toMatchObject({ Runtime: 'nodejs22.x', Architectures: ['arm64'] });
      expect(fn.Properties.Timeout).toBeLessThan(states[task.stateName].TimeoutSeconds ?? 60);
    }
  });

  it('InspectPackage may read the modules bucket and nothing else', () => {
    const statements = functionStatements(template, functionIdByDescription(template, describeTask('InspectPackage')));
    const data = statements.filter((s) => !actionsOf([s]).every((action) => /^(logs|xray):/.test(action)));
    expect(actionsOf(data).sort()).toEqual(['s3:GetBucket*', 's3:GetObject*', 's3:List*']);
    expect(JSON.stringify(data.map((s) => s.Resource))).toMatch(/ModulesBucket/);
    expect(JSON.stringify(data.map((s) => s.Resource))).not.toMatch(/MediaBucket|Table/);
  });
});
