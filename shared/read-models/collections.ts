/**
 * Loads what collection views show (decision 281): every collection's guides in one BatchGet,
 * only those the caller may read, their summaries (authors and images in one BatchGet each) and
 * the collections' own images in one more.
 */
import { siteUrl } from '../config.ts';
import type { Caller } from '../domain/caller.ts';
import type { CollectionRecord } from '../db/entities/collection.ts';
import { canViewGuideNow } from '../content/guide-access.ts';
import { collectionView, type CollectionView } from '../views/collection-views.ts';
import { guidesForList, listedGuideSummaries } from './guide-pages.ts';
import { imageObjectsById } from './media.ts';

export async function collectionViews(
  caller: Caller | null,
  collections: CollectionRecord[],
): Promise<CollectionView[]> {
  if (collections.length === 0) return [];
  const guideids = [...new Set(collections.flatMap((collection) => collection.guideids))];
  const imageids = collections.flatMap((collection) => (collection.imageid === null ? [] : [collection.imageid]));
  const [guides, images] = await Promise.all([guidesForList(guideids), imageObjectsById(imageids)]);
  const readable = guides.filter(({ guide }) => canViewGuideNow(caller, guide));
  const summaries = new Map((await listedGuideSummaries(readable)).map((summary) => [summary.guideid, summary]));
  return collections.map((collection) =>
    collectionView(
      collection,
      collection.imageid === null ? undefined : images.get(collection.imageid),
      collection.guideids.flatMap((guideid) => summaries.get(guideid) ?? []),
      siteUrl(),
    ),
  );
}
