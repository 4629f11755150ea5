/**
 * Events (docs/events.md): the EventBridge bus every event is put on, and the deliverer.
 * - StreamDeliverer reads the table's stream, filtered to new outbox items (INSERT of
 *   entity "OutboxEvent"), fans each event out (bus, one delivery per webhook) and makes the
 *   first attempts. Batches that keep failing go to the dead-letter queue after 3 retries.
 * - RetrySweep, on its schedule: retries that are due, and events still on the pending index
 *   (a batch that went to the DLQ, or a table adopted by name, which has no stream here).
 *   It, NoticeSweep and Cmi5AbandonSweep are the entries of functions/schedules.ts, a rule each.
 * Both are least-privilege: the table actions the deliverer uses, PutEvents on this bus only.
 * - SearchIndexer (search-indexer.ts) reads the same stream, filtered to guide, step and wiki
 *   items, and keeps the search index (decision 208).
 */
import { Duration, Stack, type StackProps } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { EventBus, Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { FilterCriteria, FilterRule, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import {
  everyMinutes,
  type ScheduledFunction,
  scheduledFunction,
  scheduledFunctionDescription,
  scheduledFunctions,
} from '../../../functions/schedules.ts';
import { OUTBOX_ENTITY } from '../../../shared/db/entities/outbox.ts';
import { addAlarm } from '../constructs/alarm.ts';
import { ProjectFunction } from '../constructs/project-function.ts';
import { functionEnvironment } from '../function-environment.ts';
import { searchIndexer } from './search-indexer.ts';
import { grantFunctionAccess, grantTable, type TableAction } from '../grants.ts';
import { repoPath } from '../../repo-paths.ts';
import type { SearchCollection } from '../search-collection.ts';
import type { SiteSettings } from '../site-settings.ts';

/**
 * Exactly what shared/events/deliverer.ts does on the table: item reads and writes, and Queries
 * of the pending, due and per-entity indexes only (no table Query, no Scan, deletes or batches).
 */
export const DELIVERER_TABLE_ACTIONS: TableAction[] = ['GetItem', 'PutItem', 'UpdateItem'];

const RETRY_SWEEP = scheduledFunction('RetrySweep');
const NOTICE_SWEEP = scheduledFunction('NoticeSweep');
const ABANDON_SWEEP = scheduledFunction('Cmi5AbandonSweep');
/**
 * Exactly what shared/training/notice-sweep.ts does (docs/notices.md): Queries of the queue's
 * shards, reads of what each notice is about, its markers, outbox items and retraining
 * assignments (transactions of Put/Update/Delete/ConditionCheck items), the queue item's delete.
 * No Scan, no BatchWrite.
 */
export const NOTICE_SWEEP_TABLE_ACTIONS: TableAction[] = [
  'GetItem',
  'BatchGetItem',
  'Query',
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'ConditionCheckItem',
];
/**
 * Exactly what functions/xapi/abandon-sweep.ts does (docs/lrs.md): Queries of the open-session
 * index, reads of the session, registration and import, the session's update, and the LMS's
 * `abandoned` statement (its index items in BatchWrites before its commit transaction of Puts).
 * No Scan, no deletes of single items, no ConditionCheck.
 */
export const ABANDON_SWEEP_TABLE_ACTIONS: TableAction[] = [
  'GetItem',
  'BatchGetItem',
  'Query',
  'PutItem',
  'UpdateItem',
  'BatchWriteItem',
];
/** A delivery may take STEPWISE_WEBHOOK_TIMEOUT_SECONDS (10 s); a batch delivers many queues side by side. */
const STREAM_TIMEOUT_SECONDS = 120;
const SWEEP_TIMEOUT_SECONDS = 300;

export interface EventsStackProps extends StackProps {
  settings: SiteSettings;
  table: ITableV2;
  mediaBucket: IBucket;
  modulesBucket: IBucket;
  alarmTopic: ITopic;
  /** The site's OpenSearch collection (searchEngine `opensearch`): the search indexer writes it. */
  searchCollection?: SearchCollection;
}

export class EventsStack extends Stack {
  readonly bus: EventBus;
  readonly streamDeliverer: ProjectFunction;
  readonly retrySweep: ProjectFunction;
  /** Sends due notices and assigns retraining (docs/notices.md), on its schedule. */
  readonly noticeSweep: ProjectFunction;
  /** Abandons cmi5 sessions left open (docs/lrs.md), on its schedule. */
  readonly abandonSweep: ProjectFunction;
  readonly deadLetterQueue: Queue;
  /** The search indexer and its dead-letter queue; absent on a table without a stream (adopted by name). */
  readonly searchIndexer: { indexer: ProjectFunction; deadLetters: Queue } | undefined;

  constructor(scope: Construct, id: string, props: EventsStackProps) {
    super(scope, id, props);
    const { settings } = props;

    this.bus = new EventBus(this, 'Bus', {
      eventBusName: `${settings.stackPrefix}-events`,
      description: 'Every Stepwise event (source "stepwise", detail-type the event name)',
    });
    const environment = { ...functionEnvironment(settings, props), STEPWISE_EVENT_BUS_NAME: this.bus.eventBusName };
    const common = {
      // The stream deliverer and the retry sweep: two exports of one module.
      entry: repoPath(RETRY_SWEEP.entry),
      environment,
      logRetention: settings.logRetentionDays,
      logLevel: settings.logLevel,
      alarmTopic: props.alarmTopic,
    };

    this.streamDeliverer = new ProjectFunction(this, 'StreamDeliverer', {
      ...common,
      handlerExport: 'onOutboxStream',
      description: 'Stepwise event deliverer (new outbox items from the table stream)',
      timeoutSeconds: STREAM_TIMEOUT_SECONDS,
    });
    this.retrySweep = new ProjectFunction(this, RETRY_SWEEP.name, {
      ...common,
      handlerExport: RETRY_SWEEP.exportName,
      description: scheduledFunctionDescription(RETRY_SWEEP),
      timeoutSeconds: SWEEP_TIMEOUT_SECONDS,
    });

    for (const deliverer of [this.streamDeliverer, this.retrySweep]) {
      grantTable(deliverer, props.table, DELIVERER_TABLE_ACTIONS, { queryIndexes: true });
      this.bus.grantPutEventsTo(deliverer);
    }

    this.deadLetterQueue = new Queue(this, 'DeliveryDeadLetters', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });

    if (props.table.tableStreamArn) {
      this.streamDeliverer.function.addEventSource(
        new DynamoEventSource(props.table, {
          startingPosition: StartingPosition.TRIM_HORIZON,
          batchSize: 25,
          retryAttempts: 3,
          reportBatchItemFailures: true,
          onFailure: new SqsDlq(this.deadLetterQueue),
          filters: [
            FilterCriteria.filter({
              eventName: FilterRule.isEqual('INSERT'),
              dynamodb: { NewImage: { entity: { S: FilterRule.isEqual(OUTBOX_ENTITY) } } },
            }),
          ],
        }),
      );
      addAlarm(this, 'StreamIteratorAgeAlarm', {
        metric: this.streamDeliverer.function.metric('IteratorAge', {
          statistic: 'Maximum',
          period: Duration.minutes(5),
        }),
        threshold: Duration.minutes(5).toMilliseconds(),
        description: 'Stepwise event deliverer: outbox events wait more than 5 minutes in the table stream.',
        topic: props.alarmTopic,
      });
    }

    this.searchIndexer = searchIndexer(this, {
      settings,
      environment: functionEnvironment(settings, props),
      table: props.table,
      mediaBucket: props.mediaBucket,
      modulesBucket: props.modulesBucket,
      alarmTopic: props.alarmTopic,
      searchCollection: props.searchCollection,
    });

    const sweepFunction = (schedule: ScheduledFunction) =>
      new ProjectFunction(this, schedule.name, {
        entry: repoPath(schedule.entry),
        environment: functionEnvironment(settings, props),
        logRetention: settings.logRetentionDays,
        logLevel: settings.logLevel,
        alarmTopic: props.alarmTopic,
        handlerExport: schedule.exportName,
        description: scheduledFunctionDescription(schedule),
        timeoutSeconds: SWEEP_TIMEOUT_SECONDS,
      });
    this.noticeSweep = sweepFunction(NOTICE_SWEEP);
    grantFunctionAccess(
      this.noticeSweep,
      { table: NOTICE_SWEEP_TABLE_ACTIONS, sendMail: true },
      {
        table: props.table,
        mediaBucket: props.mediaBucket,
        modulesBucket: props.modulesBucket,
        mailFrom: settings.mailFrom,
      },
    );

    this.abandonSweep = sweepFunction(ABANDON_SWEEP);
    grantFunctionAccess(
      this.abandonSweep,
      { table: ABANDON_SWEEP_TABLE_ACTIONS },
      {
        table: props.table,
        mediaBucket: props.mediaBucket,
        modulesBucket: props.modulesBucket,
        mailFrom: settings.mailFrom,
      },
    );

    // One rule per entry of functions/schedules.ts.
    const scheduled: Record<ScheduledFunction['name'], ProjectFunction> = {
      RetrySweep: this.retrySweep,
      NoticeSweep: this.noticeSweep,
      Cmi5AbandonSweep: this.abandonSweep,
    };
    for (const schedule of scheduledFunctions) {
      new Rule(this, `${schedule.name}Schedule`, {
        description: `Runs the Stepwise ${schedule.title} ${everyMinutes(schedule.rateMinutes)}`,
        schedule: Schedule.rate(Duration.minutes(schedule.rateMinutes)),
        targets: [new LambdaFunction(scheduled[schedule.name].function, { retryAttempts: 0 })],
      });
    }

    addAlarm(this, 'DeadLettersAlarm', {
      metric: this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(5),
        statistic: 'Maximum',
      }),
      threshold: 1,
      description:
        'Stepwise event deliverer: stream batches failed every retry (the sweep still delivers their ' +
        'events; see the DLQ for the records).',
      topic: props.alarmTopic,
    });
  }
}
