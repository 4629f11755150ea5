/**
 * The attribute names identity providers send by default for who signed in (decision 285):
 * Microsoft Entra ID and ADFS (the WS-Federation claims URIs), Okta and Google Workspace (the
 * names an Admin types: email, firstName ...), Shibboleth and other InCommon IdPs (the
 * urn:oid forms of eduPerson / inetOrgPerson). An attribute the Admin names in role_claim or
 * team_claim is read by that name first, then by the usual names of group claims. Attributes
 * are data: only their own names are read (no prototype keys).
 */

const CLAIMS = 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims';
const MS_CLAIMS = 'http://schemas.microsoft.com/ws/2008/06/identity/claims';

/** Each claim this site reads, with the attribute names that carry it, most specific first. */
export const SAML_ATTRIBUTE_NAMES = {
  email: [
    'email',
    'mail',
    'emailAddress',
    'Email',
    `${CLAIMS}/emailaddress`,
    'http://schemas.xmlsoap.org/claims/EmailAddress',
    'urn:oid:0.9.2342.19200300.100.1.3',
    'urn:oid:1.2.840.113549.1.9.1',
  ],
  displayName: [
    'displayName',
    'http://schemas.microsoft.com/identity/claims/displayname',
    'urn:oid:2.16.840.1.113730.3.1.241',
    'cn',
    'urn:oid:2.5.4.3',
    'http://schemas.xmlsoap.org/claims/CommonName',
    'name',
    'fullName',
  ],
  givenName: ['givenName', 'firstName', 'given_name', `${CLAIMS}/givenname`, 'urn:oid:2.5.4.42'],
  surname: ['sn', 'surname', 'lastName', 'family_name', `${CLAIMS}/surname`, 'urn:oid:2.5.4.4'],
  groups: [
    'groups',
    'memberOf',
    `${MS_CLAIMS}/groups`,
    'http://schemas.xmlsoap.org/claims/Group',
    'urn:oid:1.3.6.1.4.1.5923.1.5.1.1',
    'urn:oid:1.3.6.1.4.1.5923.1.1.1.7',
  ],
  roles: ['role', 'roles', `${MS_CLAIMS}/role`, 'http://schemas.microsoft.com/identity/claims/role'],
} as const;

const EMAIL_NAME_ID = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';

export function attributeStrings(value: unknown): string[] {
  return Array.isArray(value)
    ? value.filter((item): item is string => typeof item === 'string')
    : typeof value === 'string'
      ? [value]
      : [];
}

/** The values of the first of `names` the assertion carries (its own attributes only). */
function firstOf(attributes: Record<string, unknown>, names: readonly string[]): string[] {
  for (const name of names) {
    if (!Object.hasOwn(attributes, name)) continue;
    const values = attributeStrings(attributes[name]).filter((value) => value.trim() !== '');
    if (values.length > 0) return values;
  }
  return [];
}

export interface SamlClaims {
  email: string | undefined;
  name: string | undefined;
}

/**
 * Who the assertion names: the email from the usual attributes, else a NameID in emailAddress
 * format (Entra ID's and Google's default); the name from displayName, else given and family
 * names joined.
 */
export function samlClaims(attributes: Record<string, unknown>, nameId: string, nameIdFormat: string | undefined) {
  const email =
    firstOf(attributes, SAML_ATTRIBUTE_NAMES.email)[0] ??
    (nameIdFormat === EMAIL_NAME_ID && /^[^@\s]+@[^@\s]+$/.test(nameId) ? nameId : undefined);
  const joined = [
    firstOf(attributes, SAML_ATTRIBUTE_NAMES.givenName)[0],
    firstOf(attributes, SAML_ATTRIBUTE_NAMES.surname)[0],
  ]
    .filter(Boolean)
    .join(' ');
  const name = firstOf(attributes, SAML_ATTRIBUTE_NAMES.displayName)[0] ?? (joined || undefined);
  return { email: email?.trim(), name: name?.trim() } satisfies SamlClaims;
}

/**
 * The values of a role or team claim the Admin named: by that attribute name, else, where the
 * name is one of the usual group or role names, by the names IdPs send those under.
 */
export function samlClaimValues(attributes: Record<string, unknown>, claim: string | null): string[] {
  if (!claim) return [];
  const named = firstOf(attributes, [claim]);
  if (named.length > 0) return named;
  for (const aliases of [SAML_ATTRIBUTE_NAMES.groups, SAML_ATTRIBUTE_NAMES.roles])
    if ((aliases as readonly string[]).includes(claim)) return firstOf(attributes, aliases);
  return [];
}

/** Which of the claims a sign-in needs are missing, naming the attributes looked for (for the Admin's log). */
export function missingClaims(claims: SamlClaims): string[] {
  return claims.email === undefined
    ? [`email (an attribute ${SAML_ATTRIBUTE_NAMES.email.join(', ')}, or a NameID in emailAddress format)`]
    : [];
}
