/**
 * The search indexer (decision 208, docs/search.md): a function fed by the table's stream,
 * filtered to the items that name a search document (sort keys GUIDE, STEP, WIKI), so the
 * deliverer's outbox records and every other write never invoke it. Retries a failed batch
 * (the write is idempotent: documents are read as they are now), then gives up on it to a
 * dead-letter queue with an alarm; a lost batch is healed by the next change of the same
 * document, or by a rebuild (the function invoked with `{"rebuild": true}`).
 * Least privilege: the reads of the indexer and the rebuild, the head's PutItem, and objects
 * under search-index/ in the modules bucket only.
 */
import { Duration, type Stack } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { FilterCriteria, FilterRule, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { INDEXED_SORT_KEYS, SEARCH_INDEX_PREFIX } from '../../../shared/search/keys.ts';
import { addAlarm } from '../constructs/alarm.ts';
import { ProjectFunction } from '../constructs/project-function.ts';
import { type FunctionAccess, grantFunctionAccess } from '../grants.ts';
import { repoPath } from '../../repo-paths.ts';
import { grantSearchCollection, type SearchCollection } from '../search-collection.ts';
import type { SiteSettings } from '../site-settings.ts';

/** Exactly what shared/search does: reads of guides, steps, pages and the head; the head's conditional put. */
export const SEARCH_INDEXER_ACCESS: FunctionAccess = {
  table: ['GetItem', 'BatchGetItem', 'Query', 'PutItem'],
  objects: [
    { bucket: 'modules', prefixes: [SEARCH_INDEX_PREFIX], actions: ['GetObject', 'PutObject', 'DeleteObject'] },
  ],
  // Old index objects are found by listing the prefix.
  list: [{ bucket: 'modules', prefixes: [SEARCH_INDEX_PREFIX] }],
};

/** A 10,000-guide index takes ~12 s to rewrite on the project machine (decision 209). */
const TIMEOUT_SECONDS = 300;
const MEMORY_MB = 1536;

export function searchIndexer(
  stack: Stack,
  props: {
    settings: SiteSettings;
    environment: Record<string, string>;
    table: ITableV2;
    mediaBucket: IBucket;
    modulesBucket: IBucket;
    alarmTopic: ITopic;
    searchCollection?: SearchCollection;
  },
): { indexer: ProjectFunction; deadLetters: Queue } | undefined {
  if (!props.table.tableStreamArn) return undefined;
  const indexer = new ProjectFunction(stack, 'SearchIndexer', {
    entry: repoPath('functions/search/indexer.handler.ts'),
    handlerExport: 'onTableStream',
    description: 'Stepwise search indexer (guide, step and wiki changes from the table stream)',
    environment: props.environment,
    memoryMb: MEMORY_MB,
    timeoutSeconds: TIMEOUT_SECONDS,
    logRetention: props.settings.logRetentionDays,
    logLevel: props.settings.logLevel,
    alarmTopic: props.alarmTopic,
  });
  grantFunctionAccess(indexer, SEARCH_INDEXER_ACCESS, {
    table: props.table,
    mediaBucket: props.mediaBucket,
    modulesBucket: props.modulesBucket,
    mailFrom: props.settings.mailFrom,
  });
  // A site on OpenSearch (decision 292): the indexer writes the collection, nothing else does.
  if (props.searchCollection) grantSearchCollection(indexer, props.searchCollection, 'write', 'indexer');
  const deadLetters = new Queue(stack, 'SearchIndexerDeadLetters', {
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: Duration.days(14),
  });
  indexer.function.addEventSource(
    new DynamoEventSource(props.table, {
      startingPosition: StartingPosition.TRIM_HORIZON,
      // Up to 1,000 records a batch (Lambda still keeps it under its 6 MB payload), and no batching
      // window: a change is handed on at the next poll of the stream, not up to a second later
      // (decision 330). A write rewrites the delta only (decision 289), so small batches cost little;
      // under a bulk load the records waiting for the running batch make the next one large anyway.
      batchSize: 1000,
      maxBatchingWindow: Duration.seconds(0),
      retryAttempts: 5,
      onFailure: new SqsDlq(deadLetters),
      filters: [FilterCriteria.filter({ dynamodb: { Keys: { sk: { S: FilterRule.or(...INDEXED_SORT_KEYS) } } } })],
    }),
  );
  addAlarm(stack, 'SearchIndexerIteratorAgeAlarm', {
    metric: indexer.function.metric('IteratorAge', { statistic: 'Maximum', period: Duration.minutes(5) }),
    threshold: Duration.minutes(5).toMilliseconds(),
    description: 'Stepwise search indexer: changes wait more than 5 minutes in the table stream.',
    topic: props.alarmTopic,
  });
  addAlarm(stack, 'SearchIndexerDeadLettersAlarm', {
    metric: deadLetters.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' }),
    threshold: 1,
    description: 'Stepwise search indexer: a stream batch failed every retry (a rebuild restores the index).',
    topic: props.alarmTopic,
  });
  return { indexer, deadLetters };
}
