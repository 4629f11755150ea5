/**
 * A collection of guides as `GET /collections` answers it (decision 281): the iOS app's Featured
 * tab reads item `image.large`, `title`, `collectionid`, `date` (an integer) and `guides[]` with
 * `guideid`, `title` and `image.medium`, and crashes on a null image there. So `image` is never
 * null: the collection's own, else its first guide's, else the site's placeholder; a guide
 * without an image shows the collection's.
 */
import * as z from 'zod/mini';
import type { CollectionRecord } from '../db/entities/collection.ts';
import { imageSchema, type ImageView } from './common-schemas.ts';
import { guideSummarySchema, type GuideSummary } from './guide-views.ts';
import { defaultAvatarImage } from './user-views.ts';

/** A guide of a collection: its summary, with an image always. */
export const collectionGuideSchema = z.extend(guideSummarySchema, { image: imageSchema });

export const collectionSchema = z.object({
  collectionid: z.int(),
  title: z.string(),
  description: z.string(),
  /** Epoch seconds: the list is newest first by it. */
  date: z.int(),
  image: imageSchema,
  /** How many guides it holds that the caller may read (the length of `guides`). */
  guide_count: z.int(),
  guides: z.array(collectionGuideSchema),
});

export type CollectionView = z.output<typeof collectionSchema>;

/**
 * The collection with the guides the caller may read, in its order (`guides`: their summaries).
 * `image`: the collection's own ready image, if any.
 */
export function collectionView(
  collection: CollectionRecord,
  image: ImageView | undefined,
  guides: GuideSummary[],
  siteUrl: string,
): CollectionView {
  const shown = image ?? guides.find((guide) => guide.image)?.image ?? defaultAvatarImage(siteUrl);
  return {
    collectionid: collection.collectionid,
    title: collection.title,
    description: collection.description,
    date: collection.date,
    image: shown,
    guide_count: guides.length,
    guides: guides.map((guide) => ({ ...guide, image: guide.image ?? shown })),
  };
}
