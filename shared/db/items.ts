/**
 * Single-item reads and writes of the one table: the small kit entity files build on (with
 * batch.ts for many keys, paging.ts for queries, counters.ts for ids, transactions.ts for
 * labelled multi-item writes). Entity files own their keys and item shapes; these functions only
 * spare them the command plumbing.
 */
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { db, keyReadClient, tableName } from './client.ts';
import { isConditionFailed } from './retry.ts';

export type Key = { pk: string; sk: string };
export type Item = Record<string, unknown>;

export interface GetOptions {
  /** Strongly consistent (a read right after a write, or before a conditional write). */
  consistent?: boolean;
  /** Only these attributes (plain names; e.g. ['pk'] for an existence check). */
  projection?: string[];
}

/**
 * The item at `key`, or undefined when there is none. Through the key-read client (client.ts):
 * marshalled and unmarshalled here as the document client would (numbers as numbers, sets as Sets).
 */
export async function getItem(key: Key, options: GetOptions = {}): Promise<Item | undefined> {
  const result = await keyReadClient().send(
    new GetItemCommand({
      TableName: tableName(),
      Key: marshall(key),
      ConsistentRead: options.consistent || undefined,
      ProjectionExpression: options.projection?.length ? options.projection.join(', ') : undefined,
    }),
  );
  return result.Item && unmarshall(result.Item);
}

/** Whether an item exists at `key` (reads the key only). */
export async function itemExists(key: Key, options: Pick<GetOptions, 'consistent'> = {}): Promise<boolean> {
  return (await getItem(key, { ...options, projection: ['pk'] })) !== undefined;
}

/**
 * Writes `item` (which carries its keys). With `ifAbsent` the write happens only when no item has
 * that key: the answer is then false instead of overwriting.
 */
export async function putItem(item: Item & Key, options: { ifAbsent?: boolean } = {}): Promise<boolean> {
  try {
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: item,
        ConditionExpression: options.ifAbsent ? 'attribute_not_exists(pk)' : undefined,
      }),
    );
    return true;
  } catch (error) {
    if (options.ifAbsent && isConditionFailed(error)) return false;
    throw error;
  }
}

/** Deletes the item at `key` (nothing happens when there is none). */
export async function deleteItem(key: Key): Promise<void> {
  await db().send(new DeleteCommand({ TableName: tableName(), Key: key }));
}
