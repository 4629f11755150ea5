/**
 * The API about itself: the OpenAPI document, a readable page (/api/2.0/doc), and whether this
 * deployment answers (/api/2.0/health; here rather than in a group of its own, decision 180).
 */
import { defineGroup, rawReply, reply, route } from '../../shared/http/route.ts';
import { embeddedOpenApi } from '../../shared/http/embedded.ts';
import { openApiDocumentSchema } from '../../shared/http/openapi.ts';
import { healthSchema } from '../../shared/views/health-views.ts';
import { renderDocsPage } from './docs-page.ts';
import { health } from './health.service.ts';

let page: string | undefined;

export const docsGroup = defineGroup({
  name: 'docs',
  // The health checks only: a GetItem of one fixed key, and a HeadBucket (s3:ListBucket) of each bucket.
  access: {
    table: ['GetItem'],
    mediaBucket: { headMissing: true },
    modulesBucket: { headMissing: true },
  },
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
    route({
      method: 'GET',
      path: '/health',
      auth: 'public',
      openOnPrivateSite: true,
      summary: 'Whether this deployment answers: its version, and whether the table and the buckets answer',
      description:
        '200 when every check answers, 503 (same body) otherwise. Beyond the spec; open on private sites, ' +
        'so it carries no resource names, counts or errors. A CloudWatch Synthetics canary calls it on AWS. ' +
        'Example: `{"status": "ok", "version": "0.2.0", "checks": {"table": "ok", "media_bucket": "ok", ' +
        '"modules_bucket": "ok"}}`.',
      response: healthSchema,
      handler: async () => {
        const answer = await health();
        return answer.status === 'ok' ? answer : reply(503, answer);
      },
    }),
  ],
});
