/**
 * Collections of guides (the iOS app's Featured tab, the home page; decision 281): pk
 * COLLECTION#<collectionid> / sk COLLECTION, listed newest first through gsi1 (gsi1pk COLLECTIONS,
 * gsi1sk <padded date>#<padded id>). The guides are an ordered list of ids on the item itself (a
 * collection is small: at most MAX_COLLECTION_GUIDES). A change applies only to the version read.
 */
import * as z from 'zod/mini';
import { tableName } from '../client.ts';
import { getItem } from '../items.ts';
import { padId } from '../keys.ts';
import { INDEXES } from '../table.ts';
import { queryPage, type Page } from '../paging.ts';
import { transactWrite } from '../transactions.ts';
import { recordFrom, recordsOf, type StoredRecord } from '../stored-item.ts';
import { serviceAuthorSchema } from './api-token.ts';

const id = z.int().check(z.positive());

/** How many guides one collection holds. */
export const MAX_COLLECTION_GUIDES = 100;

export const collectionItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.literal('COLLECTION'),
  entity: z.literal('Collection'),
  gsi1pk: z.literal('COLLECTIONS'),
  gsi1sk: z.string(),
  collectionid: id,
  title: z.string(),
  description: z.string(),
  /** A GuideImage media item; null: the first of its guides' images shows. */
  imageid: z.nullable(id),
  /** In the order the collection shows them. */
  guideids: z.array(id).check(z.maxLength(MAX_COLLECTION_GUIDES)),
  /** The collection's date (epoch seconds): the list is newest first by it. */
  date: z.int().check(z.nonnegative()),
  /** null for a site API token, named by created_by_token (decision 260); 0: a token's, before it. */
  created_by: z.nullable(z.int().check(z.nonnegative())),
  created_by_token: z.optional(serviceAuthorSchema),
  created_date: z.number(),
  modified_date: z.number(),
  version: z.int(),
});

export type CollectionRecord = StoredRecord<typeof collectionItemSchema>;

export const collectionKey = (collectionid: number) =>
  ({ pk: `COLLECTION#${collectionid}`, sk: 'COLLECTION' }) as const;

/** The item as stored (also the site file's import path). */
export function collectionItem(collection: CollectionRecord): z.input<typeof collectionItemSchema> {
  return {
    ...collectionKey(collection.collectionid),
    entity: 'Collection',
    [INDEXES.gsi1.pk]: 'COLLECTIONS',
    [INDEXES.gsi1.sk]: `${padId(collection.date)}#${padId(collection.collectionid)}`,
    ...collection,
  };
}

/** Writes a collection: new when `expectedVersion` is null, else only over that version (label `collection`). */
export async function saveCollection(collection: CollectionRecord, expectedVersion: number | null): Promise<void> {
  await transactWrite([
    {
      label: 'collection',
      item: {
        Put: {
          TableName: tableName(),
          Item: collectionItem(collection),
          ConditionExpression: expectedVersion === null ? 'attribute_not_exists(pk)' : 'version = :version',
          ExpressionAttributeValues: expectedVersion === null ? undefined : { ':version': expectedVersion },
        },
      },
    },
  ]);
}

/** Deletes the collection as read (label `collection` when it changed or went away meanwhile). */
export async function deleteCollection(collection: CollectionRecord): Promise<void> {
  await transactWrite([
    {
      label: 'collection',
      item: {
        Delete: {
          TableName: tableName(),
          Key: collectionKey(collection.collectionid),
          ConditionExpression: 'version = :version',
          ExpressionAttributeValues: { ':version': collection.version },
        },
      },
    },
  ]);
}

export async function getCollection(collectionid: number, consistent = false): Promise<CollectionRecord | undefined> {
  const item = await getItem(collectionKey(collectionid), { consistent });
  return item ? recordFrom(collectionItemSchema, item) : undefined;
}

/** A page of collections, newest first (by date, then the newer id). */
export async function listCollections(page: Page): Promise<CollectionRecord[]> {
  const items = await queryPage({ index: INDEXES.gsi1, partition: 'COLLECTIONS', descending: true }, page);
  return items.map(recordsOf(collectionItemSchema));
}
