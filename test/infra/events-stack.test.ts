/** The events stack: bus, stream-fed deliverer with DLQ, scheduled sweep, alarms, least privilege. */
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  ABANDON_SWEEP_TABLE_ACTIONS,
  DELIVERER_TABLE_ACTIONS,
  NOTICE_SWEEP_TABLE_ACTIONS,
} from '../../infra/cdk/stacks/events-stack.ts';
import { scheduledFunctionDescription, scheduledFunctions } from '../../functions/schedules.ts';
import {
  actionsOf,
  buildTestApp,
  functionIdByDescription,
  functionStatements,
  getAttId,
  resourcesOfType,
} from './support.ts';

const STREAM = 'Stepwise event deliverer (new outbox items from the table stream)';
const SWEEP = 'Stepwise event deliverer (retries and pending events), every minute';
const INDEXER = 'Stepwise search indexer (guide, step and wiki changes from the table stream)';
const NOTICES = 'Stepwise notice sweep (due and lapse notices, retraining), every 5 minutes';
const ABANDON = 'Stepwise cmi5 abandon sweep (sessions left open), every 15 minutes';

/** The event source mapping of the function with this description. */
function mappingOf(description: string) {
  const id = functionIdByDescription(template, description);
  const mappings = Object.values(resourcesOfType(template, 'AWS::Lambda::EventSourceMapping'));
  const found = mappings.filter(
    (mapping) => JSON.stringify(mapping.Properties.FunctionName) === JSON.stringify({ Ref: id }),
  );
  expect(found).toHaveLength(1);
  return found[0].Properties;
}

let template: Template;
let stateful: Template;
beforeAll(() => {
  const app = buildTestApp();
  template = Template.fromStack(app.events);
  stateful = Template.fromStack(app.stateful);
});

