/**
 * How a media item is shown: the real service's shapes per type (docs/wire-fidelity.md §2.7-2.9, built in
 * shared/views/media-views.ts, which the guide views share) plus `id`, `type`, `isReady` and
 * `status`. Every URL is a presigned GET.
 */
import * as z from 'zod/mini';
import { MEDIA_TYPES } from '../domain/media.ts';
import type { MediaItemRecord } from '../db/entities/media-item.ts';
import { imageSchema } from './common-schemas.ts';
import {
  documentObject,
  documentSchema,
  embedObject,
  embedSchema,
  imageItemSchema,
  imageObject,
  userImageItem,
  videoObject,
  videoSchema,
} from './media-views.ts';

/** What every media item shows besides its type's own object. */
const mediaItemCommon = {
  id: z.int(),
  type: z.enum(MEDIA_TYPES),
  isReady: z.boolean(),
  status: z.enum(['uploading', 'processing', 'ready', 'failed']),
  failure: z.nullable(z.string()),
  filename: z.string(),
  date: z.int(),
};

/**
 * A media item of GET /user/media/{type}/{itemId} and /user/media/current: its type's object plus the common fields.
 */
export const mediaItemSchema = z.union([
  // An image not processed yet has no Image object.
  z.extend(imageItemSchema, { ...mediaItemCommon, image: z.nullable(imageSchema) }),
  z.extend(videoSchema, mediaItemCommon),
  z.extend(documentSchema, mediaItemCommon),
  z.extend(embedSchema, mediaItemCommon),
]);

/** The answer of an upload: the new item's id and type (processing follows). */
export const uploadedItemSchema = z.object({ id: z.int(), type: z.enum(MEDIA_TYPES) });

/** The answer of POST /user/media/uploads/presigned: where and how the browser posts the file. */
export const presignedUploadSchema = z.extend(uploadedItemSchema, {
  upload: z.object({ url: z.string(), fields: z.record(z.string(), z.string()), expires: z.int(), max_bytes: z.int() }),
});

/** One media constraint of GET /user/media/constraints. */
export const mediaConstraintSchema = z.object({
  name: z.string(),
  type: z.enum(MEDIA_TYPES),
  extensions: z.array(z.string()),
  content_types: z.array(z.string()),
  max_bytes: z.int(),
  max_raw_upload_bytes: z.int(),
  max_pixels: z.optional(z.int()),
});

export type MediaItemView = z.output<typeof mediaItemSchema>;
export type MediaConstraintView = z.output<typeof mediaConstraintSchema>;

export async function mediaItemView(item: MediaItemRecord): Promise<MediaItemView> {
  const ready = item.status === 'ready';
  const common = {
    id: item.itemid,
    type: item.type,
    isReady: ready,
    status: item.status,
    failure: item.failure,
    filename: item.filename,
    date: item.date,
  };
  switch (item.type) {
    case 'GuideImage':
      return { ...common, ...(await userImageItem(item)), image: ready ? await imageObject(item) : null };
    case 'GuideVideoObject':
      return { ...(await videoObject(item)), ...common };
    case 'Document':
      return { ...(await documentObject(item)), ...common };
    case 'GuideEmbedObject':
      return { ...embedObject(item), ...common };
  }
}
