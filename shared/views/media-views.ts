/**
 * The Image object (reference/wire-format.md §2.1) of a media item, shared by the media group
 * and every view that shows an image (guides, steps). The bucket is private, so every URL is a
 * presigned GET that expires after URL_LIFETIME_SECONDS; signing is local (no request to S3),
 * but the signer needs s3:GetObject on the media bucket (`mediaBucket: 'read'` in its group).
 */
import { IMAGE_SIZES, type ImageObject } from '../domain/media.ts';
import { getMediaItems, type MediaItemRecord } from '../db/entities/media-item.ts';
import { derivedKey, mediaBucket } from '../storage/media-objects.ts';
import { presignedGetUrl } from '../storage/objects.ts';

export const URL_LIFETIME_SECONDS = 3600;

/** A presigned GET of an object in the media bucket (`downloadAs`: served as an attachment). */
export function mediaUrl(key: string, downloadAs?: string): Promise<string> {
  return presignedGetUrl(mediaBucket(), key, URL_LIFETIME_SECONDS, downloadAs);
}

/** The Image object: id, guid, every size that exists, and `original`. */
export async function imageObject(item: MediaItemRecord): Promise<ImageObject> {
  const image: ImageObject = { id: item.itemid, guid: item.guid };
  for (const size of IMAGE_SIZES) {
    if (item.sizes.includes(size.name)) image[size.name] = await mediaUrl(derivedKey(item.itemid, item.guid, size.name));
  }
  image.original = await mediaUrl(item.original_key);
  return image;
}

/** Whether an item can be shown as an Image object. */
export const isReadyImage = (item: MediaItemRecord): boolean => item.type === 'GuideImage' && item.status === 'ready';

/**
 * Image objects of the ready images among `ids`, by id, from one BatchGet. Ids that are absent
 * (deleted), not ready or not images are simply not in the map; views show them as `{id}`.
 */
export async function imageObjectsById(ids: Iterable<number>): Promise<Map<number, ImageObject>> {
  const items = (await getMediaItems([...ids])).filter(isReadyImage);
  return new Map(await Promise.all(items.map(async (item) => [item.itemid, await imageObject(item)] as const)));
}
