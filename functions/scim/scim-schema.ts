/**
 * The SCIM schemas this service provider keeps (RFC 7643 §4, §8.7.1), declared once: `/Schemas`
 * shows them, PATCH resolves its paths against them (an attribute they do not declare is 400
 * invalidPath), and writes and reads check a resource's values by them (decision 284).
 */
import { SCHEMA } from './scim-protocol.ts';

export type AttributeType = 'string' | 'boolean' | 'complex' | 'reference' | 'dateTime' | 'integer';
export type Mutability = 'readOnly' | 'readWrite' | 'immutable' | 'writeOnly';

export interface AttributeDef {
  name: string;
  type: AttributeType;
  multiValued: boolean;
  description: string;
  required: boolean;
  caseExact: boolean;
  mutability: Mutability;
  returned: 'always' | 'never' | 'default' | 'request';
  uniqueness: 'none' | 'server' | 'global';
  subAttributes?: AttributeDef[];
  referenceTypes?: string[];
  canonicalValues?: string[];
}

export interface SchemaDef {
  id: string;
  name: string;
  description: string;
  attributes: AttributeDef[];
}

type Extra = Partial<Omit<AttributeDef, 'name' | 'type' | 'description'>>;

const attribute = (name: string, type: AttributeType, description: string, extra: Extra = {}): AttributeDef => ({
  name,
  type,
  multiValued: false,
  description,
  required: false,
  caseExact: false,
  mutability: 'readWrite',
  returned: 'default',
  uniqueness: 'none',
  ...extra,
});

/** The sub-attributes of a multi-valued attribute (emails, phoneNumbers, ...), RFC 7643 §2.4. */
function multiValue(name: string, description: string, types: string[], extra: AttributeDef[] = []): AttributeDef {
  return attribute(name, 'complex', description, {
    multiValued: true,
    subAttributes: [
      attribute('value', 'string', `The ${name} value`),
      attribute('display', 'string', 'A human-readable name'),
      attribute('type', 'string', 'A label for the function of the value', { canonicalValues: types }),
      attribute('primary', 'boolean', 'The primary value; at most one is true'),
      ...extra,
    ],
  });
}

/** The Users and Groups a member or group names: value, $ref, display, type. */
function reference(name: string, description: string, to: string[], mutability: Mutability): AttributeDef {
  return attribute(name, 'complex', description, {
    multiValued: true,
    mutability,
    subAttributes: [
      attribute('value', 'string', 'The id of the resource', {
        mutability: mutability === 'readOnly' ? 'readOnly' : 'immutable',
      }),
      attribute('$ref', 'reference', 'The URI of the resource', {
        mutability: mutability === 'readOnly' ? 'readOnly' : 'immutable',
        referenceTypes: to,
      }),
      attribute('display', 'string', 'The name of the resource', { mutability: 'readOnly' }),
      attribute('type', 'string', 'What the resource is', {
        canonicalValues: to,
        mutability: mutability === 'readOnly' ? 'readOnly' : 'immutable',
      }),
    ],
  });
}

const externalId = attribute('externalId', 'string', "The identity provider's own id", { caseExact: true });

