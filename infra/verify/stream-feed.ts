/**
 * The events deliverer as deployed (infra/cdk/stacks/events-stack.ts), run from its bundles:
 * - the table's stream -> StreamDeliverer, as Lambda's event source mapping would feed it
 *   (the template's batch size, filter patterns, retries, item-failure reports, on-failure queue);
 * - the schedule rule -> RetrySweep.
 *
 * DynamoDB Local's streams are not used: this project has no streams client. The records are
 * built from the outbox's pending index instead (shared/db/entities/outbox.ts): every outbox item
 * is on it from the transaction that writes it until the deliverer fans it out, so polling it
 * sees each new outbox item as stored — the NewImage an INSERT record carries (decision 141).
 * Each item is fed once, in sequence order; a batch the function reports failed is fed again
 * from the failed record, up to the mapping's retries, then dropped as the dead-letter queue
 * would take it (the sweep still finds the event on the pending index, as on AWS).
 *
 * The mapping reads the stream and sends to the queue with the function's role: those calls are
 * authorized against it like the function's own.
 */
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent, ScheduledEvent } from 'aws-lambda';
import type { StreamSubscription } from './template.ts';

type Item = Record<string, unknown>;

export interface StreamFeedOptions {
  subscription: StreamSubscription;
  region: string;
  /** New items of the table, oldest first (the local stand-in for the stream's shard). */
  readNewItems: () => Promise<Item[]>;
  invoke: (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse | undefined>;
  /** The sweep's schedule: the function and how often it runs locally. */
  sweep?: { invoke: (event: ScheduledEvent) => Promise<unknown>; everyMs: number };
  /** Authorizes a call the event source mapping makes with the function's role. */
  authorize: (action: string, resource: string) => boolean;
  pollMs: number;
  onError: (error: unknown) => void;
}

export interface StreamFeedSummary {
  records: number;
  batches: number;
  retriedBatches: number;
  deadLettered: number;
  filteredOut: number;
  sweeps: number;
}

/** The mapping's stream reads, authorized once per poll. */
const STREAM_READ_ACTIONS = [
  'dynamodb:DescribeStream',
  'dynamodb:GetShardIterator',
  'dynamodb:GetRecords',
  'dynamodb:ListStreams',
];

/** Lambda event filtering as far as the templates use it: nested objects and lists of exact values. */
export function matchesFilter(pattern: unknown, value: unknown): boolean {
  if (Array.isArray(pattern)) {
    return pattern.some((candidate) => {
      if (candidate !== null && typeof candidate === 'object')
        throw new Error(`filter rule ${JSON.stringify(candidate)} is not supported by the local stream feed`);
      return candidate === value;
    });
  }
  if (pattern === null || typeof pattern !== 'object') throw new Error('a filter pattern must be an object');
  if (value === null || typeof value !== 'object') return false;
  return Object.entries(pattern).every(([key, inner]) => matchesFilter(inner, (value as Item)[key]));
}

export function startStreamFeed(options: StreamFeedOptions): {
  stop(): Promise<StreamFeedSummary>;
} {
  const { subscription } = options;
  const patterns = subscription.filterPatterns.map((text) => JSON.parse(text) as unknown);
  const summary: StreamFeedSummary = {
    records: 0,
    batches: 0,
    retriedBatches: 0,
    deadLettered: 0,
    filteredOut: 0,
    sweeps: 0,
  };
  /** Items fed and finished with (delivered, filtered out or dead-lettered), until they leave the index. */
  const finished = new Set<string>();
  const attempts = new Map<string, number>();
  const sequenceOf = new Map<string, string>();
  let nextSequence = 0;
  let stopped = false;
  const timers: NodeJS.Timeout[] = [];
  let polling: Promise<void> = Promise.resolve();
  let sweeping: Promise<void> = Promise.resolve();

  const keyOf = (item: Item) => `${item.pk}\u0000${item.sk}`;

  function recordOf(item: Item): DynamoDBRecord {
    const key = keyOf(item);
    let sequence = sequenceOf.get(key);
    if (!sequence) {
      sequence = String(++nextSequence).padStart(21, '0');
      sequenceOf.set(key, sequence);
    }
    const newImage = marshall(item, { removeUndefinedValues: true });
    return {
      eventID: `local-${sequence}`,
      eventName: 'INSERT',
      eventVersion: '1.1',
      eventSource: 'aws:dynamodb',
      awsRegion: options.region,
      eventSourceARN: subscription.streamArn,
      dynamodb: {
        ApproximateCreationDateTime: Math.floor(Date.now() / 1000),
        Keys: marshall({ pk: item.pk, sk: item.sk }) as never,
        NewImage: newImage as never,
        SequenceNumber: sequence,
        SizeBytes: JSON.stringify(newImage).length,
        StreamViewType: 'NEW_IMAGE',
      },
    };
  }

  function authorizeAll(actions: string[], resource: string): void {
    for (const action of actions) {
      if (!options.authorize(action, resource))
        throw new Error(`IAM: the stream event source mapping may not ${action} on ${resource}`);
    }
  }

  async function poll(): Promise<void> {
    authorizeAll(STREAM_READ_ACTIONS, subscription.streamArn);
    const items = await options.readNewItems();
    const present = new Set(items.map(keyOf));
    for (const key of [...finished]) if (!present.has(key)) finished.delete(key);
    for (const key of [...attempts.keys()]) if (!present.has(key)) attempts.delete(key);
    for (const key of [...sequenceOf.keys()]) if (!present.has(key)) sequenceOf.delete(key);

    const pending: Array<{ key: string; record: DynamoDBRecord }> = [];
    for (const item of items) {
      const key = keyOf(item);
      if (finished.has(key)) continue;
      const record = recordOf(item);
      if (patterns.length > 0 && !patterns.some((pattern) => matchesFilter(pattern, record))) {
        finished.add(key);
        summary.filteredOut++;
        continue;
      }
      pending.push({ key, record });
    }

    for (let start = 0; start < pending.length && !stopped; start += subscription.batchSize) {
      const batch = pending.slice(start, start + subscription.batchSize);
      summary.batches++;
      let failedAt = batch.length;
      try {
        const response = await options.invoke({ Records: batch.map((entry) => entry.record) });
        const failed = subscription.reportsItemFailures ? response?.batchItemFailures?.[0]?.itemIdentifier : undefined;
        if (failed !== undefined)
          failedAt = batch.findIndex((entry) => entry.record.dynamodb?.SequenceNumber === failed);
        if (failedAt < 0) failedAt = 0; // an identifier not in the batch fails the whole batch
      } catch (error) {
        options.onError(error);
        failedAt = 0;
      }
      for (const entry of batch.slice(0, failedAt)) {
        finished.add(entry.key);
        summary.records++;
      }
      if (failedAt === batch.length) continue;
      // Lambda retries from the failed record; order holds, so nothing after it goes first.
      summary.retriedBatches++;
      const retried = batch.slice(failedAt);
      const attempt = (attempts.get(retried[0].key) ?? 0) + 1;
      for (const entry of retried) attempts.set(entry.key, attempt);
      const retriesLeft = subscription.maximumRetryAttempts < 0 || attempt <= subscription.maximumRetryAttempts;
      if (!retriesLeft) {
        if (subscription.onFailureArn) authorizeAll(['sqs:SendMessage'], subscription.onFailureArn);
        for (const entry of retried) finished.add(entry.key);
        summary.deadLettered += retried.length;
      }
      break;
    }
  }

  async function sweep(): Promise<void> {
    summary.sweeps++;
    await options.sweep!.invoke({
      version: '0',
      id: crypto.randomUUID(),
      'detail-type': 'Scheduled Event',
      source: 'aws.events',
      account: '000000000000',
      time: new Date().toISOString(),
      region: options.region,
      resources: [],
      detail: {},
    });
  }

  const loop = (work: () => Promise<void>, everyMs: number, running: (promise: Promise<void>) => void) => {
    const tick = () => {
      const promise = work()
        .catch((error) => options.onError(error))
        .finally(() => {
          if (!stopped) timers.push(setTimeout(tick, everyMs));
        });
      running(promise);
    };
    timers.push(setTimeout(tick, everyMs));
  };
  loop(poll, options.pollMs, (promise) => {
    polling = promise;
  });
  if (options.sweep)
    loop(sweep, options.sweep.everyMs, (promise) => {
      sweeping = promise;
    });

  return {
    async stop() {
      stopped = true;
      for (const timer of timers) clearTimeout(timer);
      await Promise.all([polling, sweeping]);
      return summary;
    },
  };
}
