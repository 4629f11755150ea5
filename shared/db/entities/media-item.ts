/**
 * User media item: pk MEDIA#<itemid> / sk MEDIA, one id space for every type (the counter
 * `media`). The owner's library is gsi1: USER#<owner>#MEDIA, padded itemid (newest first when
 * read descending); the same library by type is gsi2: USER#<owner>#MEDIA#<type>, padded itemid
 * (GET /user/media/images|videos|embeds). A guid finds its item through MEDIAGUID#<guid>, written
 * in the item's transaction. The objects live in the media bucket under keys from
 * shared/storage/media-objects.ts. The owner is the uploader's userid, or for a site API token
 * `token-<tokenid>` (userid 0 with `service_author`, decision 253): each token its own library.
 *
 * status: uploading (a browser upload was signed; nothing stored yet) -> processing (the
 * original is in S3) -> ready | failed. Only the processor moves an item out of processing.
 */
import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { MEDIA_TYPES, type MediaType } from '../../domain/media.ts';
import type { OwnerKey } from '../../domain/caller.ts';
import { serviceAuthorSchema } from './api-token.ts';
import { db, tableName } from '../client.ts';
import { getItem } from '../items.ts';
import { batchGetParts, type BatchPart } from '../batch.ts';
import { padId } from '../keys.ts';
import { parseStored, recordFrom, recordsOf, type StoredRecord } from '../stored-item.ts';
import { queryPage } from '../paging.ts';
import { INDEXES } from '../table.ts';
import { transactWrite, type LabelledWrite } from '../transactions.ts';
import * as z from 'zod/mini';

export type MediaStatus = 'uploading' | 'processing' | 'ready' | 'failed';

/** A MediaItem as mediaItemCreateWrites puts it and the upload / processing / usage updates leave it. */
export const mediaItemItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.literal('MEDIA'),
  entity: z.literal('MediaItem'),
  gsi1pk: z.string(),
  gsi1sk: z.string(),
  gsi2pk: z.string(),
  gsi2sk: z.string(),
  itemid: z.int().check(z.positive()),
  type: z.enum(MEDIA_TYPES),
  userid: z.int(),
  /** The site API token that uploaded it (userid 0), decision 253. */
  service_author: z.optional(serviceAuthorSchema),
  /** Shared by every stored size of an image (the Image object's guid). */
  guid: z.string(),
  filename: z.string(),
  content_type: z.string(),
  /** Bytes of the original; 0 until it is stored. */
  size: z.number(),
  status: z.enum(['uploading', 'processing', 'ready', 'failed']),
  /** Why processing failed (status failed). */
  failure: z.nullable(z.string()),
  /** S3 key of the original. */
  original_key: z.string(),
  /** Image sizes that exist (names of IMAGE_SIZES); a video's are those of its poster. */
  sizes: z.array(z.string()),
  width: z.nullable(z.number()),
  height: z.nullable(z.number()),
  /** Videos: their length in milliseconds, when their boxes say (absent before processing). */
  duration_ms: z.optional(z.nullable(z.number())),
  /** The image this one was made from by an edit (POST /user/media/images/edits). */
  source_itemid: z.nullable(z.int()),
  /** The edit that made this image, as sent (any JSON). */
  markup: z.unknown(),
  /** Embeds (GuideEmbedObject): what the embed shows; absent for every other type. */
  embed: z.optional(
    z.object({
      url: z.string(),
      type: z.enum(['video', 'link']),
      provider_name: z.nullable(z.string()),
      title: z.nullable(z.string()),
      html: z.string(),
      width: z.number(),
      height: z.number(),
    }),
  ),
  /** Guides whose views show this item (added on guide and step writes; never removed). */
  used_by_guideids: z.optional(z.set(z.int())),
  date: z.number(),
  modified_date: z.number(),
});

export type MediaItemRecord = StoredRecord<typeof mediaItemItemSchema>;

export const mediaGuidItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.literal('MEDIAGUID'),
  entity: z.literal('MediaGuid'),
  itemid: z.int().check(z.positive()),
});