export const USER_SCHEMA: SchemaDef = {
  id: SCHEMA.user,
  name: 'User',
  description: 'A Stepwise account. userName is kept as sent; the account email is the primary of emails',
  attributes: [
    attribute('userName', 'string', 'The unique name the identity provider gives the user, as sent', {
      required: true,
      uniqueness: 'server',
    }),
    externalId,
    attribute('name', 'complex', "The parts of the user's name", {
      subAttributes: [
        attribute('formatted', 'string', 'The full name'),
        attribute('familyName', 'string', 'The family name'),
        attribute('givenName', 'string', 'The given name'),
        attribute('middleName', 'string', 'The middle name'),
        attribute('honorificPrefix', 'string', 'Ms., Dr. ...'),
        attribute('honorificSuffix', 'string', 'III, Jr. ...'),
      ],
    }),
    attribute('displayName', 'string', 'The name shown for the account (its username)'),
    attribute('nickName', 'string', 'A casual name'),
    attribute('profileUrl', 'reference', 'A page about the user', { referenceTypes: ['external'] }),
    attribute('title', 'string', 'The job title'),
    attribute('userType', 'string', 'Employee, Contractor ...'),
    attribute('preferredLanguage', 'string', 'The preferred language (RFC 7231 Accept-Language)'),
    attribute('locale', 'string', 'The locale, e.g. en-US'),
    attribute('timezone', 'string', 'The IANA time zone'),
    attribute('active', 'boolean', 'false: the account is disabled, signs in no more, its sessions end'),
    multiValue('emails', 'Email addresses; the primary (else work, else first) is the account email', [
      'work',
      'home',
      'other',
    ]),
    multiValue('phoneNumbers', 'Phone numbers', ['work', 'home', 'mobile', 'fax', 'pager', 'other']),
    multiValue('ims', 'Instant messaging addresses', ['aim', 'gtalk', 'icq', 'xmpp', 'msn', 'skype', 'qq', 'yahoo']),
    multiValue('photos', 'Photo URLs', ['photo', 'thumbnail']),
    attribute('addresses', 'complex', 'Physical addresses', {
      multiValued: true,
      subAttributes: [
        attribute('formatted', 'string', 'The full address'),
        attribute('streetAddress', 'string', 'The street'),
        attribute('locality', 'string', 'The city'),
        attribute('region', 'string', 'The state or region'),
        attribute('postalCode', 'string', 'The postal code'),
        attribute('country', 'string', 'The ISO 3166-1 alpha-2 country code'),
        attribute('type', 'string', 'work, home, other', { canonicalValues: ['work', 'home', 'other'] }),
        attribute('primary', 'boolean', 'The primary address'),
      ],
    }),
    reference('groups', 'The Groups (teams) the user is a member of', ['Group'], 'readOnly'),
    multiValue('entitlements', 'Entitlements', []),
    multiValue('roles', 'Roles the identity provider assigns (kept; Stepwise roles are set by Admins)', []),
  ],
};

export const ENTERPRISE_USER_SCHEMA: SchemaDef = {
  id: SCHEMA.enterpriseUser,
  name: 'EnterpriseUser',
  description: 'Enterprise User; employeeNumber is the account employee_id',
  attributes: [
    attribute('employeeNumber', 'string', 'The account employee_id', { uniqueness: 'server' }),
    attribute('costCenter', 'string', 'The cost center'),
    attribute('organization', 'string', 'The organization'),
    attribute('division', 'string', 'The division'),
    attribute('department', 'string', 'The department'),
    attribute('manager', 'complex', "The user's manager", {
      subAttributes: [
        attribute('value', 'string', 'The id of the manager'),
        attribute('$ref', 'reference', 'The URI of the manager', { referenceTypes: ['User'] }),
        attribute('displayName', 'string', "The manager's name", { mutability: 'readOnly' }),
      ],
    }),
  ],
};

export const GROUP_SCHEMA: SchemaDef = {
  id: SCHEMA.group,
  name: 'Group',
  description: 'A Stepwise team',
  attributes: [
    attribute('displayName', 'string', 'The team name, unique case aside', { required: true, uniqueness: 'server' }),
    externalId,
    reference('members', 'The users in the team', ['User'], 'readWrite'),
  ],
};

export const ALL_SCHEMAS: SchemaDef[] = [USER_SCHEMA, GROUP_SCHEMA, ENTERPRISE_USER_SCHEMA];

/** A resource type's core schema and extensions, as PATCH paths and projections read them. */
export interface ResourceSchemas {
  core: SchemaDef;
  extensions: SchemaDef[];
}

export const USER_RESOURCE: ResourceSchemas = { core: USER_SCHEMA, extensions: [ENTERPRISE_USER_SCHEMA] };
export const GROUP_RESOURCE: ResourceSchemas = { core: GROUP_SCHEMA, extensions: [] };

export function findAttribute(attributes: AttributeDef[] | undefined, name: string): AttributeDef | undefined {
  const wanted = name.toLowerCase();
  return attributes?.find((candidate) => candidate.name.toLowerCase() === wanted);
}
