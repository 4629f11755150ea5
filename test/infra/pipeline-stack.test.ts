import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { moduleImportDefinition, moduleImportTasks } from '../../functions/pipeline/module-import.definition.ts';
import { PIPELINE_TASK_ACCESS } from '../../infra/cdk/stacks/pipeline-stack.ts';
import {
  actionsOf,
  buildTestApp,
  functionIdByDescription,
  functionStatements,
  getAttId,
  resourcesOfType,
} from './support.ts';

const describeTask = (stateName: string) => `Stepwise module import step ${stateName}`;

let template: Template;
beforeAll(() => {
  template = Template.fromStack(buildTestApp().pipeline);
});

/** The module import machine (the stack also holds the site export and import machines). */
const stateMachine = () =>
  Object.entries(resourcesOfType(template, 'AWS::StepFunctions::StateMachine')).find(([id]) =>
    id.startsWith('ModuleImport'),
  )![1].Properties;

describe('pipeline stack: state machine', () => {
  it('deploys the ASL object of module-import.definition.ts, with every task ARN substituted', () => {
    // Module import, site export, site import.
    template.resourceCountIs('AWS::StepFunctions::StateMachine', 3);
    const { DefinitionString, DefinitionSubstitutions, StateMachineType } = stateMachine();
    expect(StateMachineType).toBe('STANDARD');
    expect(DefinitionString).toBe(JSON.stringify(moduleImportDefinition));
    expect(Object.keys(DefinitionSubstitutions).sort()).toEqual(
      moduleImportTasks.map((task) => task.substitution).sort(),
    );
    for (const task of moduleImportTasks) {
      expect(DefinitionString).toContain(`\${${task.substitution}}`);
      expect(getAttId(DefinitionSubstitutions[task.substitution])).toBe(
        functionIdByDescription(template, describeTask(task.stateName)),
      );
    }
  });

  it('logs every event with execution data and traces with X-Ray', () => {
    const { LoggingConfiguration, TracingConfiguration } = stateMachine();
    expect(LoggingConfiguration).toMatchObject({ Level: 'ALL', IncludeExecutionData: true });
    expect(getAttId(LoggingConfiguration.Destinations[0].CloudWatchLogsLogGroup.LogGroupArn)).toMatch(
      /^ModuleImportLogs/,
    );
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
    // The module import's two, and a failed-executions alarm of each site transfer machine.
    expect(metrics.sort()).toEqual(['ExecutionsFailed', 'ExecutionsFailed', 'ExecutionsFailed', 'ExecutionsTimedOut']);
  });
});

describe('pipeline stack: task functions', () => {
  it('every task has declared access, and its Lambda gives up before its Task state does', () => {
    const states = moduleImportDefinition.States as Record<string, { TimeoutSeconds?: number }>;
    for (const task of moduleImportTasks) {
      expect(PIPELINE_TASK_ACCESS[task.stateName], task.stateName).toBeDefined();
      const fn = resourcesOfType(template, 'AWS::Lambda::Function')[
        functionIdByDescription(template, describeTask(task.stateName))
      ];
      expect(fn.Properties).toMatchObject({ Runtime: 'nodejs22.x', Architectures: ['arm64'] });
      expect(fn.Properties.Timeout).toBeLessThan(states[task.stateName].TimeoutSeconds ?? 60);
    }
  });

  it('InspectPackage may read the modules bucket and nothing else', () => {
    const statements = functionStatements(template, functionIdByDescription(template, describeTask('InspectPackage')));
    const data = statements.filter((s) => !actionsOf([s]).every((action) => /^(logs|xray):/.test(action)));
    // ListBucket on the whole bucket: a HeadObject of a missing key then answers 404, not 403.
    expect(actionsOf(data).sort()).toEqual(['s3:GetObject', 's3:ListBucket']);
    expect(JSON.stringify(data.map((s) => s.Resource))).toMatch(/\/imports\/\*/);
    expect(JSON.stringify(data.map((s) => s.Resource))).toMatch(/ModulesBucket/);
    expect(JSON.stringify(data.map((s) => s.Resource))).not.toMatch(/MediaBucket|Table/);
  });
});

