/**
 * SCIM 2.0 provisioning at <site>/scim/v2 (issue 28 §2; docs/identity.md): Users (accounts) and
 * Groups (teams) for Okta's and Entra ID's provisioning, with discovery. Site routes, out of
 * the OpenAPI document; only a site API token with the `scim` scope reaches them (decision 227);
 * every error is an RFC 7644 error in application/scim+json.
 */
import * as z from 'zod/mini';
import { defineGroup, route } from '../../shared/http/route.ts';
import { parseScimFilter, ScimFilterError, type ScimFilter } from '../../shared/domain/scim-filter.ts';
import { type ListQuery, resourceReply, scimErrorReply, ScimError, scimReply } from './scim-protocol.ts';
import { listOf, resourceType, resourceTypes, schema, schemas, serviceProviderConfig } from './scim-discovery.ts';
import { attributeList, projectResource } from './scim-resource.ts';
import { GROUP_RESOURCE, type ResourceSchemas, USER_RESOURCE } from './scim-schema.ts';
import * as users from './scim-users.service.ts';
import * as groups from './scim-groups.service.ts';

const SCIM = { site: true, auth: 'user', apiScope: 'scim' } as const;
const idParams = z.object({ id: z.string().check(z.minLength(1), z.maxLength(64)) });
const schemaParams = z.object({ id: z.string().check(z.minLength(1), z.maxLength(200)) });
/** RFC 7644 §3.9: any answer holding resources takes attributes or excludedAttributes. */
const projectionQuery = z.object({
  excludedAttributes: z.optional(z.string()),
  attributes: z.optional(z.string()),
});
const USER_PROJECTION = { attributes: 'userName,name.givenName,emails' };
const GROUP_PROJECTION = { excludedAttributes: 'members' };
const listQuery = z.object({
  filter: z.optional(z.string()),
  startIndex: z.optional(z.string()),
  count: z.optional(z.string()),
  excludedAttributes: z.optional(z.string()),
  attributes: z.optional(z.string()),
});
/** A SearchRequest (RFC 7644 §3.4.3): the query of a GET, as a body. */
const searchBody = z.looseObject({
  filter: z.optional(z.string().check(z.maxLength(1000))),
  startIndex: z.optional(z.number()),
  count: z.optional(z.number()),
  attributes: z.optional(z.array(z.string()).check(z.maxLength(100))),
  excludedAttributes: z.optional(z.array(z.string()).check(z.maxLength(100))),
});
const SEARCH_REQUEST = 'urn:ietf:params:scim:api:messages:2.0:SearchRequest';

interface Projection {
  attributes?: string | string[];
  excludedAttributes?: string | string[];
}

/** The request's projection of one resource. */
function shown(schemas: ResourceSchemas, projection: Projection) {
  const attributes = attributeList(projection.attributes);
  const excluded = attributeList(projection.excludedAttributes);
  return (resource: Record<string, unknown>) => projectResource(resource, schemas, attributes, excluded);
}

/** A ListResponse with each resource projected as asked (versions are of the whole resources). */
function shownList(
  list: { Resources: Record<string, unknown>[] } & Record<string, unknown>,
  schemas: ResourceSchemas,
  projection: Projection,
) {
  return { ...list, Resources: list.Resources.map(shown(schemas, projection)) };
}

function searchQuery(body: z.infer<typeof searchBody>): ListQuery {
  return {
    ...(body.startIndex === undefined ? {} : { startIndex: String(body.startIndex) }),
    ...(body.count === undefined ? {} : { count: String(body.count) }),
  };
}
/** SCIM bodies are read by the services, attribute by attribute, in the forms IdPs send. */
const scimBody = z.looseObject({});

function filterOf(text: string | undefined): ScimFilter | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  try {
    return parseScimFilter(text);
  } catch (error) {
    if (error instanceof ScimFilterError) throw new ScimError(400, error.message, 'invalidFilter');
    throw error;
  }
}

