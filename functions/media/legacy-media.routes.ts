/**
 * Media the way older clients call it (docs/wire-fidelity.md §3.12, §3.13): the library by type, the raw
 * image upload, copies, multi-deletes, embeds and /media/* reads by id or guid. Part of the media
 * group (media.routes.ts); the same items as /user/media/uploads.
 */
import * as z from 'zod/mini';
import { reply, route, type RouteDef } from '../../shared/http/route.ts';
import { pagination } from '../../shared/http/query.ts';
import { orderQuery, pathId } from '../../shared/http/schemas.ts';
import { CROP_RATIOS, type CropRatio } from '../../shared/media/images.ts';
import * as legacy from './legacy-media.service.ts';
import { embedBody, libraryLimit } from './media.schemas.ts';
import {
  documentSchema,
  embedSchema,
  imageItemSchema,
  libraryImageSchema,
  videoSchema,
} from '../../shared/views/media-views.ts';

/** A numeric id or a guid (letters and digits, as the Image object's `guid`). */
const idOrGuid = z.string().check(z.regex(/^(\d{1,15}|[A-Za-z0-9]{16,64})$/, 'must be an id or a guid'));

/** "1,2,3": up to 100 comma-separated ids. */
const idList = z.pipe(
  z.string().check(z.regex(/^\d{1,15}(,\d{1,15}){0,99}$/, 'must be up to 100 comma-separated ids')),
  z.transform((value: string) => value.split(',').map((part) => Number.parseInt(part, 10))),
);

const libraryQuery = z.object({ ...pagination, limit: libraryLimit, order: orderQuery });

