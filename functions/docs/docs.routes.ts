/**
 * The API about itself: the OpenAPI document, the interactive reference at /api/2.0/doc (the
 * Scalar renderer, served from the bundle: decision 176), a static page for browsers without
 * JavaScript, whether this deployment answers (/api/2.0/health; here rather than in a group
 * of its own, decision 180), and the site's own description for clients without a token
 * (/sites/info, decision 191).
 */
import { defineGroup, rawReply, reply, route } from '../../shared/http/route.ts';
import { embeddedDocsRenderer, embeddedOpenApi, embeddedScript } from '../../shared/http/embedded.ts';
import { openApiDocumentSchema } from '../../shared/http/openapi.ts';
import { healthSchema } from '../../shared/views/health-views.ts';
import { renderDocsPage } from './docs-page.ts';
import { health } from './health.service.ts';
import { siteInfo } from './site-info.service.ts';
import { siteInfoSchema } from '../../shared/views/site-views.ts';
import { type ReferencePage, renderReferencePage } from './reference-page.ts';

let staticPage: string | undefined;
let referencePage: ReferencePage | undefined;
/** The renderer's script: 4.3 MB plain, about 1.2 MB gzipped (under Lambda's 6 MB answer either way). */
const rendererScript = embeddedScript(embeddedDocsRenderer);

/**
 * The site's description, open on every site: a client needs the sign-in method before it has
 * a token. Three paths, as the clients call it: /sites/info (Android), /info (iOS), /site (the reference).
 */
const siteInfoRoute = {
  auth: 'public',
  openOnPrivateSite: true,
  summary: "The site's name, sign-in methods and guide types (what a client needs before signing in)",
  description:
    'Open on private sites too: it holds only what the sign-in screen shows. The shape the Dozuki mobile ' +
    'apps parse: authentication.sso appears only on a site that signs in through an identity provider.',
  response: siteInfoSchema,
  handler: async () => siteInfo(),
} as const;

export const docsGroup = defineGroup({
  name: 'docs',
  // The health checks only: a GetItem of one fixed key, and a HeadBucket (s3:ListBucket) of each bucket.
  access: {
    table: ['GetItem'],
    mediaBucket: { headMissing: true },
    modulesBucket: { headMissing: true },
  },
  embeds: ['openApi', 'docsRenderer'],
  routes: [
    route({
      method: 'GET',
      path: '/sites/info',
      ...siteInfoRoute,
    }),
    route({
      method: 'GET',
      path: '/info',
      ...siteInfoRoute,
    }),
    route({
      method: 'GET',
      path: '/site',
      ...siteInfoRoute,
    }),
    route({
      method: 'GET',
      path: '/openapi.json',
      auth: 'public',
      openOnPrivateSite: true,
      summary: 'The OpenAPI 3.1 document of this API',
      response: openApiDocumentSchema,
      handler: async () => embeddedOpenApi(),
    }),
    route({
      method: 'GET',
      path: '/doc',
      auth: 'public',
      openOnPrivateSite: true,
      summary: 'Interactive API reference (HTML; needs JavaScript, else see /doc/static)',
      handler: async () => {
        referencePage ??= renderReferencePage(embeddedOpenApi());
        return rawReply(200, referencePage.html, 'text/html; charset=utf-8', {
          'content-security-policy': referencePage.contentSecurityPolicy,
        });
      },
    }),
    route({
      method: 'GET',
      path: '/doc/static',
      auth: 'public',
      openOnPrivateSite: true,
      summary: 'Static API reference (HTML, no scripts)',
      handler: async () => {
        staticPage ??= renderDocsPage(embeddedOpenApi());
        return rawReply(200, staticPage, 'text/html; charset=utf-8', {
          'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
        });
      },
    }),
    route({
      method: 'GET',
      path: '/doc/renderer.js',
      auth: 'public',
      openOnPrivateSite: true,
      summary: "The reference page's renderer (Scalar API Reference, from its npm package)",
      handler: async ({ headers }) => rendererScript(headers['accept-encoding']),
    }),
    route({
      method: 'GET',
      path: '/health',
      auth: 'public',
      openOnPrivateSite: true,
      summary: 'Whether this deployment answers: its version, and whether the table and the buckets answer',
      description:
        '200 when every check answers, 503 (same body) otherwise. Beyond the spec; open on private sites, ' +
        'so it carries no resource names, counts or errors. A CloudWatch Synthetics canary calls it on AWS.',
      response: healthSchema,
      handler: async () => {
        const answer = await health();
        return answer.status === 'ok' ? answer : reply(503, answer);
      },
    }),
  ],
});
