/**
 * Paths of the site outside /api/2.0 (decision 187): what a browser or a crawler asks the site
 * root for, the images the apps load (`/igi/`), and the pages people open from the API's `url`s
 * (content.routes.ts).
 */
import * as z from 'zod/mini';
import { config, siteUrl } from '../../shared/config.ts';
import { DEFAULT_AVATAR_PATH, IMAGE_SIZES } from '../../shared/domain/media.ts';
import { defineGroup, rawReply, reply, route } from '../../shared/http/route.ts';
import { MEDIA_DERIVED_PREFIX, MEDIA_ORIGINALS_PREFIX, MEDIA_PDF_PREFIX } from '../../shared/storage/media-objects.ts';
import { SEARCH_INDEX_PREFIX } from '../../shared/search/keys.ts';
import { wikiUrl } from '../../shared/domain/wiki-namespaces.ts';
import { clientFileRoute } from './client.routes.ts';
import { DEFAULT_AVATAR_PNG_BASE64 } from './default-avatar-png.ts';
import { editorRoutes } from './editor.routes.ts';
import { contentRoutes } from './content.routes.ts';
import { homeRoutes } from './home.routes.ts';
import { imageFileRoute, mediaFileRoute } from './images.routes.ts';
import { playerRoutes } from './player.routes.ts';
import { searchRoutes } from './search.routes.ts';
import { sessionRoutes } from './session.routes.ts';
import { pageError } from './session/page-error.ts';

/** A private site keeps every crawler out; a public one lets them read pages, not the API. */
export function robotsTxt(privateSite: boolean): string {
  return privateSite ? 'User-agent: *\nDisallow: /\n' : 'User-agent: *\nDisallow: /api/\n';
}

/** `default-avatar` and `default-avatar.<size>`: the URLs of the default avatar's Image object. */
const avatarName = DEFAULT_AVATAR_PATH.split('/').pop()!;
const avatarAssets = [avatarName, ...IMAGE_SIZES.map((size) => `${avatarName}.${size.name}`)] as const;
let avatarBytes: Buffer | undefined;

/** The site's icon: a step mark in the pages' accent colour (every page links it). */
export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">\
<rect width="32" height="32" rx="6" fill="#0b5cad"/><path d="M7 24h6v-6h6v-6h6" fill="none" stroke="#fff" \
stroke-width="3" stroke-linejoin="round" stroke-linecap="round"/></svg>`;

export const pagesGroup = defineGroup({
  name: 'pages',
  // Errors of page routes (a form without its CSRF token, a page that names nothing) as pages.
  pageError,
  // The pages read what the API's GETs read; sessions write: login mints tokens, logout deletes
  // them, reset links are mailed. Media: `igi/` (images, and the PDF's; videos' and documents'
  // public copies, made from their originals on first use: decision 312), and oversized PDFs in `pdf/`.
  // The search page and suggestions read the search index as GET /search does (decision 298).
  access: {
    table: 'readwrite',
    // The player's commits complete course stages (shared/training/progress.ts), as the modules group's do.
    conditionChecks: true,
    modulesBucket: { read: [SEARCH_INDEX_PREFIX] },
    sendMail: true,
    // The player page's content URLs and its runtime's commit capability are sealed with it (decision 346).
    contentSigningKey: true,
    // headMissing: a kept PDF is looked up by HEAD first (decision 255); a missing one must be 404, not 403.
    mediaBucket: {
      read: [MEDIA_DERIVED_PREFIX, MEDIA_ORIGINALS_PREFIX, MEDIA_PDF_PREFIX],
      write: [MEDIA_PDF_PREFIX, MEDIA_DERIVED_PREFIX],
      headMissing: true,
    },
  },
  // pdfkit reads its data files, and the PDF's font is a file: both installed beside the bundle,
  // with sharp for the rare image a PDF cannot hold as it is (functions/pages/pdf).
  nodeModules: ['sharp', 'pdfkit', 'dejavu-fonts-ttf'],
  // The editors' script and stylesheet (functions/pages/client, decision 294); scorm-again's browser
  // file, served to the module player's runtime host (player.routes.ts).
  embeds: ['pageClient', 'scormRuntime'],
  // A long guide's PDF reads and embeds every step image: more memory (and so CPU) than a page,
  // and up to the API's 29 s rather than the default 10 s.
  memoryMb: 1024,
  timeoutSeconds: 29,
  routes: [
    route({
      method: 'GET',
      path: '/robots.txt',
      site: true,
      auth: 'public',
      openOnPrivateSite: true,
      summary: 'Crawler rules: nothing on a private site, everything but the API on a public one',
      handler: async () =>
        rawReply(200, robotsTxt(config().STEPWISE_PRIVATE_SITE), 'text/plain; charset=utf-8', {
          'cache-control': 'public, max-age=3600',
        }),
    }),
    route({
      method: 'GET',
      path: '/Category/{title}',
      site: true,
      auth: 'public',
      // Echoes the title it was given and nothing else: a private site keeps the page itself closed.
      openOnPrivateSite: true,
      plusAsSpace: true,
      status: 301,
      summary: "A category's former address: 301 to its Dozuki-form url /c/<name> (decision 192)",
      params: z.object({ title: z.string().check(z.minLength(1), z.maxLength(512)) }),
      handler: async ({ params }) =>
        reply(301, undefined, {
          location: wikiUrl(siteUrl(), { namespace: 'CATEGORY', title: params.title.replace(/_/g, ' ') }),
          'cache-control': 'public, max-age=86400',
        }),
    }),
    route({
      method: 'GET',
      path: '/assets/{asset}',
      site: true,
      auth: 'public',
      // The apps load avatars without the API token; the picture is the same on every site.
      openOnPrivateSite: true,
      summary: 'The default avatar users without one show (one 200×200 PNG for every size; decision 195)',
      params: z.object({ asset: z.enum(avatarAssets) }),
      handler: async () => {
        avatarBytes ??= Buffer.from(DEFAULT_AVATAR_PNG_BASE64, 'base64');
        return rawReply(200, avatarBytes, 'image/png', { 'cache-control': 'public, max-age=86400' });
      },
    }),
    route({
      method: 'GET',
      path: '/favicon.svg',
      site: true,
      auth: 'public',
      openOnPrivateSite: true,
      summary: "The site's icon (SVG), linked from every page",
      handler: async () => rawReply(200, FAVICON_SVG, 'image/svg+xml', { 'cache-control': 'public, max-age=86400' }),
    }),
    route({
      method: 'GET',
      path: '/favicon.ico',
      site: true,
      auth: 'public',
      openOnPrivateSite: true,
      status: 301,
      summary: 'Where browsers look for an icon by default: 301 to /favicon.svg',
      handler: async () =>
        reply(301, undefined, { location: '/favicon.svg', 'cache-control': 'public, max-age=86400' }),
    }),
    imageFileRoute,
    clientFileRoute,
    mediaFileRoute,
    ...sessionRoutes,
    ...contentRoutes,
    ...editorRoutes,
    ...playerRoutes,
    ...searchRoutes,
    ...homeRoutes,
  ],
});
