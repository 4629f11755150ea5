/**
 * The bytes `GET /igi/{file}` answers (decision 197). An image's URLs are given from its upload
 * answer on (decision 280), so a size asked for before processing has made it is made here from
 * the original, under the bounds of the image decoder (pixels, deadline, the shared pool); the
 * bare `/igi/<guid>` before processing has copied it answers the original itself. Only an image
 * whose original is stored is answered so: anything else stays 404.
 */
import { sniffImageFormat } from '../../shared/media/image-format.ts';
import { IMAGE_SIZES, MEDIA_CONSTRAINTS } from '../../shared/domain/media.ts';
import { NotFoundError, ServiceUnavailableError } from '../../shared/domain/errors.ts';
import { getMediaItem, mediaItemIdByGuid } from '../../shared/db/entities/media-item.ts';
import { ImageBusyError, ImageRefusedError, renderImageSize } from '../../shared/media/images.ts';
import { imageObjectKeyOfFile, mediaBucket } from '../../shared/storage/media-objects.ts';
import { getObjectIfExists } from '../../shared/storage/objects.ts';

const IMAGE_MAX_BYTES = MEDIA_CONSTRAINTS.find((constraint) => constraint.type === 'GuideImage')!.max_bytes;

export interface ImageFile {
  bytes: Buffer;
  contentType: string;
  /** True when made on demand: processing will store the same bytes at the key. */
  onDemand: boolean;
}

/**
 * An /igi/ object's type from its bytes where storage did not keep an image type: an object copied
 * without its metadata (the igi backfill), or the local S3 emulator read while it writes one.
 */
function imageTypeOf(bytes: Uint8Array, stored: string | undefined): string {
  if (stored?.startsWith('image/')) return stored;
  const format = sniffImageFormat(bytes);
  return format ? `image/${format}` : (stored ?? 'application/octet-stream');
}

/** The bytes of `/igi/<guid>[.<size>]`: the stored object, else made from a stored original. */
export async function imageFile(file: string): Promise<ImageFile> {
  const key = imageObjectKeyOfFile(file);
  if (!key) throw new NotFoundError('No such image');
  const stored = await getObjectIfExists(mediaBucket(), key, IMAGE_MAX_BYTES);
  if (stored)
    return { bytes: stored.bytes, contentType: imageTypeOf(stored.bytes, stored.contentType), onDemand: false };
  const [guid, size] = file.split('.') as [string, string | undefined];
  if (size !== undefined && !IMAGE_SIZES.some((known) => known.name === size)) throw new NotFoundError('No such image');
  const itemid = await mediaItemIdByGuid(guid);
  const item = itemid === undefined ? undefined : await getMediaItem(itemid);
  // An image whose original is stored (processing, or ready with its copies still on their way).
  if (item?.type !== 'GuideImage' || (item.status !== 'processing' && item.status !== 'ready'))
    throw new NotFoundError('No such image');
  const original = await getObjectIfExists(mediaBucket(), item.original_key, IMAGE_MAX_BYTES);
  if (!original) throw new NotFoundError('No such image');
  if (size === undefined) return { bytes: original.bytes, contentType: item.content_type, onDemand: true };
  try {
    const rendered = await renderImageSize(original.bytes, size);
    return { bytes: rendered.body, contentType: rendered.contentType, onDemand: true };
  } catch (error) {
    if (error instanceof ImageBusyError) throw new ServiceUnavailableError(error.message);
    // Processing will refuse it too (the item ends failed): no image to show.
    if (error instanceof ImageRefusedError) throw new NotFoundError('No such image');
    throw error;
  }
}
