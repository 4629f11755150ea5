/**
 * Site API tokens (Dozuki's "API settings" tokens; decision 227): Admin-only, and only an Admin
 * signed in as themselves (a token cannot manage tokens). docs/identity.md.
 */
import * as z from 'zod/mini';
import { defineGroup, route } from '../../shared/http/route.ts';
import { apiTokenSchema, createdApiTokenSchema } from '../../shared/views/api-token-views.ts';
import { apiTokenParams, createApiTokenBody } from './api-tokens.schemas.ts';
import * as apiTokens from './api-tokens.service.ts';

const BEYOND_SPEC = { 'x-beyond-spec': true };

export const apiTokensGroup = defineGroup({
  name: 'api-tokens',
  access: { table: 'readwrite' },
  routes: [
    route({
      method: 'POST',
      path: '/admin/api_tokens',
      auth: 'admin',
      status: 201,
      summary: 'Create a site API token {name, scopes}; the answer carries the token, the only time it is shown',
      description:
        'Scopes: `read-only` (GET and HEAD of the API), `full` (the API as an Admin), `scim` (/scim/v2), ' +
        '`external-courses` (/courses/external/...). The token is sent as `Authorization: api <token>` or ' +
        '`Authorization: Bearer <token>` and acts as the site, not as a user. It works until revoked.',
      body: createApiTokenBody,
      response: createdApiTokenSchema,
      example: { name: 'Okta provisioning', scopes: ['scim'] },
      extensions: BEYOND_SPEC,
      mintsCredentials: true,
      handler: ({ auth, body }) => apiTokens.create(auth, body),
    }),
    route({
      method: 'GET',
      path: '/admin/api_tokens',
      auth: 'admin',
      summary: 'The site API tokens, oldest first: {"api_tokens": [...]} (never the tokens themselves)',
      response: z.object({ api_tokens: z.array(apiTokenSchema) }),
      extensions: BEYOND_SPEC,
      handler: ({ auth }) => apiTokens.list(auth),
    }),
    route({
      method: 'GET',
      path: '/admin/api_tokens/{tokenid}',
      auth: 'admin',
      summary: 'One site API token (without the token), with its last use to the minute',
      params: apiTokenParams,
      response: apiTokenSchema,
      extensions: BEYOND_SPEC,
      handler: ({ auth, params }) => apiTokens.get(auth, params.tokenid),
    }),
    route({
      method: 'DELETE',
      path: '/admin/api_tokens/{tokenid}',
      auth: 'admin',
      status: 204,
      summary: 'Revoke a site API token: it stops working at once',
      params: apiTokenParams,
      extensions: BEYOND_SPEC,
      handler: async ({ auth, params }) => {
        await apiTokens.revoke(auth, params.tokenid);
      },
    }),
  ],
});
