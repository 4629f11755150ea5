/** The route of the pages' client files (client-files.ts; decision 294). */
import * as z from 'zod/mini';
import { NotFoundError } from '../../shared/domain/errors.ts';
import { rawReply, route } from '../../shared/http/route.ts';
import { pageClientFiles } from './client-files.ts';

/** A year, and never revalidated: the URL changes with the content. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

export const clientFileRoute = route({
  method: 'GET',
  path: '/client/{file}',
  site: true,
  auth: 'public',
  // The same code for everyone, nothing of the site in it: open before sign-in like the login page's.
  openOnPrivateSite: true,
  summary: "The pages' client script or stylesheet, by the hash of its content (decision 294)",
  params: z.object({ file: z.string().check(z.regex(/^editor\.[0-9a-f]{16}\.(js|css)$/)) }),
  handler: async ({ params }) => {
    const { script, style } = pageClientFiles();
    const file = [script, style].find((candidate) => candidate.path === `/client/${params.file}`);
    // An older build's hash: gone (a page of this build names the current one).
    if (!file) throw new NotFoundError('No such client file');
    return rawReply(200, file.text, file.contentType, {
      'cache-control': IMMUTABLE,
      'x-content-type-options': 'nosniff',
    });
  },
});
