/**
 * SAML as Microsoft Entra ID sets it up by default (issue 40, decision 285): the application is
 * made from the SP metadata alone (GET /sso/{provider}/metadata: entity id, ACS, NameID formats),
 * and the assertion carries a NameID in emailAddress format and the claims-URI attributes
 * (emailaddress, givenname, surname, name, groups). A missing email is a 403 that tells the
 * visitor nothing of the attributes; a NameID longer than any key is a 401.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, loginAdmin, site, siteUrl, uniqueSuffix } from '../support/api.ts';
import { Visitor } from '../support/sessions.ts';
import { IDP_CERT, IDP_ENTITY_ID, readAuthnRequest, samlResponse, type SamlRequestSeen } from '../support/saml-idp.ts';

const CLAIMS = 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims';
const EMAIL_FORMAT = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';
const providerid = `entra-${uniqueSuffix()}`;
const authorsGroup = 'b2c6e1f4-5d8a-4b1e-9f3c-2a7d0e6b4c11';
let admin: string;
let entityId: string;
let acs: string;

beforeAll(async () => {
  admin = await loginAdmin();
  const created = await api('POST', '/admin/identity_providers', {
    token: admin,
    body: {
      providerid,
      kind: 'saml',
      name: 'Microsoft Entra ID',
      idp_entity_id: IDP_ENTITY_ID,
      idp_sso_url: 'https://idp.example.test/sso',
      idp_certificates: [IDP_CERT],
      jit: true,
      role_claim: 'groups',
      role_map: { [authorsGroup]: 'Author' },
    },
  });
  expect(created.status, created.text).toBe(201);
  // Entra's "Upload metadata file": everything it needs comes from the SP metadata.
  const metadata = await site('GET', `/sso/${providerid}/metadata`);
  expect(metadata.status).toBe(200);
  expect(metadata.headers.get('content-type')).toMatch(/^application\/samlmetadata\+xml/);
  entityId = /entityID="([^"]+)"/.exec(metadata.text)![1]!;
  acs = /<AssertionConsumerService[^>]*Location="([^"]+)"/.exec(metadata.text)![1]!;
  expect(entityId).toBe(created.body.sp_entity_id);
  expect(acs).toBe(`${siteUrl()}/sso/${providerid}/acs`);
  expect(metadata.text).toContain('Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST"');
  expect(metadata.text).toContain(`<NameIDFormat>${EMAIL_FORMAT}</NameIDFormat>`);
  expect(metadata.text).toContain('<NameIDFormat>urn:oasis:names:tc:SAML:2.0:nameid-format:persistent</NameIDFormat>');
  expect(metadata.text).toContain('WantAssertionsSigned="true"');
});

async function startLogin(visitor: Visitor): Promise<SamlRequestSeen> {
  const start = await visitor.get(`/sso/${providerid}/login?returnTo=%2F`);
  expect(start.status).toBe(302);
  return readAuthnRequest(start.headers.get('location')!);
}

function post(visitor: Visitor, request: SamlRequestSeen, response: string) {
  return visitor.post(`/sso/${providerid}/acs`, { SAMLResponse: response, RelayState: request.relayState });
}

describe('SAML with Entra ID defaults', () => {
  it('signs in from an emailAddress NameID and the claims-URI attributes, groups by their object id', async () => {
    const suffix = uniqueSuffix();
    const upn = `uma.${suffix}@contoso.example`;
    const visitor = new Visitor();
    const request = await startLogin(visitor);
    expect(request.acs).toBe(acs);
    const done = await post(
      visitor,
      request,
      samlResponse({
        inResponseTo: request.id,
        acs,
        audience: entityId,
        nameId: upn,
        nameIdFormat: EMAIL_FORMAT,
        attributes: {
          'http://schemas.microsoft.com/identity/claims/tenantid': ['72f988bf-86f1-41af-91ab-2d7cd011db47'],
          'http://schemas.microsoft.com/identity/claims/objectidentifier': [`oid-${suffix}`],
          [`${CLAIMS}/givenname`]: ['Uma'],
          [`${CLAIMS}/surname`]: ['Ward'],
          [`${CLAIMS}/emailaddress`]: [upn],
          [`${CLAIMS}/name`]: [upn],
          'http://schemas.microsoft.com/ws/2008/06/identity/claims/groups': [authorsGroup],
        },
      }),
    );
    expect(done.status, done.text).toBe(303);
    const me = await api('GET', '/user', { headers: visitor.cookieHeader() });
    expect(me.status).toBe(200);
    const account = await api('GET', `/users/${me.body.userid}`, { token: admin });
    expect(account.body).toMatchObject({
      email: upn,
      username: 'Uma Ward',
      sso_userid: `${providerid}|${upn}`,
      privileges: ['User', 'Author'],
    });
  });

  it('Shibboleth urn:oid attributes name the person too', async () => {
    const suffix = uniqueSuffix();
    const visitor = new Visitor();
    const request = await startLogin(visitor);
    const done = await post(
      visitor,
      request,
      samlResponse({
        inResponseTo: request.id,
        acs,
        audience: entityId,
        nameId: `_transient${suffix}`,
        attributes: {
          'urn:oid:0.9.2342.19200300.100.1.3': [`oid.${suffix}@uni.example`],
          'urn:oid:2.16.840.1.113730.3.1.241': ['Olu Idé'],
        },
      }),
    );
    expect(done.status, done.text).toBe(303);
    const me = await api('GET', '/user', { headers: visitor.cookieHeader() });
    const account = await api('GET', `/users/${me.body.userid}`, { token: admin });
    expect(account.body).toMatchObject({ email: `oid.${suffix}@uni.example`, username: 'Olu Idé' });
  });

  it('without an email the visitor gets a 403 that names no attribute; a 3,000-character NameID is a 401', async () => {
    const visitor = new Visitor();
    const request = await startLogin(visitor);
    const refused = await post(
      visitor,
      request,
      samlResponse({
        inResponseTo: request.id,
        acs,
        audience: entityId,
        nameId: `nomail-${uniqueSuffix()}`,
        attributes: { [`${CLAIMS}/givenname`]: ['No'] },
      }),
    );
    expect(refused.status).toBe(403);
    expect(refused.text).not.toContain('emailaddress');
    expect((await api('GET', '/user', { headers: visitor.cookieHeader() })).status).toBe(401);

    const again = new Visitor();
    const second = await startLogin(again);
    const long = await post(
      again,
      second,
      samlResponse({
        inResponseTo: second.id,
        acs,
        audience: entityId,
        nameId: `long-${'n'.repeat(3000)}`,
        attributes: { [`${CLAIMS}/emailaddress`]: [`long.${uniqueSuffix()}@contoso.example`] },
      }),
    );
    expect(long.status).toBe(401);
  });

  it('metadata of a provider that is not SAML, or not there, is 404', async () => {
    expect((await site('GET', '/sso/no-such-provider/metadata')).status).toBe(404);
  });
});
