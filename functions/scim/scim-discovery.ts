/** SCIM discovery (RFC 7644 §4): what this service provider supports, for the IdP to read. */
import { MAX_RESULTS, SCHEMA, ScimError, scimBase } from './scim-protocol.ts';
import { ALL_SCHEMAS } from './scim-schema.ts';

export function serviceProviderConfig() {
  return {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
    documentationUri: `${scimBase().replace(/\/scim\/v2$/, '')}/api/2.0/doc`,
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: MAX_RESULTS },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: true },
    authenticationSchemes: [
      {
        type: 'oauthbearertoken',
        name: 'Site API token',
        description: 'Authorization: Bearer <token> with a site API token holding the scim scope',
        primary: true,
      },
    ],
    meta: { resourceType: 'ServiceProviderConfig', location: `${scimBase()}/ServiceProviderConfig` },
  };
}

export function schemas() {
  return ALL_SCHEMAS.map((schema) => ({
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:Schema'],
    ...schema,
    meta: { resourceType: 'Schema', location: `${scimBase()}/Schemas/${schema.id}` },
  }));
}

export function resourceTypes() {
  return [
    {
      id: 'User',
      name: 'User',
      endpoint: '/Users',
      schema: SCHEMA.user,
      schemaExtensions: [{ schema: SCHEMA.enterpriseUser, required: false }],
    },
    { id: 'Group', name: 'Group', endpoint: '/Groups', schema: SCHEMA.group },
  ].map((type) => ({
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'],
    ...type,
    meta: { resourceType: 'ResourceType', location: `${scimBase()}/ResourceTypes/${type.id}` },
  }));
}

/** GET /Schemas/{id}: one schema by its URN (case aside); 404 otherwise. */
export function schema(id: string) {
  const found = schemas().find((candidate) => candidate.id.toLowerCase() === id.toLowerCase());
  if (!found) throw new ScimError(404, `No schema ${id}`);
  return found;
}

/** GET /ResourceTypes/{id}: User or Group; 404 otherwise. */
export function resourceType(id: string) {
  const found = resourceTypes().find((candidate) => candidate.id.toLowerCase() === id.toLowerCase());
  if (!found) throw new ScimError(404, `No resource type ${id}`);
  return found;
}

export function listOf(resources: unknown[]) {
  return {
    schemas: [SCHEMA.list],
    totalResults: resources.length,
    startIndex: 1,
    itemsPerPage: resources.length,
    Resources: resources,
  };
}
