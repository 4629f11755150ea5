/**
 * The API's own documentation: the OpenAPI document, the interactive reference at /api/2.0/doc
 * (the Scalar renderer, served from the bundle: decision 176) and a static page for browsers
 * without JavaScript.
 */
import { gzipSync } from 'node:zlib';
import { defineGroup, rawReply, route } from '../../shared/http/route.ts';
import { embeddedDocsRenderer, embeddedOpenApi } from '../../shared/http/embedded.ts';
import { openApiDocumentSchema } from '../../shared/http/openapi.ts';
import { renderDocsPage } from './docs-page.ts';
import { type ReferencePage, renderReferencePage } from './reference-page.ts';
import responseExamples from './docs.response-examples.json' with { type: 'json' };

let staticPage: string | undefined;
let referencePage: ReferencePage | undefined;
let renderer: { plain: Buffer; gzipped: Buffer; etag: string } | undefined;

function loadRenderer() {
  if (!renderer) {
    const plain = embeddedDocsRenderer();
    // 4.3 MB plain, about 1.2 MB gzipped: under the 6 MB Lambda response limit either way.
    const gzipped = gzipSync(plain);
    renderer = { plain, gzipped, etag: `"${plain.length.toString(36)}-${gzipped.length.toString(36)}"` };
  }
  return renderer;
}

export const docsGroup = defineGroup({
  name: 'docs',
  responseExamples,
  access: { table: 'none' },
  embeds: ['openApi', 'docsRenderer'],
  routes: [
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
      handler: async ({ headers }) => {
        const { plain, gzipped, etag } = loadRenderer();
        const gzip = /\bgzip\b/.test(headers['accept-encoding'] ?? '');
        return rawReply(200, gzip ? gzipped : plain, 'text/javascript; charset=utf-8', {
          'cache-control': 'public, max-age=86400',
          etag,
          vary: 'accept-encoding',
          ...(gzip ? { 'content-encoding': 'gzip' } : {}),
        });
      },
    }),
  ],
});
