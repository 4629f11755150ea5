/** User media: the caller's library of images, videos, documents and embeds (spec "User media"; legacy calls in legacy-media.routes.ts). */
import * as z from 'zod/mini';
import { MEDIA_CONSTRAINTS, MEDIA_TYPES } from '../../shared/domain/media.ts';
import { MARKUP_COLORS } from '../../shared/media/images.ts';
import { defineGroup, reply, route } from '../../shared/http/route.ts';
import { pagination } from '../../shared/http/query.ts';
import { pathId } from '../../shared/http/schemas.ts';
import * as media from './media.service.ts';
import { legacyMediaRoutes } from './legacy-media.routes.ts';

const itemParams = z.object({ type: z.string(), itemId: pathId });

const pixel = z.int().check(z.minimum(0), z.maximum(100_000));
const extent = z.int().check(z.minimum(1), z.maximum(100_000));
const point = z.object({ x: pixel, y: pixel });
const color = z.union([z.enum(Object.keys(MARKUP_COLORS) as [string, ...string[]]), z.string().check(z.regex(/^#[0-9a-fA-F]{6}$/))]);
const stroke = { color, stroke_width: z.optional(z.int().check(z.minimum(1), z.maximum(200))) };
const shape = z.discriminatedUnion('shape', [
  z.object({ shape: z.literal('rectangle'), x: pixel, y: pixel, width: extent, height: extent, ...stroke }),
  z.object({ shape: z.literal('circle'), x: pixel, y: pixel, radius: extent, ...stroke }),
  z.object({ shape: z.literal('line'), from: point, to: point, ...stroke }),
  z.object({ shape: z.literal('arrow'), from: point, to: point, ...stroke }),
]);

export const mediaGroup = defineGroup({
  name: 'media',
  access: { table: 'readwrite', mediaBucket: 'readwrite' },
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
        'Send the bytes with `Content-Type: application/octet-stream` (400 without a Content-Type, 415 with another) and name the file with `?file=`; its extension decides the item type. Answers `{id, type}`; processing (image sizes) follows, see GET /user/media/{type}/{itemId}. Bodies are limited by the API payload limit (4 MB); larger files use POST /user/media/uploads/presigned.',
      rawBody: true,
      query: z.object({ file: z.optional(z.string()) }),
      handler: ({ caller, query, headers, rawBody }) =>
        media.uploadRaw(caller, { file: query.file, contentType: headers['content-type'], body: rawBody ?? Buffer.alloc(0) }),
    }),
    route({
      method: 'POST',
      path: '/user/media/uploads/presigned',
      auth: 'user',
      status: 201,
      summary: 'Start a browser upload straight to storage (presigned POST; type and size enforced by S3)',
      description:
        'Beyond the spec. Answers `{id, type, upload: {url, fields, expires, max_bytes}}`: POST a multipart form to `url` with every field of `fields` and then the file as `file`. S3 refuses a file over the limit of its type (400 EntityTooLarge) or with another Content-Type (403). Processing starts when the file is stored.',
      body: z.object({
        filename: z.string().check(z.minLength(1), z.maxLength(255)),
        content_type: z.optional(z.string().check(z.maxLength(255))),
        size: z.optional(z.int().check(z.positive())),
      }),
      example: { filename: 'wiring.jpg', content_type: 'image/jpeg', size: 524288 },
      handler: ({ caller, body }) => media.presignUpload(caller, body),
    }),
    route({
      method: 'GET',
      path: '/user/media/current',
      auth: 'user',
      summary: "The caller's media items, newest first",
      query: z.object(pagination),
      handler: ({ caller, query }) => media.listCurrent(caller, query),
    }),
    route({
      method: 'GET',
      path: '/user/media/constraints',
      auth: 'user',
      summary: 'Media constraints of the site (extensions, content types, sizes); filter by media item name',
      description: `\`?name=\` is one of ${MEDIA_CONSTRAINTS.map((c) => c.name).join(', ')} or an item type (${MEDIA_TYPES.join(', ')}).`,
      query: z.object({ name: z.optional(z.string()) }),
      handler: async ({ query }) => media.constraints(query.name),
    }),
    route({
      method: 'GET',
      path: '/user/media/{type}/{itemId}',
      auth: 'user',
      summary: 'A media item of the caller and its readiness (isReady)',
      description: `\`type\` is one of ${MEDIA_TYPES.join(', ')} (400 otherwise). 403 for another user's item.`,
      params: itemParams,
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
        return reply(204);
      },
    }),
    route({
      method: 'POST',
      path: '/user/media/images/edits',
      auth: 'user',
      status: 201,
      summary: 'Crop and/or mark up an image of the caller into a new image',
      description:
        '`crop` is in pixels of the upright original; `markup` shapes (rectangle, circle, line, arrow) are in pixels of the cropped image, coloured by name (' +
        Object.keys(MARKUP_COLORS).join(', ') +
        ') or #rrggbb. Answers the new GuideImage item (processing); the source image is unchanged.',
      body: z.object({
        imageid: z.int().check(z.positive()),
        crop: z.optional(z.object({ x: pixel, y: pixel, width: extent, height: extent })),
        markup: z.optional(z.array(shape).check(z.maxLength(100))),
      }),
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
