/**
 * The table's stream on the local stack: DynamoDB Local keeps a stream when the table has one
 * (create-table.ts turns it on, NEW_IMAGE like the deployed table), and this loop reads it as
 * Lambda's event source mapping would, handing each batch to the same handler in the shape of
 * a DynamoDBStreamEvent. One reader, shards in order, from the newest record at start (what was
 * written before is already in the index, or the indexer rebuilds it when there is none).
 * DynamoDB Local checks no signature (it reads the region and key id only), so the requests
 * carry an unsigned Authorization header naming the local credentials.
 */
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { IDLE_POLL_CEILING_MS, type Repeating, repeatEvery } from '../../shared/clock.ts';

const TARGET = 'DynamoDBStreams_20120810';

interface Shard {
  ShardId: string;
  ParentShardId?: string;
  SequenceNumberRange?: { EndingSequenceNumber?: string };
}

/**
 * A round lists the stream's shards (a new one opens when DynamoDB Local rolls its shard) only
 * every this many rounds, or when none is open: the rounds between read the open shards only.
 */
const SHARD_LIST_ROUNDS = 10;

export type StreamBatchHandler = (event: DynamoDBStreamEvent) => Promise<unknown>;

async function call<T>(endpoint: string, region: string, operation: string, body: object): Promise<T> {
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-amz-json-1.0',
      'x-amz-target': `${TARGET}.${operation}`,
      authorization:
        `AWS4-HMAC-SHA256 Credential=local/20000101/${region}/dynamodb/aws4_request, ` +
        'SignedHeaders=host, Signature=0',
    },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`DynamoDB Local streams ${operation}: ${response.status} ${text}`);
  return JSON.parse(text) as T;
}

export type TableStreamReader = Repeating;

/**
 * Reads the table's stream every `intervalMs` while it carries records, slowing to a poll every
 * half-second while it carries none (wake() reads it now: decision 345), and hands each non-empty batch (at most
 * `batchSize` records, default 1000 as the deployed mapping) to `handler`; a batch that fails
 * is handed again on the next round, as Lambda retries it.
 */
export async function readTableStream(options: {
  endpoint: string;
  region: string;
  tableName: string;
  handler: StreamBatchHandler;
  intervalMs: number;
  batchSize?: number;
  onError: (error: unknown) => void;
}): Promise<TableStreamReader> {
  const { endpoint, region } = options;
  const streams = await call<{ Streams?: Array<{ StreamArn: string }> }>(endpoint, region, 'ListStreams', {
    TableName: options.tableName,
  });
  const streamArn = streams.Streams?.[0]?.StreamArn;
  if (!streamArn) throw new Error(`The local table ${options.tableName} has no stream`);

  /** Open iterators by shard; a closed shard (its iterator ran out) is remembered so it is not opened again. */
  const iterators = new Map<string, string>();
  const finished = new Set<string>();

  async function openShards(type: 'LATEST' | 'TRIM_HORIZON'): Promise<void> {
    const { StreamDescription } = await call<{ StreamDescription: { Shards?: Shard[] } }>(
      endpoint,
      region,
      'DescribeStream',
      { StreamArn: streamArn },
    );
    for (const shard of StreamDescription.Shards ?? []) {
      if (iterators.has(shard.ShardId) || finished.has(shard.ShardId)) continue;
      const { ShardIterator } = await call<{ ShardIterator?: string }>(endpoint, region, 'GetShardIterator', {
        StreamArn: streamArn,
        ShardId: shard.ShardId,
        // Shards that appear later are read from their start, so nothing written after start-up is missed.
        ShardIteratorType: type,
      });
      if (ShardIterator) iterators.set(shard.ShardId, ShardIterator);
    }
  }

  /** Rounds since the shards were last listed: DescribeStream is asked every SHARD_LIST_ROUNDS rounds, not each. */
  let sinceListed = 0;

  /** Reads every open shard to its end; returns how many records it handed on. */
  async function readRound(): Promise<number> {
    let handed = 0;
    if (iterators.size === 0 || ++sinceListed >= SHARD_LIST_ROUNDS) {
      sinceListed = 0;
      await openShards('TRIM_HORIZON');
    }
    const limit = options.batchSize ?? 1000;
    for (const [shardId, iterator] of [...iterators]) {
      let next: string | undefined = iterator;
      while (next) {
        const page: { Records?: DynamoDBStreamEvent['Records']; NextShardIterator?: string } = await call(
          endpoint,
          region,
          'GetRecords',
          { ShardIterator: next, Limit: limit },
        );
        const records = page.Records ?? [];
        if (records.length > 0) await options.handler({ Records: records });
        handed += records.length;
        // Past the handler only: a batch that failed is read again from the same iterator.
        if (page.NextShardIterator) iterators.set(shardId, page.NextShardIterator);
        else {
          iterators.delete(shardId);
          finished.add(shardId);
        }
        // A page short of the limit read the shard to its end: what is written next is read by the next
        // round (a wake, or `intervalMs` after a round that found records), not by one more call now.
        next = records.length >= limit ? page.NextShardIterator : undefined;
      }
    }
    return handed;
  }

  await openShards('LATEST');
  return repeatEvery(options.intervalMs, readRound, options.onError, {
    idleUpToMs: Math.max(options.intervalMs, IDLE_POLL_CEILING_MS),
  });
}
