/**
 * `GET /igi/{file}`: an image object at its stable path (decision 197). On AWS CloudFront
 * serves `/igi/*` from the media bucket itself and this route is never reached through the
 * site; locally (and on the API's own host) it answers the same bytes from the same key. The
 * bytes, never a redirect: the apps send their Authorization header to every URL they fetch,
 * and a presigned URL refuses a second authentication mechanism.
 */
import * as z from 'zod/mini';
import { rawReply, reply, route } from '../../shared/http/route.ts';
import { IMAGE_MAX_AGE_SECONDS } from '../../shared/storage/media-objects.ts';
import { lazyService } from '../../shared/http/lazy-service.ts';
import type * as ImageFiles from './image-files.service.ts';
import type * as MediaFiles from './media-files.service.ts';

/** Evaluated with the media and storage code they reach when a file is first asked for (decision 349). */
const images = lazyService<typeof ImageFiles>(() => import('./image-files.service.ts'));
const media = lazyService<typeof MediaFiles>(() => import('./media-files.service.ts'));

/** What a size made on demand is kept for: processing stores the same bytes soon after. */
const ON_DEMAND_MAX_AGE_SECONDS = 60;

export const imageFileRoute = route({
  method: 'GET',
  path: '/igi/{file}',
  site: true,
  // The unguessable guid is the capability, as on Dozuki: no token, even on a private site.
  auth: 'public',
  openOnPrivateSite: true,
  summary: 'An image at one size (`<guid>.<size>`) or its original (`<guid>`): the bytes',
  description:
    'A size not made yet (the image is still processing) is made from the original on demand (decision 280).',
  params: z.object({ file: z.string() }),
  handler: async ({ params }) => {
    const image = await images.imageFile(params.file);
    const maxAge = image.onDemand ? ON_DEMAND_MAX_AGE_SECONDS : IMAGE_MAX_AGE_SECONDS;
    return rawReply(200, image.bytes, image.contentType, { 'cache-control': `public, max-age=${maxAge}` });
  },
});

/**
 * `GET /igi/{guid}/{filename}`: a video's or document's file at its stable path (decision 312),
 * the `url` of a video encoding and a document's `download_url`. On AWS CloudFront serves it from
 * the bucket's public copy; this route answers what the bucket does not hold yet (it makes the copy).
 */
export const mediaFileRoute = route({
  method: 'GET',
  path: '/igi/{guid}/{filename}',
  site: true,
  // The guid is the capability, as for images (decision 197): whoever may read what shows the
  // item was given it. Any Authorization the client sends along is no obstacle.
  auth: 'public',
  openOnPrivateSite: true,
  summary: "A video's or document's file by guid (the name is decoration): the bytes, with ranges",
  description:
    'Range requests (one range) answer 206 with Content-Range, honouring If-Range; If-None-Match answers 304. ' +
    'A document is sent as an attachment under a safe file name (decision 312).',
  params: z.object({ guid: z.string(), filename: z.string() }),
  handler: async ({ params, headers }) => {
    const answer = await media.mediaFile(params.guid, {
      range: headers.range,
      ifRange: headers['if-range'],
      ifNoneMatch: headers['if-none-match'],
    });
    switch (answer.kind) {
      case 'bytes':
        return rawReply(answer.status, answer.bytes, answer.contentType, answer.headers);
      case 'not-modified':
        return reply(304, undefined, answer.headers);
      case 'unsatisfiable':
        return reply(416, undefined, answer.headers);
      case 'redirect':
        return reply(302, undefined, { location: answer.location, 'cache-control': 'no-store' });
    }
  },
});
