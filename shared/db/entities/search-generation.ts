/**
 * Which OpenSearch indexes a site's search reads and writes (decision 329): pk SEARCH_INDEX /
 * sk OPENSEARCH. Searches read the `current` generation's indexes; a rebuild fills a `building`
 * one beside it (the stream indexer writes both meanwhile) and, once it is complete, makes it
 * current on condition of `version`, so a query never answers from a half-built index. No item:
 * generation 0, the indexes named before generations (`stepwise-search-<langid>`).
 * Derived data, like the embedded index's head: the item stays out of site files
 * (docs/export-format.md); an import rebuilds the index.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { db, tableName } from '../client.ts';
import { getItem } from '../items.ts';
import { recordFrom, type StoredRecord } from '../stored-item.ts';

export const SEARCH_GENERATION_ENTITY = 'SearchGeneration';
export const GENERATION_KEY = { pk: 'SEARCH_INDEX', sk: 'OPENSEARCH' };

export const searchGenerationItemSchema = z.strictObject({
  pk: z.literal('SEARCH_INDEX'),
  sk: z.literal('OPENSEARCH'),
  entity: z.literal(SEARCH_GENERATION_ENTITY),
  /** Moves by one with every change of the item (the condition of the next). */
  version: z.int().check(z.nonnegative()),
  /** The generation searches read (0: the indexes named before generations). */
  current: z.int().check(z.nonnegative()),
  /** A rebuild's generation while it is filled; writes go to it too. */
  building: z.optional(z.int().check(z.positive())),
  updated_ms: z.number(),
});

export type SearchGeneration = Omit<StoredRecord<typeof searchGenerationItemSchema>, 'version'>;
export type SearchGenerationRead = SearchGeneration & { version: number };

/** The pointer as it is now (strongly consistent for a writer), or undefined before the first rebuild. */
export async function getSearchGeneration(consistent = false): Promise<SearchGenerationRead | undefined> {
  const item = await getItem(GENERATION_KEY, { consistent });
  return item && recordFrom(searchGenerationItemSchema, item);
}

/**
 * Puts the pointer at `next`, on condition that it still is at `expectedVersion` (undefined:
 * that there is none yet). Throws ConditionalCheckFailedException when it moved meanwhile.
 */
export async function moveSearchGeneration(next: SearchGeneration, expectedVersion: number | undefined): Promise<void> {
  const version = (expectedVersion ?? 0) + 1;
  const { building, ...rest } = next;
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...GENERATION_KEY,
        entity: SEARCH_GENERATION_ENTITY,
        ...rest,
        ...(building === undefined ? {} : { building }),
        version,
      },
      ConditionExpression: expectedVersion === undefined ? 'attribute_not_exists(pk)' : 'version = :expected',
      ExpressionAttributeValues: expectedVersion === undefined ? undefined : { ':expected': expectedVersion },
    }),
  );
}