describe('events stack', () => {
  it('the table streams new images', () => {
    const table = Object.values(resourcesOfType(stateful, 'AWS::DynamoDB::GlobalTable'))[0].Properties;
    expect(table.StreamSpecification).toEqual({ StreamViewType: 'NEW_IMAGE' });
  });

  it('has a bus, and both deliverers know its name', () => {
    template.resourceCountIs('AWS::Events::EventBus', 1);
    const busId = Object.keys(resourcesOfType(template, 'AWS::Events::EventBus'))[0];
    for (const description of [STREAM, SWEEP]) {
      const fn = resourcesOfType(template, 'AWS::Lambda::Function')[functionIdByDescription(template, description)]
        .Properties;
      expect(fn.Environment.Variables.STEPWISE_EVENT_BUS_NAME).toEqual({ Ref: busId });
      expect(fn.Environment.Variables.TABLE_NAME).toBeDefined();
    }
  });

  it('feeds the stream deliverer only new outbox items, with a dead-letter queue on failure', () => {
    const mapping = mappingOf(STREAM);
    expect(mapping.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
    expect(mapping.MaximumRetryAttempts).toBe(3);
    expect(JSON.parse(mapping.FilterCriteria.Filters[0].Pattern)).toEqual({
      eventName: ['INSERT'],
      dynamodb: { NewImage: { entity: { S: ['OutboxEvent'] } } },
    });
    const dlqId = Object.keys(resourcesOfType(template, 'AWS::SQS::Queue')).find((id) =>
      id.startsWith('DeliveryDeadLetters'),
    );
    expect(getAttId(mapping.DestinationConfig.OnFailure.Destination)).toBe(dlqId);
  });

  it('feeds the search indexer guide, step and wiki items only, with a queue of its own on failure', () => {
    const mappings = Object.values(resourcesOfType(template, 'AWS::Lambda::EventSourceMapping'));
    expect(mappings).toHaveLength(2);
    const mapping = mappingOf(INDEXER);
    expect(JSON.parse(mapping.FilterCriteria.Filters[0].Pattern)).toEqual({
      dynamodb: { Keys: { sk: { S: ['GUIDE', 'STEP', 'WIKI'] } } },
    });
    expect(mapping.BatchSize).toBe(1000);
    // No batching window: a change reaches the indexer at the next poll (decision 330).
    expect(mapping.MaximumBatchingWindowInSeconds ?? 0).toBe(0);
    const dlqId = Object.keys(resourcesOfType(template, 'AWS::SQS::Queue')).find((id) =>
      id.startsWith('SearchIndexerDeadLetters'),
    );
    expect(getAttId(mapping.DestinationConfig.OnFailure.Destination)).toBe(dlqId);
  });

  it('grants the search indexer the reads, the head put and search-index/ objects only', () => {
    const statements = functionStatements(template, functionIdByDescription(template, INDEXER));
    const actions = actionsOf(statements);
    const STREAM_READ = /^dynamodb:(DescribeStream|GetRecords|GetShardIterator|ListStreams)$/;
    expect(new Set(actions.filter((action) => action.startsWith('dynamodb:') && !STREAM_READ.test(action)))).toEqual(
      new Set(['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:PutItem']),
    );
    const objects = statements.filter((statement) => String(statement.Action).startsWith('s3:'));
    expect(objects.length).toBeGreaterThan(0);
    expect(JSON.stringify(objects)).toMatch(/search-index\/\*/);
    expect(JSON.stringify(objects)).not.toMatch(/"\/\*"/);
  });

  it('runs the sweep every minute, the notice sweep every 5 minutes, the cmi5 abandon sweep every 15', () => {
    const rules = Object.values(resourcesOfType(template, 'AWS::Events::Rule'));
    expect(rules).toHaveLength(3);
    const scheduleOf = (description: string) =>
      rules.find((rule) => getAttId(rule.Properties.Targets[0].Arn) === functionIdByDescription(template, description))
        ?.Properties.ScheduleExpression;
    expect(scheduleOf(SWEEP)).toBe('rate(1 minute)');
    expect(scheduleOf(NOTICES)).toBe('rate(5 minutes)');
    expect(scheduleOf(ABANDON)).toBe('rate(15 minutes)');
  });

  it('has one rule per entry of functions/schedules.ts, at its rate, invoking its function and handler', () => {
    const rules = Object.values(resourcesOfType(template, 'AWS::Events::Rule'));
    expect(rules).toHaveLength(scheduledFunctions.length);
    const functions = resourcesOfType(template, 'AWS::Lambda::Function');
    for (const schedule of scheduledFunctions) {
      const functionId = functionIdByDescription(template, scheduledFunctionDescription(schedule));
      expect(functionId.startsWith(schedule.name)).toBe(true);
      expect(functions[functionId].Properties.Handler).toBe(`index.${schedule.exportName}`);
      const targeting = rules.filter((rule) => getAttId(rule.Properties.Targets[0].Arn) === functionId);
      expect(targeting).toHaveLength(1);
      const minutes = schedule.rateMinutes;
      expect(targeting[0].Properties.ScheduleExpression).toBe(`rate(${minutes} minute${minutes === 1 ? '' : 's'})`);
    }
  });

  it('grants the cmi5 abandon sweep its table actions only: no Scan, no S3, no mail, no events', () => {
    const actions = actionsOf(functionStatements(template, functionIdByDescription(template, ABANDON)));
    expect(new Set(actions.filter((action) => action.startsWith('dynamodb:')))).toEqual(
      new Set(ABANDON_SWEEP_TABLE_ACTIONS.map((action) => `dynamodb:${action}`)),
    );
    expect(actions).not.toContain('dynamodb:Scan');
    expect(actions.some((action) => /^(s3|ses|events):/.test(action))).toBe(false);
  });

  it('grants the notice sweep its table item actions, Query and SendEmail only: no Scan, no batch writes', () => {
    const statements = functionStatements(template, functionIdByDescription(template, NOTICES));
    const actions = actionsOf(statements);
    expect(new Set(actions.filter((action) => action.startsWith('dynamodb:')))).toEqual(
      new Set(NOTICE_SWEEP_TABLE_ACTIONS.map((action) => `dynamodb:${action}`)),
    );
    expect(actions).toContain('ses:SendEmail');
    expect(actions).not.toContain('dynamodb:Scan');
    expect(actions).not.toContain('dynamodb:BatchWriteItem');
    expect(actions.some((action) => action.startsWith('s3:') || action.startsWith('events:'))).toBe(false);
  });

  it("alarms on dead letters and on a stream falling behind (besides each function's errors and throttles)", () => {
    const metrics = Object.values(resourcesOfType(template, 'AWS::CloudWatch::Alarm')).map(
      (alarm) => alarm.Properties.MetricName,
    );
    expect(metrics).toEqual(
      expect.arrayContaining(['ApproximateNumberOfMessagesVisible', 'IteratorAge', 'Errors', 'Throttles']),
    );
  });

  it('grants the deliverers only the table actions they use and PutEvents on this bus', () => {
    const busId = Object.keys(resourcesOfType(template, 'AWS::Events::EventBus'))[0];
    for (const description of [STREAM, SWEEP]) {
      const statements = functionStatements(template, functionIdByDescription(template, description));
      const actions = actionsOf(statements);
      const STREAM_READ = /^dynamodb:(DescribeStream|GetRecords|GetShardIterator|ListStreams)$/;
      const tableActions = actions.filter((action) => action.startsWith('dynamodb:') && !STREAM_READ.test(action));
      // Only the stream deliverer reads the stream.
      expect(actions.some((action) => STREAM_READ.test(action))).toBe(description === STREAM);
      expect(new Set(tableActions)).toEqual(
        new Set([...DELIVERER_TABLE_ACTIONS.map((action) => `dynamodb:${action}`), 'dynamodb:Query']),
      );
      // Queries of the indexes only.
      const query = statements.filter((statement) => statement.Action === 'dynamodb:Query');
      expect(JSON.stringify(query.map((statement) => statement.Resource))).toMatch(/\/index\/\*/);
      expect(actions).not.toContain('dynamodb:Scan');
      expect(actions).not.toContain('dynamodb:DeleteItem');
      const putEvents = statements.filter((statement) => statement.Action === 'events:PutEvents');
      expect(putEvents).toHaveLength(1);
      expect(getAttId(putEvents[0].Resource)).toBe(busId);
    }
  });
});
