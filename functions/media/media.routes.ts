/**
 * User media: the caller's library of images, videos, documents and embeds (spec "User media"; legacy calls in
 * legacy-media.routes.ts).
 */
import * as z from 'zod/mini';
import { MEDIA_CONSTRAINTS, MEDIA_TYPES } from '../../shared/domain/media.ts';
import { MARKUP_COLORS } from '../../shared/media/images.ts';
import { imageEditBody, presignBody } from './media.schemas.ts';
import {
  mediaConstraintSchema,
  mediaItemSchema,
  presignedUploadSchema,
  uploadedItemSchema,
} from '../../shared/views/media-item-views.ts';
import { defineGroup, route } from '../../shared/http/route.ts';
import { pagination } from '../../shared/http/query.ts';
import { pathId } from '../../shared/http/schemas.ts';
import { MEDIA_DERIVED_PREFIX, MEDIA_ORIGINALS_PREFIX } from '../../shared/storage/media-objects.ts';
import * as media from './media.service.ts';
import { legacyMediaRoutes } from './legacy-media.routes.ts';

const itemParams = z.object({ type: z.string(), itemId: pathId });

export const mediaGroup = defineGroup({
  name: 'media',
  // Originals are uploaded (raw body, presigned POST, copies read one); views presign GETs of originals and sizes;
  // deleting an item removes both. Sizes are written by ProcessMedia only.
  access: {
    table: 'readwrite',
    mediaBucket: {
      read: [MEDIA_ORIGINALS_PREFIX, MEDIA_DERIVED_PREFIX],
      write: [MEDIA_ORIGINALS_PREFIX],
      delete: [MEDIA_ORIGINALS_PREFIX, MEDIA_DERIVED_PREFIX],
    },
  },
  // sharp decodes and encodes images in memory (edits); more memory is also more CPU.
  memoryMb: 1536,
  timeoutSeconds: 29,
  nodeModules: ['sharp'],
  routes: [
    route({
      method: 'POST',
      path: '/user/media/uploads',
      auth: 'user',
      summary: "Upload a file to the caller's media library; the request body is the file",
      description:
        'Send the bytes with `Content-Type: application/octet-stream` (400 without a Content-Type, 415 with ' +
        'another) and name the file with `?file=`; its extension decides the item type. Answers `{id, ' +
        'type}`; processing (image sizes) follows, see GET /user/media/{type}/{itemId}. Bodies are limited ' +
        'by the API payload limit (4 MB); larger files use POST /user/media/uploads/presigned. Images must be ' +
        'JPEG, PNG, GIF or WebP by their bytes, at most 50,000,000 pixels and 12,000 on a side: 422 ' +
        '`unsupported_format` / `not_an_image` / `too_many_pixels` before anything is stored; 503 when image ' +
        'work stays busy.',
      rawBody: true,
      query: z.object({ file: z.optional(z.string()) }),
      response: uploadedItemSchema,
      handler: ({ caller, query, headers, rawBody }) =>
        media.uploadRaw(caller, {
          file: query.file,
          contentType: headers['content-type'],
          body: rawBody ?? Buffer.alloc(0),
        }),
    }),
    route({
      method: 'POST',
      path: '/user/media/uploads/presigned',
      mintsCredentials: true,
      auth: 'user',
      status: 201,
      summary: 'Start a browser upload straight to storage (presigned POST; type and size enforced by S3)',
      description:
        'Beyond the spec. Answers `{id, type, upload: {url, fields, expires, max_bytes}}`: POST a multipart ' +
        'form to `url` with every field of `fields` and then the file as `file`. S3 refuses a file over the ' +
        'limit of its type (400 EntityTooLarge) or with another Content-Type (403). Processing starts when ' +
        'the file is stored.',
      body: presignBody,
      response: presignedUploadSchema,
      example: { filename: 'wiring.jpg', content_type: 'image/jpeg', size: 524288 },
      handler: ({ caller, body }) => media.presignUpload(caller, body),
    }),
    route({
      method: 'GET',
      path: '/user/media/current',
      auth: 'user',
      summary: "The caller's media items, newest first",
      query: z.object(pagination),
      response: z.array(mediaItemSchema),
      handler: ({ caller, query }) => media.listCurrent(caller, query),
    }),
    route({
      method: 'GET',
      path: '/user/media/constraints',
      auth: 'user',
      summary: 'Media constraints of the site (extensions, content types, sizes); filter by media item name',
      description:
        `\`?name=\` is one of ${MEDIA_CONSTRAINTS.map((c) => c.name).join(', ')} or an item type ` +
        `(${MEDIA_TYPES.join(', ')}).`,
      query: z.object({ name: z.optional(z.string()) }),
      response: z.array(mediaConstraintSchema),
      handler: async ({ query }) => media.constraints(query.name),
    }),
    route({
      method: 'GET',
      path: '/user/media/{type}/{itemId}',
      auth: 'user',
      summary: 'A media item of the caller and its readiness (isReady)',
      description: `\`type\` is one of ${MEDIA_TYPES.join(', ')} (400 otherwise). 403 for another user's item.`,
      params: itemParams,
      response: mediaItemSchema,
      handler: ({ caller, params }) => media.getItem(caller, params.type, params.itemId),
    }),
    route({
      method: 'DELETE',
      path: '/user/media/{type}/{itemId}',
      auth: 'user',
      status: 204,
      summary: 'Delete a media item of the caller and every stored object of it',
      params: itemParams,
      handler: async ({ caller, params }) => {
        await media.deleteItem(caller, params.type, params.itemId);
      },
    }),
    route({
      method: 'POST',
      path: '/user/media/images/edits',
      auth: 'user',
      status: 201,
      summary: 'Crop and/or mark up an image of the caller into a new image',
      description:
        '`crop` is in pixels of the upright original; `markup` shapes (rectangle, circle, line, arrow) are ' +
        'in pixels of the cropped image, coloured by name (' +
        Object.keys(MARKUP_COLORS).join(', ') +
        ') or #rrggbb. Answers the new GuideImage item (processing); the source image is unchanged.',
      body: imageEditBody,
      response: mediaItemSchema,
      example: {
        imageid: 1,
        crop: { x: 0, y: 0, width: 400, height: 300 },
        markup: [
          { shape: 'rectangle', x: 20, y: 20, width: 100, height: 60, color: 'red' },
          { shape: 'arrow', from: { x: 300, y: 250 }, to: { x: 150, y: 80 }, color: 'yellow', stroke_width: 6 },
        ],
      },
      handler: ({ caller, body }) => media.editImageItem(caller, body),
    }),
    ...legacyMediaRoutes,
  ],
});
