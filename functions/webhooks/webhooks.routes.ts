/**
 * Webhooks (Admin, beyond the spec): where the site's events are POSTed, signed, with retries
 * (docs/events.md). Every route is Admin-only.
 */
import * as z from 'zod/mini';
import { defineGroup, route } from '../../shared/http/route.ts';
import { idParams } from '../../shared/http/schemas.ts';
import { pagination } from '../../shared/http/query.ts';
import { createdWebhookSchema, deliverySchema, pingSchema, webhookSchema } from '../../shared/views/webhook-views.ts';
import { createWebhookBody, updateWebhookBody } from './webhooks.schemas.ts';
import * as webhooks from './webhooks.service.ts';

const params = idParams('webhookid');
const BEYOND_SPEC = { 'x-beyond-spec': true };

export const webhooksGroup = defineGroup({
  name: 'webhooks',
  access: { table: 'readwrite' },
  routes: [
    route({
      method: 'POST',
      path: '/webhooks',
      mintsCredentials: true,
      auth: 'admin',
      status: 201,
      summary:
        'Register a webhook: {url, events: [names or "*"], secret?}; the answer carries the signing secret, ' +
        'the only time it is shown',
      description:
        'The URL must be http(s) and pass the SSRF rules of module imports (422 `url_not_allowed`); unknown ' +
        'event names are 422 `unknown_event`. Without a secret one is generated.',
      body: createWebhookBody,
      response: createdWebhookSchema,
      example: { url: 'https://hooks.example.com/stepwise', events: ['course_stage.completed'] },
      extensions: BEYOND_SPEC,
      handler: ({ caller, body }) => webhooks.create(caller, body),
    }),
    route({
      method: 'GET',
      path: '/webhooks',
      auth: 'admin',
      summary: 'The webhooks, oldest first: {"webhooks": [...]} (never their secrets)',
      query: z.object(pagination),
      response: z.object({ webhooks: z.array(webhookSchema) }),
      extensions: BEYOND_SPEC,
      handler: ({ query }) => webhooks.list(query),
    }),
    route({
      method: 'GET',
      path: '/webhooks/{webhookid}',
      auth: 'admin',
      summary: 'One webhook (without its secret)',
      params,
      response: webhookSchema,
      extensions: BEYOND_SPEC,
      handler: ({ params }) => webhooks.get(params.webhookid),
    }),
    route({
      method: 'PATCH',
      path: '/webhooks/{webhookid}',
      auth: 'admin',
      summary: "Change a webhook's url, events, active flag or secret",
      params,
      body: updateWebhookBody,
      response: webhookSchema,
      example: { active: false },
      extensions: BEYOND_SPEC,
      handler: ({ params, body }) => webhooks.update(params.webhookid, body),
    }),
    route({
      method: 'DELETE',
      path: '/webhooks/{webhookid}',
      auth: 'admin',
      status: 204,
      summary: 'Remove a webhook (its unfinished deliveries are dropped)',
      params,
      extensions: BEYOND_SPEC,
      handler: async ({ params }) => {
        await webhooks.remove(params.webhookid);
      },
    }),
    route({
      method: 'POST',
      path: '/webhooks/{webhookid}/test',
      auth: 'admin',
      status: 202,
      summary: 'Send a ping event to this webhook (asynchronously): {event, eventid, deliveryid}',
      params,
      response: pingSchema,
      extensions: BEYOND_SPEC,
      handler: ({ params }) => webhooks.ping(params.webhookid),
    }),
    route({
      method: 'GET',
      path: '/webhooks/{webhookid}/deliveries',
      auth: 'admin',
      summary:
        'The webhook\'s deliveries, newest first: {"deliveries": [{deliveryid, event, status, attempts, ' +
        'last_response_code, next_attempt, ...}]}',
      params,
      query: z.object(pagination),
      response: z.object({ deliveries: z.array(deliverySchema) }),
      extensions: BEYOND_SPEC,
      handler: ({ params, query }) => webhooks.deliveries(params.webhookid, query),
    }),
  ],
});
