/**
 * `GET /igi/{file}`: an image object at its stable path (decision 197). On AWS CloudFront
 * serves `/igi/*` from the media bucket itself and this route is never reached through the
 * site; locally (and on the API's own host) it answers the same bytes from the same key. The
 * bytes, never a redirect: the apps send their Authorization header to every URL they fetch,
 * and a presigned URL refuses a second authentication mechanism.
 */
import * as z from 'zod/mini';
import { MEDIA_CONSTRAINTS } from '../../shared/domain/media.ts';
import { NotFoundError } from '../../shared/domain/errors.ts';
import { rawReply, route } from '../../shared/http/route.ts';
import { IMAGE_MAX_AGE_SECONDS, imageObjectKeyOfFile, mediaBucket } from '../../shared/storage/media-objects.ts';
import { getObjectIfExists } from '../../shared/storage/objects.ts';

const IMAGE_MAX_BYTES = MEDIA_CONSTRAINTS.find((constraint) => constraint.type === 'GuideImage')!.max_bytes;

export const imageFileRoute = route({
  method: 'GET',
  path: '/igi/{file}',
  site: true,
  // The unguessable guid is the capability, as on Dozuki: no token, even on a private site.
  auth: 'public',
  openOnPrivateSite: true,
  summary: 'An image at one size (`<guid>.<size>`) or its original (`<guid>`): the bytes',
  params: z.object({ file: z.string() }),
  handler: async ({ params }) => {
    const key = imageObjectKeyOfFile(params.file);
    const object = key ? await getObjectIfExists(mediaBucket(), key, IMAGE_MAX_BYTES) : undefined;
    if (!object) throw new NotFoundError('No such image');
    return rawReply(200, object.bytes, object.contentType ?? 'application/octet-stream', {
      'cache-control': `public, max-age=${IMAGE_MAX_AGE_SECONDS}`,
    });
  },
});