export function mediaItemKey(itemid: number) {
  return { pk: `MEDIA#${itemid}`, sk: 'MEDIA' } as const;
}

export function guidKey(guid: string) {
  return { pk: `MEDIAGUID#${guid}`, sk: 'MEDIAGUID' } as const;
}

/** Whose library an item is in: its uploader's, or the uploading token's. */
export function mediaOwnerOf(item: Pick<MediaItemRecord, 'userid' | 'service_author'>): OwnerKey {
  return item.service_author ? `token-${item.service_author.tokenid}` : item.userid;
}

function libraryPartition(owner: OwnerKey): string {
  return `USER#${owner}#MEDIA`;
}

function typedLibraryPartition(owner: OwnerKey, type: MediaType): string {
  return `USER#${owner}#MEDIA#${type}`;
}

/**
 * The item and its guid lookup, each only if new (pure: uploads pass a fresh id, a migration
 * the source's).
 */
export function mediaItemCreateWrites(item: MediaItemRecord): LabelledWrite[] {
  return [
    {
      label: 'item',
      item: {
        Put: {
          TableName: tableName(),
          Item: {
            ...mediaItemKey(item.itemid),
            entity: 'MediaItem',
            [INDEXES.gsi1.pk]: libraryPartition(mediaOwnerOf(item)),
            [INDEXES.gsi1.sk]: padId(item.itemid),
            [INDEXES.gsi2.pk]: typedLibraryPartition(mediaOwnerOf(item), item.type),
            [INDEXES.gsi2.sk]: padId(item.itemid),
            ...item,
          } satisfies z.input<typeof mediaItemItemSchema>,
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    },
    {
      label: 'guid',
      item: {
        Put: {
          TableName: tableName(),
          Item: {
            ...guidKey(item.guid),
            entity: 'MediaGuid',
            itemid: item.itemid,
          } satisfies z.input<typeof mediaGuidItemSchema>,
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    },
  ];
}

/** The item and its guid lookup, in one transaction (both new). */
export async function insertMediaItem(item: MediaItemRecord): Promise<void> {
  await transactWrite(mediaItemCreateWrites(item));
}

/** The item id a guid names, or undefined. */
export async function mediaItemIdByGuid(guid: string): Promise<number | undefined> {
  const item = await getItem(guidKey(guid));
  return item ? parseStored(mediaGuidItemSchema, item).itemid : undefined;
}

export async function getMediaItem(itemid: number): Promise<MediaItemRecord | undefined> {
  const item = await getItem(mediaItemKey(itemid));
  return item ? recordFrom(mediaItemItemSchema, item) : undefined;
}

/** Items by id in one BatchGet (per 100), in the order asked; missing ones are left out. */
export async function getMediaItems(itemids: number[]): Promise<MediaItemRecord[]> {
  const [items] = await batchGetParts(mediaItemsPart(itemids));
  return items;
}

/** Items by id as a share of a BatchGet, in the order asked (each id once); missing ones left out. */
export function mediaItemsPart(itemids: number[]): BatchPart<MediaItemRecord[]> {
  // batchGetParts decodes the items found in the order of the part's keys.
  return {
    keys: [...new Set(itemids)].map(mediaItemKey),
    decode: (items) => items.map(recordsOf(mediaItemItemSchema)),
  };
}

/** Guids by id of the ready images among `itemids` (what wiki text may show), one BatchGet. */
export async function readyImageGuids(itemids: number[]): Promise<Map<number, string>> {
  const items = await getMediaItems(itemids);
  return new Map(
    items
      .filter((item) => item.type === 'GuideImage' && item.status === 'ready')
      .map((item) => [item.itemid, item.guid]),
  );
}

/** The owner's items, newest first. */
export async function listUserMedia(
  owner: OwnerKey,
  page: { limit: number; offset: number },
): Promise<MediaItemRecord[]> {
  const items = await queryPage({ index: INDEXES.gsi1, partition: libraryPartition(owner), descending: true }, page);
  return items.map(recordsOf(mediaItemItemSchema));
}

/** The owner's items of one type (gsi2), newest first unless `ascending`. */
export async function listUserMediaOfType(
  owner: OwnerKey,
  type: MediaType,
  page: { limit: number; offset: number },
  options: { ascending?: boolean } = {},
): Promise<MediaItemRecord[]> {
  const items = await queryPage(
    { index: INDEXES.gsi2, partition: typedLibraryPartition(owner, type), descending: !options.ascending },
    page,
  );
  return items.map(recordsOf(mediaItemItemSchema));
}

/**
 * Records that guide `guideid` shows these items (GET /media/* lets the guide's readers see
 * them). Items deleted meanwhile are skipped.
 */
export async function markMediaUsedBy(guideid: number, itemids: number[]): Promise<void> {
  await Promise.all(
    [...new Set(itemids)].map(async (itemid) => {
      try {
        await db().send(
          new UpdateCommand({
            TableName: tableName(),
            Key: mediaItemKey(itemid),
            UpdateExpression: 'ADD used_by_guideids :guide',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeValues: { ':guide': new Set([guideid]) },
          }),
        );
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    }),
  );
}

/** Deletes the item if `userid` owns it; false when it was not there (any more). */
export async function deleteMediaItem(itemid: number, owner: OwnerKey): Promise<MediaItemRecord | undefined> {
  // The owner's item only: a user's (no service_author), or the one token's.
  const ownedBy =
    typeof owner === 'number'
      ? {
          ConditionExpression: 'attribute_exists(pk) AND userid = :userid AND attribute_not_exists(service_author)',
          ExpressionAttributeValues: { ':userid': owner },
        }
      : {
          ConditionExpression: 'attribute_exists(pk) AND service_author.tokenid = :tokenid',
          ExpressionAttributeValues: { ':tokenid': owner.slice('token-'.length) },
        };
  try {
    const result = await db().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: mediaItemKey(itemid),
        ...ownedBy,
        ReturnValues: 'ALL_OLD',
      }),
    );
    const deleted = result.Attributes ? recordFrom(mediaItemItemSchema, result.Attributes) : undefined;
    // The guid lookup goes after its item: a lookup left by a failure here finds no item (404).
    if (deleted) await db().send(new DeleteCommand({ TableName: tableName(), Key: guidKey(deleted.guid) }));
    return deleted;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return undefined;
    throw error;
  }
}

/**
 * The processor's result. Conditional on the item still existing with this original: an item
 * deleted (or re-uploaded) meanwhile is left alone, and the caller cleans up what it wrote.
 */
export async function finishProcessing(
  itemid: number,
  originalKey: string,
  outcome: {
    status: 'ready' | 'failed';
    size: number;
    sizes: string[];
    width: number | null;
    height: number | null;
    durationMs?: number | null;
    failure: string | null;
    now: number;
  },
): Promise<boolean> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: mediaItemKey(itemid),
        UpdateExpression:
          'SET #status = :status, size = :size, sizes = :sizes, width = :width, height = :height, ' +
          'duration_ms = :duration, failure = :failure, modified_date = :now',
        ConditionExpression: 'attribute_exists(pk) AND original_key = :key',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':status': outcome.status,
          ':size': outcome.size,
          ':sizes': outcome.sizes,
          ':width': outcome.width,
          ':height': outcome.height,
          ':duration': outcome.durationMs ?? null,
          ':failure': outcome.failure,
          ':now': outcome.now,
          ':key': originalKey,
        },
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/** The original arrived: uploading -> processing (a no-op when already past uploading). */
export async function markOriginalStored(
  itemid: number,
  originalKey: string,
  size: number,
  now: number,
): Promise<void> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: mediaItemKey(itemid),
        UpdateExpression: 'SET #status = :processing, size = :size, modified_date = :now',
        ConditionExpression: 'original_key = :key AND #status = :uploading',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':processing': 'processing',
          ':uploading': 'uploading',
          ':size': size,
          ':now': now,
          ':key': originalKey,
        },
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}
