/**
 * Collections of guides (decision 281): Admins create, order, date and delete them; everyone who
 * may read the site lists them newest first, each showing the guides its reader may read.
 */
import { nowSeconds } from '../../shared/clock.ts';
import { actorFields, type Caller } from '../../shared/domain/caller.ts';
import { NotFoundError, ValidationError } from '../../shared/domain/errors.ts';
import { nextId } from '../../shared/db/counters.ts';
import {
  type CollectionRecord,
  deleteCollection,
  getCollection,
  listCollections,
  saveCollection,
} from '../../shared/db/entities/collection.ts';
import { getGuides } from '../../shared/db/entities/guide.ts';
import { getMediaItem } from '../../shared/db/entities/media-item.ts';
import type { Page } from '../../shared/db/paging.ts';
import { retryOnLostRace } from '../../shared/db/retry.ts';
import { collectionViews } from '../../shared/read-models/collections.ts';
import type { CollectionView } from '../../shared/views/collection-views.ts';
import type { CreateCollectionInput, PatchCollectionInput } from './wikis.schemas.ts';

/** The image must be a processed image of the site's media (422 `image` otherwise). */
async function requireImage(imageid: number | null): Promise<void> {
  if (imageid === null) return;
  const item = await getMediaItem(imageid);
  if (item?.type !== 'GuideImage' || item.status !== 'ready')
    throw ValidationError.field('image', 'not_found', `No ready image ${imageid}`);
}

/** Every guide must exist (422 `guideids` naming the first missing one). */
async function requireGuides(guideids: number[]): Promise<void> {
  if (guideids.length === 0) return;
  const found = new Set((await getGuides(guideids)).map((guide) => guide.guideid));
  const missing = guideids.find((guideid) => !found.has(guideid));
  if (missing !== undefined) throw ValidationError.field('guideids', 'not_found', `No guide ${missing}`);
}

async function viewOf(caller: Caller | null, collection: CollectionRecord): Promise<CollectionView> {
  return (await collectionViews(caller, [collection]))[0]!;
}

async function requireCollection(collectionid: number, consistent = false): Promise<CollectionRecord> {
  const collection = await getCollection(collectionid, consistent);
  if (!collection) throw new NotFoundError(`No collection ${collectionid}`);
  return collection;
}

export async function listCollectionViews(caller: Caller | null, page: Page): Promise<CollectionView[]> {
  return collectionViews(caller, await listCollections(page));
}

export async function readCollection(caller: Caller | null, collectionid: number): Promise<CollectionView> {
  return viewOf(caller, await requireCollection(collectionid));
}

export async function createCollection(caller: Caller, input: CreateCollectionInput): Promise<CollectionView> {
  await Promise.all([requireImage(input.image), requireGuides(input.guideids)]);
  const now = nowSeconds();
  const collection: CollectionRecord = {
    collectionid: await nextId('collection'),
    title: input.title,
    description: input.description,
    imageid: input.image,
    guideids: input.guideids,
    date: input.date ?? now,
    ...actorFields('created_by', caller),
    created_date: now,
    modified_date: now,
    version: 1,
  };
  await saveCollection(collection, null);
  return viewOf(caller, collection);
}

export async function updateCollection(
  caller: Caller,
  collectionid: number,
  input: PatchCollectionInput,
): Promise<CollectionView> {
  // An unknown collection is 404 before its body's guides and image are looked up.
  await requireCollection(collectionid);
  await Promise.all([
    input.image === undefined ? undefined : requireImage(input.image),
    input.guideids === undefined ? undefined : requireGuides(input.guideids),
  ]);
  const saved = await retryOnLostRace(
    async () => {
      const before = await requireCollection(collectionid, true);
      const after: CollectionRecord = {
        ...before,
        title: input.title ?? before.title,
        description: input.description ?? before.description,
        imageid: input.image === undefined ? before.imageid : input.image,
        guideids: input.guideids ?? before.guideids,
        date: input.date ?? before.date,
        modified_date: nowSeconds(),
        version: before.version + 1,
      };
      await saveCollection(after, before.version);
      return after;
    },
    { message: `Collection ${collectionid} kept changing; try again` },
  );
  return viewOf(caller, saved);
}

export async function removeCollection(collectionid: number): Promise<void> {
  await retryOnLostRace(async () => deleteCollection(await requireCollection(collectionid, true)));
}
