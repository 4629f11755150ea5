/**
 * `GET /igi/{file}`: an image object at its stable path (decision 197). On AWS CloudFront
 * serves `/igi/*` from the media bucket itself and this route is never reached through the
 * site; locally (and on the API's own host) it answers the same bytes from the same key. The
 * bytes, never a redirect: the apps send their Authorization header to every URL they fetch,
 * and a presigned URL refuses a second authentication mechanism.
 */
import * as z from 'zod/mini';
import { rawReply, route } from '../../shared/http/route.ts';
import { IMAGE_MAX_AGE_SECONDS } from '../../shared/storage/media-objects.ts';
import { imageFile } from './image-files.service.ts';

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
    const image = await imageFile(params.file);
    const maxAge = image.onDemand ? ON_DEMAND_MAX_AGE_SECONDS : IMAGE_MAX_AGE_SECONDS;
    return rawReply(200, image.bytes, image.contentType, { 'cache-control': `public, max-age=${maxAge}` });
  },
});
