/**
 * The media objects a view shows, loaded in ONE BatchGet of all their ids (alone, or as a part of
 * a BatchGet other reads share) and built by the media views (shared/views/media-views.ts) when
 * ready and of their kind.
 */
import { batchGetParts, type BatchPart } from '../db/batch.ts';
import { mediaItemsPart, type MediaItemRecord } from '../db/entities/media-item.ts';
import type { MediaType, ViewMediaIds } from '../domain/media.ts';
import type { ImageView } from '../views/common-schemas.ts';
import {
  documentObject,
  embedObject,
  imageObject,
  isReady,
  videoObject,
  type ViewMedia,
} from '../views/media-views.ts';

/** Every object a view shows, from ONE BatchGet of all its ids; each is built only if ready and of its kind. */
export async function viewMediaById(ids: ViewMediaIds): Promise<ViewMedia> {
  const [items] = await batchGetParts(viewMediaPart(ids));
  return viewMediaFrom(ids, items);
}

/**
 * The items of every object a view shows as a share of a BatchGet other reads share (a guide
 * list's authors and schedule claims): build them with viewMediaFrom once read.
 */
export function viewMediaPart(ids: ViewMediaIds): BatchPart<MediaItemRecord[]> {
  return mediaItemsPart([...ids.images, ...ids.videos, ...ids.documents, ...ids.embeds]);
}

/** The objects of `ids` among the items read (viewMediaPart), each built only if ready and of its kind. */
export async function viewMediaFrom(ids: ViewMediaIds, items: MediaItemRecord[]): Promise<ViewMedia> {
  const build = async <T>(
    wanted: number[],
    type: MediaType,
    make: (item: MediaItemRecord) => T | Promise<T>,
  ): Promise<Map<number, T>> => {
    const set = new Set(wanted);
    const ready = items.filter((item) => set.has(item.itemid) && isReady(item, type));
    return new Map(await Promise.all(ready.map(async (item) => [item.itemid, await make(item)] as const)));
  };
  const [images, videos, documents, embeds] = await Promise.all([
    build(ids.images, 'GuideImage', imageObject),
    build(ids.videos, 'GuideVideoObject', videoObject),
    build(ids.documents, 'Document', documentObject),
    build(ids.embeds, 'GuideEmbedObject', embedObject),
  ]);
  return { images, videos, documents, embeds };
}

/** Image objects of the ready images among `ids`, by id, from one BatchGet. */
export async function imageObjectsById(ids: Iterable<number>): Promise<Map<number, ImageView>> {
  return (await viewMediaById({ images: [...ids], videos: [], documents: [], embeds: [] })).images as Map<
    number,
    ImageView
  >;
}
