/** SCIM discovery (RFC 7644 §4): what this service provider supports, for the IdP to read. */
import { MAX_RESULTS, SCHEMA, scimBase } from './scim-protocol.ts';

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

const attribute = (name: string, type: string, extra: Record<string, unknown> = {}) => ({
  name,
  type,
  multiValued: false,
  required: false,
  caseExact: false,
  mutability: 'readWrite',
  returned: 'default',
  uniqueness: 'none',
  ...extra,
});

const SCHEMAS = [
  {
    id: SCHEMA.user,
    name: 'User',
    description: 'A Stepwise account: userName is its email (the login)',
    attributes: [
      attribute('userName', 'string', { required: true, uniqueness: 'server' }),
      attribute('externalId', 'string', { caseExact: true, uniqueness: 'server' }),
      attribute('displayName', 'string'),
      attribute('name', 'complex', {
        subAttributes: [
          attribute('formatted', 'string'),
          attribute('givenName', 'string'),
          attribute('familyName', 'string'),
        ],
      }),
      attribute('emails', 'complex', {
        multiValued: true,
        subAttributes: [attribute('value', 'string'), attribute('type', 'string'), attribute('primary', 'boolean')],
      }),
      attribute('active', 'boolean'),
      attribute('groups', 'complex', { multiValued: true, mutability: 'readOnly' }),
    ],
  },
  {
    id: SCHEMA.group,
    name: 'Group',
    description: 'A Stepwise team',
    attributes: [
      attribute('displayName', 'string', { required: true, mutability: 'immutable' }),
      attribute('members', 'complex', {
        multiValued: true,
        subAttributes: [attribute('value', 'string', { mutability: 'immutable' })],
      }),
    ],
  },
  {
    id: SCHEMA.enterpriseUser,
    name: 'EnterpriseUser',
    description: 'employeeNumber is the account employee_id',
    attributes: [attribute('employeeNumber', 'string', { uniqueness: 'server' })],
  },
];

export function schemas() {
  return SCHEMAS.map((schema) => ({
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

export function listOf(resources: unknown[]) {
  return {
    schemas: [SCHEMA.list],
    totalResults: resources.length,
    startIndex: 1,
    itemsPerPage: resources.length,
    Resources: resources,
  };
}
