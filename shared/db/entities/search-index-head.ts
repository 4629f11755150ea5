/**
 * The search index's head: pk SEARCH_INDEX / sk HEAD names the stored index object (its key in
 * the modules bucket under search-index/) and its version. The indexer writes a new object, then
 * moves the head on condition of the version it started from, so of two writers racing the
 * second fails, reads again and re-applies its changes: no update is lost (decision 208).
 * Derived data: the item stays out of site files (docs/export-format.md), an import rebuilds it.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { db, tableName } from '../client.ts';
import { getItem } from '../items.ts';
import { recordFrom, type StoredRecord } from '../stored-item.ts';

export const SEARCH_INDEX_HEAD_ENTITY = 'SearchIndexHead';
const HEAD_KEY = { pk: 'SEARCH_INDEX', sk: 'HEAD' };

export const searchIndexHeadItemSchema = z.strictObject({
  pk: z.literal('SEARCH_INDEX'),
  sk: z.literal('HEAD'),
  entity: z.literal(SEARCH_INDEX_HEAD_ENTITY),
  /** Moves by one with every stored index. */
  version: z.int().check(z.nonnegative()),
  /** The index object, in the modules bucket. */
  object_key: z.string(),
  /** The index format (engine and options) the object was written in. */
  format: z.string(),
  documents: z.int(),
  bytes: z.int(),
  updated_ms: z.number(),
});

export type SearchIndexHead = StoredRecord<typeof searchIndexHeadItemSchema>;

/** The head as it is now (strongly consistent: the writer decides from it), or undefined before the first index. */
export async function getSearchIndexHead(consistent = false): Promise<SearchIndexHead | undefined> {
  const item = await getItem(HEAD_KEY, { consistent });
  return item && recordFrom(searchIndexHeadItemSchema, item);
}

/**
 * Moves the head to `next`, on condition that it still is at `expectedVersion` (none: that no
 * head exists yet). Throws ConditionalCheckFailedException when another writer moved it first.
 */
export async function moveSearchIndexHead(next: SearchIndexHead, expectedVersion: number | undefined): Promise<void> {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...HEAD_KEY, entity: SEARCH_INDEX_HEAD_ENTITY, ...next },
      ConditionExpression: expectedVersion === undefined ? 'attribute_not_exists(pk)' : 'version = :expected',
      ExpressionAttributeValues: expectedVersion === undefined ? undefined : { ':expected': expectedVersion },
    }),
  );
}