export const legacyMediaRoutes: RouteDef[] = [
  route({
    method: 'GET',
    path: '/user/media/images',
    auth: 'user',
    summary: "The caller's images (user-media image items), newest first",
    description:
      'A bare array; `order=ASC` lists oldest first; `limit` up to 1000 (the apps ask for the whole ' +
      'library in one answer). `image` is the Image object (sizes appear once processing is done: `isReady`).',
    query: libraryQuery,
    response: z.array(libraryImageSchema),
    handler: ({ caller, query }) => legacy.listImages(caller, query),
  }),
  route({
    method: 'POST',
    path: '/user/media/images',
    auth: 'user',
    summary: "Upload an image to the caller's library; the request body is the image",
    description:
      'Name it with `?file=` (an image extension); any Content-Type is accepted, the bytes decide: an ' +
      'empty, truncated or unreadable body is 422 and nothing is stored, as is any format but JPEG, PNG, GIF ' +
      'or WebP (`unsupported_format`: SVG too), more than 50,000,000 pixels or 12,000 on a side ' +
      '(`too_many_pixels`) and a decode past its deadline (`too_slow_to_decode`); 503 when image work stays ' +
      'busy. `cropToRatio` ONE_ONE or ' +
      'FOUR_THREE keeps the largest centred box of that ratio. Answers the item (`imageid`, `image`); the ' +
      'sizes follow once processed. Bodies up to 4 MB; larger files: POST /user/media/uploads/presigned.',
    rawBody: true,
    query: z.object({
      file: z.optional(z.string()),
      cropToRatio: z.optional(z.enum(Object.keys(CROP_RATIOS) as [CropRatio, ...CropRatio[]])),
    }),
    response: libraryImageSchema,
    handler: ({ caller, query, rawBody }) =>
      legacy.uploadImage(caller, {
        file: query.file,
        cropToRatio: query.cropToRatio,
        body: rawBody ?? Buffer.alloc(0),
      }),
  }),
  route({
    method: 'POST',
    path: '/user/media/images/{imageid}',
    auth: 'user',
    summary: "Copy an image (by imageid or guid) into the caller's library",
    description:
      'The source must be an image the caller can see (own, or shown by a guide the caller can read): 403 ' +
      'otherwise, 404 when unknown. Answers the new item.',
    params: z.object({ imageid: idOrGuid }),
    response: libraryImageSchema,
    handler: ({ caller, params }) => legacy.copyImage(caller, params.imageid),
  }),
  route({
    method: 'DELETE',
    // Named {imageid} like the copy route on the same path (OpenAPI allows one name per path): an id list here.
    path: '/user/media/images/{imageid}',
    auth: 'user',
    status: 204,
    summary: "Delete the caller's images (comma-separated ids)",
    description: "403 and nothing deleted when any id is another user's image; ids that name no image are skipped.",
    params: z.object({ imageid: idList }),
    handler: async ({ caller, params }) => {
      await legacy.deleteImages(caller, params.imageid);
    },
  }),
  route({
    method: 'DELETE',
    path: '/user/media/images',
    auth: 'user',
    status: 204,
    summary: "Delete the caller's images named by `?imageids=` (comma-separated ids)",
    description:
      'The query form some clients send, beside DELETE /user/media/images/{imageid}: the same rules (403 and ' +
      "nothing deleted when any id is another user's image; ids that name no image are skipped).",
    query: z.object({ imageids: idList }),
    queryExample: { imageids: '9301,9302' },
    handler: async ({ caller, query }) => {
      await legacy.deleteImages(caller, query.imageids);
    },
  }),
  route({
    method: 'GET',
    path: '/user/media/videos',
    auth: 'user',
    summary: "The caller's videos (Video objects), newest first",
    query: libraryQuery,
    response: z.array(videoSchema),
    handler: ({ caller, query }) => legacy.listVideos(caller, query),
  }),
  route({
    method: 'GET',
    path: '/user/media/embeds',
    auth: 'user',
    summary: "The caller's embeds, newest first",
    query: libraryQuery,
    response: z.array(embedSchema),
    handler: ({ caller, query }) => legacy.listEmbeds(caller, query),
  }),
  route({
    method: 'POST',
    path: '/user/media/embeds',
    auth: 'user',
    status: 201,
    summary: "Add an embed (a URL) to the caller's library",
    description:
      "Beyond the spec (its shape is not documented). YouTube and Vimeo URLs become the provider's player; " +
      'any other http(s) URL a link. Nothing is fetched. Use it as step media `{type: "embed", data: embedid}`.',
    body: embedBody,
    example: { url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ' },
    response: embedSchema,
    handler: ({ caller, body }) => legacy.createEmbed(caller, body),
  }),
  route({
    method: 'GET',
    path: '/media/images/{imageid}',
    auth: 'public',
    summary: 'An image by imageid or guid: `{image, srcid, width, height, ratio, markup, exif}`',
    description:
      'Its owner, Admins and readers of a guide that shows it see it; 403 for anyone else, 404 when unknown.',
    params: z.object({ imageid: idOrGuid }),
    response: z.omit(imageItemSchema, { imageid: true, guid: true }),
    handler: ({ caller, params }) => legacy.getImage(caller, params.imageid),
  }),
  route({
    method: 'GET',
    path: '/Document/{guid}/{filename}',
    site: true,
    // The guid is the capability (decision 197): the apps fetch `url` with their domain before it.
    auth: 'public',
    openOnPrivateSite: true,
    summary: "A document's file (its `url`): a redirect to its stable path `/igi/<guid>/<name>`",
    params: z.object({ guid: z.string(), filename: z.string() }),
    handler: async ({ params }) => {
      const location = await legacy.documentFileLocation(params.guid);
      return reply(302, undefined, { location });
    },
  }),
  route({
    method: 'GET',
    path: '/media/videos/{videoid}',
    auth: 'public',
    summary: 'A video by videoid or guid (the Video object)',
    description:
      'Its owner, Admins and readers of a guide that shows it see it; 403 for anyone else, 404 when unknown.',
    params: z.object({ videoid: idOrGuid }),
    response: videoSchema,
    handler: ({ caller, params }) => legacy.getVideo(caller, params.videoid),
  }),
  route({
    method: 'GET',
    path: '/media/documents/{documentid}',
    auth: 'public',
    summary: 'A document by documentid (the Document object; `url` fetches the file)',
    description:
      'Its owner, Admins and readers of a guide that lists it see it; 403 for anyone else, 404 when unknown.',
    params: z.object({ documentid: pathId }),
    response: documentSchema,
    handler: ({ caller, params }) => legacy.getDocument(caller, params.documentid),
  }),
];
