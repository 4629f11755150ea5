/**
 * Paths of the site outside /api/2.0 (decision 187): what a browser or a crawler asks the site
 * root for. The pages people open from the API's `url`s will live here too.
 */
import * as z from 'zod/mini';
import { config, siteUrl } from '../../shared/config.ts';
import { defineGroup, rawReply, reply, route } from '../../shared/http/route.ts';
import { wikiUrl } from '../../shared/views/wiki-views.ts';

/** A private site keeps every crawler out; a public one lets them read pages, not the API. */
export function robotsTxt(privateSite: boolean): string {
  return privateSite ? 'User-agent: *\nDisallow: /\n' : 'User-agent: *\nDisallow: /api/\n';
}

export const pagesGroup = defineGroup({
  name: 'pages',
  access: { table: 'none' },
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
  ],
});
