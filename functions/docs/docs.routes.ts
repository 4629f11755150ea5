/** The API's own documentation: the OpenAPI document and a readable page (/api/2.0/doc). */
import { defineGroup, rawReply, route } from '../../shared/http/route.ts';
import { embeddedOpenApi } from '../../shared/http/embedded.ts';
import { openApiDocumentSchema } from '../../shared/http/openapi.ts';
import { renderDocsPage } from './docs-page.ts';

let page: string | undefined;

export const docsGroup = defineGroup({
  name: 'docs',
  access: { table: 'none' },
  embeds: ['openApi'],
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
      summary: 'Readable API documentation (HTML)',
      handler: async () => {
        page ??= renderDocsPage(embeddedOpenApi());
        return rawReply(200, page, 'text/html; charset=utf-8', {
          'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
        });
      },
    }),
  ],
});
