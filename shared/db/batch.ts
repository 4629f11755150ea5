/**
 * BatchGetItem and BatchWriteItem with their limits (100 keys, 25 writes per call) and their
 * leftovers: DynamoDB may hand back part of a batch as unprocessed (throttling), which is sent
 * again after a jittered pause until nothing is left.
 */
import { BatchGetCommand, BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client.ts';
import { backoffDelay } from './retry.ts';
import type { Item } from './items.ts';

export type Key = { pk: string; sk: string };

const GET_BATCH = 100;
/** BatchGet calls in flight at once for one read (as batchPut's writes). */
const GET_PARALLEL = 8;
const WRITE_BATCH = 25;
/** Rounds of resending leftovers before giving up (DynamoDB's own advice: back off and retry). */
const LEFTOVER_ROUNDS = 8;

/**
 * Sends `first`, then whatever `send` reports as left over, until nothing is left. Throws when
 * leftovers remain after LEFTOVER_ROUNDS, so a partial batch never passes for a whole one.
 */
export async function untilProcessed<T>(first: T[], send: (batch: T[]) => Promise<T[] | undefined>): Promise<void> {
  let pending: T[] | undefined = first;
  let round = 0;
  while (pending && pending.length > 0) {
    if (round === LEFTOVER_ROUNDS)
      throw new Error(`DynamoDB left ${pending.length} batch items unprocessed after ${LEFTOVER_ROUNDS} rounds`);
    if (round > 0)
      await new Promise((resolve) =>
        setTimeout(resolve, backoffDelay(round - 1, { baseDelayMs: 20, maxDelayMs: 1000 })),
      );
    pending = await send(pending);
    round++;
  }
}

function chunked<T>(items: T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let start = 0; start < items.length; start += size) chunks.push(items.slice(start, start + size));
  return chunks;
}

const keyString = (key: Key) => `${key.pk}|${key.sk}`;

/**
 * BatchGet by key: the items found, by `pk|sk` (a key asked twice is sent once). Calls of 100 keys
 * go GET_PARALLEL at a time, so reads that share one BatchGet (batchGetParts) are no deeper than
 * when each went its own way side by side (decision 353).
 */
async function batchGetFound(
  keys: Key[],
  projection: string | undefined,
): Promise<Map<string, Record<string, unknown>>> {
  const found = new Map<string, Record<string, unknown>>();
  const unique = [...new Map(keys.map((key) => [keyString(key), key])).values()];
  const chunks = chunked(unique, GET_BATCH);
  await Promise.all(
    Array.from({ length: Math.min(GET_PARALLEL, chunks.length) }, async () => {
      for (let chunk = chunks.shift(); chunk; chunk = chunks.shift()) {
        await untilProcessed(chunk, async (batch) => {
          const result = await db().send(
            new BatchGetCommand({ RequestItems: { [tableName()]: { Keys: batch, ProjectionExpression: projection } } }),
          );
          for (const item of result.Responses?.[tableName()] ?? []) found.set(keyString(item as Key), item);
          return result.UnprocessedKeys?.[tableName()]?.Keys as Key[] | undefined;
        });
      }
    }),
  );
  return found;
}

/**
 * BatchGet by key, returning items in the order of the keys asked for (missing ones dropped).
 * `projection` reads only the attributes named (plain names, no reserved words).
 */
export async function batchGetInOrder(keys: Key[], options: { projection?: string[] } = {}): Promise<Item[]> {
  const projection = options.projection?.length
    ? [...new Set([...options.projection, 'pk', 'sk'])].join(', ')
    : undefined;
  const found = await batchGetFound(keys, projection);
  return keys.map((key) => found.get(keyString(key))).filter((item): item is Item => item !== undefined);
}

/**
 * One entity's share of a BatchGet several reads share: the keys it needs (built by its entity
 * file) and what it makes of the items found for them, in the order of its keys. A read-model
 * needing steps, guides and marks at once sends them in one round trip (batchGetParts).
 */
export interface BatchPart<T> {
  keys: Key[];
  decode(items: Record<string, unknown>[]): T;
}

type Decoded<P> = { [I in keyof P]: P[I] extends BatchPart<infer T> ? T : never };

/** The parts' keys in one BatchGet (100 keys a call), each part decoding its own items. */
export async function batchGetParts<P extends BatchPart<unknown>[]>(...parts: P): Promise<Decoded<P>> {
  const found = await batchGetFound(
    parts.flatMap((part) => part.keys),
    undefined,
  );
  return parts.map((part) =>
    part.decode(
      part.keys
        .map((key) => found.get(keyString(key)))
        .filter((item): item is Record<string, unknown> => item !== undefined),
    ),
  ) as Decoded<P>;
}

/** Deletes items by key, 25 per call (no conditions: for items whose owner is already gone). */
export async function batchDelete(keys: Key[]): Promise<void> {
  for (const chunk of chunked(keys, WRITE_BATCH)) {
    await untilProcessed(
      chunk.map((key) => ({ DeleteRequest: { Key: key } })),
      async (batch) => {
        const result = await db().send(new BatchWriteCommand({ RequestItems: { [tableName()]: batch } }));
        return result.UnprocessedItems?.[tableName()] as typeof batch | undefined;
      },
    );
  }
}

/**
 * Puts items without conditions, 25 per call, `parallel` calls at a time: for items no reader
 * takes until another write commits them (the LRS's statement index items, decision 274).
 */
export async function batchPut(items: Array<Item & Key>, parallel = 8): Promise<void> {
  const chunks = chunked(items, WRITE_BATCH);
  await Promise.all(
    Array.from({ length: Math.min(parallel, chunks.length) }, async () => {
      for (let chunk = chunks.shift(); chunk; chunk = chunks.shift()) {
        await untilProcessed(
          chunk.map((item) => ({ PutRequest: { Item: item } })),
          async (batch) => {
            const result = await db().send(new BatchWriteCommand({ RequestItems: { [tableName()]: batch } }));
            return result.UnprocessedItems?.[tableName()] as typeof batch | undefined;
          },
        );
      }
    }),
  );
}