export const scimGroup = defineGroup({
  name: 'scim',
  access: { table: 'readwrite' },
  routeError: scimErrorReply,
  routes: [
    route({
      ...SCIM,
      method: 'GET',
      path: '/scim/v2/ServiceProviderConfig',
      summary: 'SCIM: what this service provider supports',
      handler: async () => scimReply(200, serviceProviderConfig()),
    }),
    route({
      ...SCIM,
      method: 'GET',
      path: '/scim/v2/Schemas',
      summary: 'SCIM: the User, Group and enterprise User schemas',
      handler: async () => scimReply(200, listOf(schemas())),
    }),
    route({
      ...SCIM,
      method: 'GET',
      path: '/scim/v2/Schemas/{id}',
      summary: 'SCIM: one schema by its URN',
      params: schemaParams,
      handler: async ({ params }) => scimReply(200, schema(params.id)),
    }),
    route({
      ...SCIM,
      method: 'GET',
      path: '/scim/v2/ResourceTypes',
      summary: 'SCIM: the resource types (User, Group)',
      handler: async () => scimReply(200, listOf(resourceTypes())),
    }),
    route({
      ...SCIM,
      method: 'GET',
      path: '/scim/v2/ResourceTypes/{id}',
      summary: 'SCIM: one resource type (User or Group)',
      params: schemaParams,
      handler: async ({ params }) => scimReply(200, resourceType(params.id)),
    }),
    route({
      ...SCIM,
      method: 'GET',
      path: '/scim/v2/Users',
      summary: 'SCIM: Users, filtered (userName, emails, externalId; eq co sw and or), startIndex/count',
      query: listQuery,
      queryExample: { filter: 'userName eq "dana.fisher@example.com"', startIndex: '1', count: '100' },
      handler: async ({ query }) =>
        scimReply(200, shownList(await users.listUsers(filterOf(query.filter), query), USER_RESOURCE, query)),
    }),
    route({
      ...SCIM,
      method: 'POST',
      path: '/scim/v2/Users/.search',
      summary: 'SCIM: Users found by a SearchRequest body (filter, startIndex, count, attributes)',
      body: searchBody,
      example: { schemas: [SEARCH_REQUEST], filter: 'userName eq "dana.fisher@example.com"', startIndex: 1, count: 10 },
      handler: async ({ body }) =>
        scimReply(200, shownList(await users.listUsers(filterOf(body.filter), searchQuery(body)), USER_RESOURCE, body)),
    }),
    route({
      ...SCIM,
      method: 'POST',
      path: '/scim/v2/Users',
      status: 201,
      summary: 'SCIM: provision a User (an account without a password: the IdP signs it in)',
      body: scimBody,
      example: { schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: 'jane@example.com', active: true },
      query: projectionQuery,
      queryExample: USER_PROJECTION,
      handler: async ({ caller, body, query }) =>
        resourceReply(201, await users.createUser(caller, body), shown(USER_RESOURCE, query)),
    }),
    route({
      ...SCIM,
      method: 'GET',
      path: '/scim/v2/Users/{id}',
      summary: 'SCIM: one User',
      params: idParams,
      query: projectionQuery,
      queryExample: USER_PROJECTION,
      handler: async ({ params, query }) =>
        resourceReply(200, await users.getUserResource(params.id), shown(USER_RESOURCE, query)),
    }),
    route({
      ...SCIM,
      method: 'PUT',
      path: '/scim/v2/Users/{id}',
      summary: 'SCIM: replace a User (If-Match honoured: 412 on another version)',
      params: idParams,
      body: scimBody,
      example: { schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: 'jane@example.com', active: true },
      query: projectionQuery,
      queryExample: USER_PROJECTION,
      handler: async ({ caller, params, body, headers, query }) =>
        resourceReply(
          200,
          await users.replaceUserResource(caller, params.id, body, headers['if-match']),
          shown(USER_RESOURCE, query),
        ),
    }),
    route({
      ...SCIM,
      method: 'PATCH',
      path: '/scim/v2/Users/{id}',
      summary: 'SCIM: change a User (PatchOp add/replace/remove); active false disables the account',
      params: idParams,
      body: scimBody,
      example: {
        schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
        Operations: [{ op: 'replace', value: { active: false } }],
      },
      query: projectionQuery,
      queryExample: USER_PROJECTION,
      handler: async ({ caller, params, body, headers, query }) =>
        resourceReply(
          200,
          await users.patchUser(caller, params.id, body, headers['if-match']),
          shown(USER_RESOURCE, query),
        ),
    }),
    route({
      ...SCIM,
      method: 'DELETE',
      path: '/scim/v2/Users/{id}',
      status: 204,
      summary: 'SCIM: deprovision a User: the account is disabled (its records stay), its sessions end',
      params: idParams,
      handler: async ({ caller, params, headers }) => {
        await users.deleteUser(caller, params.id, headers['if-match']);
      },
    }),
    route({
      ...SCIM,
      method: 'GET',
      path: '/scim/v2/Groups',
      summary: 'SCIM: Groups (teams), filtered by displayName, startIndex/count',
      query: listQuery,
      queryExample: { filter: 'displayName eq "Line 3"', excludedAttributes: 'members' },
      handler: async ({ query }) =>
        scimReply(200, shownList(await groups.listGroups(filterOf(query.filter), query), GROUP_RESOURCE, query)),
    }),
    route({
      ...SCIM,
      method: 'POST',
      path: '/scim/v2/Groups/.search',
      summary: 'SCIM: Groups found by a SearchRequest body (filter, startIndex, count, excludedAttributes)',
      body: searchBody,
      example: { schemas: [SEARCH_REQUEST], filter: 'displayName eq "Line 3"', excludedAttributes: ['members'] },
      handler: async ({ body }) =>
        scimReply(
          200,
          shownList(await groups.listGroups(filterOf(body.filter), searchQuery(body)), GROUP_RESOURCE, body),
        ),
    }),
    route({
      ...SCIM,
      method: 'POST',
      path: '/scim/v2/Groups',
      status: 201,
      summary: 'SCIM: create a Group (a private team without an owner) with its members',
      body: scimBody,
      example: { schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'], displayName: 'Line 3', members: [] },
      query: projectionQuery,
      queryExample: GROUP_PROJECTION,
      handler: async ({ body, query }) =>
        resourceReply(201, await groups.createGroup(body), shown(GROUP_RESOURCE, query)),
    }),
    route({
      ...SCIM,
      method: 'GET',
      path: '/scim/v2/Groups/{id}',
      summary: 'SCIM: one Group with its members',
      params: idParams,
      query: projectionQuery,
      queryExample: GROUP_PROJECTION,
      handler: async ({ params, query }) =>
        resourceReply(200, await groups.getGroupResource(params.id), shown(GROUP_RESOURCE, query)),
    }),
    route({
      ...SCIM,
      method: 'PUT',
      path: '/scim/v2/Groups/{id}',
      summary: "SCIM: replace a Group's name and members",
      params: idParams,
      body: scimBody,
      example: { schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'], displayName: 'Line 3', members: [] },
      query: projectionQuery,
      queryExample: GROUP_PROJECTION,
      handler: async ({ params, body, headers, query }) =>
        resourceReply(
          200,
          await groups.replaceGroup(params.id, body, headers['if-match']),
          shown(GROUP_RESOURCE, query),
        ),
    }),
    route({
      ...SCIM,
      method: 'PATCH',
      path: '/scim/v2/Groups/{id}',
      summary: "SCIM: rename, add, remove or replace members (Okta's and Entra ID's forms)",
      params: idParams,
      body: scimBody,
      example: {
        schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
        Operations: [{ op: 'add', path: 'members', value: [{ value: '1' }] }],
      },
      query: projectionQuery,
      queryExample: GROUP_PROJECTION,
      handler: async ({ params, body, headers, query }) =>
        resourceReply(200, await groups.patchGroup(params.id, body, headers['if-match']), shown(GROUP_RESOURCE, query)),
    }),
    route({
      ...SCIM,
      method: 'DELETE',
      path: '/scim/v2/Groups/{id}',
      status: 204,
      summary: 'SCIM: remove a Group: the team goes, its members leave it and keep their records',
      params: idParams,
      handler: async ({ params, headers }) => {
        await groups.deleteGroup(params.id, headers['if-match']);
      },
    }),
  ],
});
