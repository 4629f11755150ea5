/**
 * Paths of the site outside /api/2.0 (decision 187): what a browser or a crawler asks the site
 * root for. The pages people open from the API's `url`s will live here too.
 */
import { config } from '../../shared/config.ts';
import { defineGroup, rawReply, route } from '../../shared/http/route.ts';

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
  ],
});
