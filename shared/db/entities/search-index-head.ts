/**
 * The search index's head: pk SEARCH_INDEX / sk HEAD names every object of the stored index in
 * the modules bucket under search-index/ (decision 289): per language its shards, and the one
 * delta of recent changes with its tombstones. Writers put new objects, then move the head on
 * condition of the version they started from, so of two writers racing the second fails, reads
 * again and re-applies its changes: no update is lost (decision 208).
 * A head of an older shape (one object for everything, before decision 289) reads as a version
 * without a usable manifest: the next writer builds the index again and replaces it.
 * Derived data: the item stays out of site files (docs/export-format.md), an import rebuilds it.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { db, tableName } from '../client.ts';
import { getItem } from '../items.ts';
import { recordFrom, type StoredRecord } from '../stored-item.ts';

export const SEARCH_INDEX_HEAD_ENTITY = 'SearchIndexHead';
export const HEAD_KEY = { pk: 'SEARCH_INDEX', sk: 'HEAD' };

const storedObject = z.strictObject({
  /** The object's key in the modules bucket. */
  key: z.string(),
  documents: z.int().check(z.nonnegative()),
  bytes: z.int().check(z.nonnegative()),
});

export const searchIndexHeadItemSchema = z.strictObject({
  pk: z.literal('SEARCH_INDEX'),
  sk: z.literal('HEAD'),
  entity: z.literal(SEARCH_INDEX_HEAD_ENTITY),
  /** Moves by one with every write of the index. */
  version: z.int().check(z.nonnegative()),
  /** The layout and engine format the objects were written in. */
  format: z.string(),
  /** Per language (langid), its shards: a document lives in shard `hash(key) % shards.length`. */
  languages: z.record(z.string().check(z.maxLength(20)), z.strictObject({ shards: z.array(storedObject) })),
  /** The recent changes not yet merged into the shards, and the tombstones hiding their older copies. */
  delta: z.strictObject({ ...storedObject.shape, tombstones: z.int().check(z.nonnegative()) }),
  /** Documents in shards and delta together (a changed document not yet merged counts twice). */
  documents: z.int(),
  bytes: z.int(),
  updated_ms: z.number(),
});

export type SearchIndexHead = StoredRecord<typeof searchIndexHeadItemSchema>;
export type StoredSearchObject = z.output<typeof storedObject>;

export interface SearchIndexHeadRead {
  version: number;
  /** Undefined when the item is of another format or shape: the whole index is written again. */
  head: SearchIndexHead | undefined;
}

/**
 * The head as it is now (strongly consistent when a writer decides from it), or undefined before
 * the first index. `format` is the one the caller writes (or those a reader loads): a head of another is
 * returned without it.
 */
export async function getSearchIndexHead(
  format: string | readonly string[],
  consistent = false,
): Promise<SearchIndexHeadRead | undefined> {
  const item = await getItem(HEAD_KEY, { consistent });
  if (!item) return undefined;
  const version = Number(item.version);
  if (!Number.isInteger(version) || version < 0) throw new Error('The search index head has no valid version');
  const formats: readonly string[] = typeof format === 'string' ? [format] : format;
  if (!formats.includes(String(item.format)) || !searchIndexHeadItemSchema.safeParse(item).success)
    return { version, head: undefined };
  return { version, head: recordFrom(searchIndexHeadItemSchema, item) };
}

/** The head's version alone (a reader's cheap look whether anything moved), or undefined before the first index. */
export async function getSearchIndexHeadVersion(): Promise<number | undefined> {
  const item = await getItem(HEAD_KEY, { projection: ['version'] });
  const version = Number(item?.version);
  return Number.isInteger(version) ? version : undefined;
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