describe('pipeline stack: module import tasks', () => {
  const dataStatements = (stateName: string) =>
    functionStatements(template, functionIdByDescription(template, describeTask(stateName))).filter(
      (s) => !actionsOf([s]).every((action) => /^(logs|xray):/.test(action)),
    );
  const resources = (stateName: string) => JSON.stringify(dataStatements(stateName).map((s) => s.Resource));

  it('ExtractPackage may write the modules bucket and the table, never the media bucket', () => {
    expect(actionsOf(dataStatements('ExtractPackage'))).toEqual(
      expect.arrayContaining(['s3:PutObject', 's3:AbortMultipartUpload', 'dynamodb:UpdateItem']),
    );
    // It writes extracted content only, never packages; it may list content/ only (a cancelled import's clean-up).
    const writes = dataStatements('ExtractPackage').filter((s) => actionsOf([s]).includes('s3:PutObject'));
    expect(JSON.stringify(writes.map((s) => s.Resource))).toMatch(/\/content\/\*/);
    expect(JSON.stringify(writes.map((s) => s.Resource))).not.toMatch(/imports/);
    const list = dataStatements('ExtractPackage').find((s) => actionsOf([s]).includes('s3:ListBucket'));
    expect(list?.Condition).toEqual({ StringLike: { 's3:prefix': ['content/*'] } });
    expect(resources('ExtractPackage')).toMatch(/ModulesBucket/);
    expect(resources('ExtractPackage')).not.toMatch(/MediaBucket/);
  });

  it('RecordVersion touches the table only; ValidatePackage only reads the bucket', () => {
    expect(resources('RecordVersion')).not.toMatch(/Bucket/);
    expect(actionsOf(dataStatements('ValidatePackage')).filter((action) => action.startsWith('s3:'))).not.toContain(
      's3:PutObject',
    );
  });
});

describe('pipeline stack: S3-triggered media processing', () => {
  const processMedia = () =>
    functionIdByDescription(
      template,
      'Stepwise ProcessMedia (S3 objects created under originals/ in the media bucket)',
    );

  it('subscribes the media processor to objects created under originals/ of the media bucket', () => {
    const notifications = Object.values(resourcesOfType(template, 'Custom::S3BucketNotifications'));
    expect(notifications).toHaveLength(1);
    const { NotificationConfiguration, BucketName, Managed } = notifications[0]!.Properties;
    // Managed false: notifications set elsewhere on the bucket are kept.
    expect(Managed).toBe(false);
    expect(JSON.stringify(BucketName)).toMatch(/MediaBucket/);
    expect(NotificationConfiguration.LambdaFunctionConfigurations).toEqual([
      {
        Events: ['s3:ObjectCreated:*'],
        Filter: { Key: { FilterRules: [{ Name: 'prefix', Value: 'originals/' }] } },
        LambdaFunctionArn: { 'Fn::GetAtt': [processMedia(), 'Arn'] },
      },
    ]);
    const permissions = Object.values(resourcesOfType(template, 'AWS::Lambda::Permission')).filter(
      (permission) => getAttId(permission.Properties.FunctionName) === processMedia(),
    );
    expect(permissions.map((permission) => permission.Properties.Principal)).toEqual(['s3.amazonaws.com']);
  });

  it('runs arm64 with room for sharp, and may use the media bucket and the table only', () => {
    const fn = resourcesOfType(template, 'AWS::Lambda::Function')[processMedia()]!;
    expect(fn.Properties).toMatchObject({ Architectures: ['arm64'], MemorySize: 2048, Timeout: 120 });
    const statements = functionStatements(template, processMedia()).filter(
      (s) => !actionsOf([s]).every((action) => /^(logs|xray):/.test(action)),
    );
    expect(JSON.stringify(statements.map((s) => s.Resource))).toMatch(/MediaBucket/);
    expect(JSON.stringify(statements.map((s) => s.Resource))).not.toMatch(/ModulesBucket/);
    // Reads originals, writes sizes: never an original, never a table action it does not use.
    const writes = statements.filter((s) => actionsOf([s]).includes('s3:PutObject'));
    expect(JSON.stringify(writes.map((s) => s.Resource))).toMatch(/\/igi\/\*/);
    expect(JSON.stringify(writes.map((s) => s.Resource))).not.toMatch(/originals/);
    expect(
      actionsOf(statements)
        .filter((action) => action.startsWith('dynamodb:'))
        .sort(),
    ).toEqual(['dynamodb:GetItem', 'dynamodb:UpdateItem']);
  });
});
