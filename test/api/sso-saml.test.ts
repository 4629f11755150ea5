/**
 * SAML 2.0 sign-in (docs/identity.md, decision 234) against an identity provider built in this
 * process (test/support/saml-idp.ts, signing with xml-crypto): the round trip with a signed
 * assertion or a signed response, then each refusal: unsigned, signed by a stranger, wrong
 * audience, issuer or recipient, expired, not yet valid, another request's InResponseTo, a
 * replayed assertion id, a wrapped signature, a response too large. Each is a 401 (400 for the
 * size) and no session.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, loginAdmin, siteUrl, uniqueSuffix } from '../support/api.ts';
import { Visitor } from '../support/sessions.ts';
import {
  ATTACKER_KEY,
  IDP_CERT,
  IDP_ENTITY_ID,
  readAuthnRequest,
  samlResponse,
  wrappedResponse,
  type ResponseOptions,
  type SamlRequestSeen,
} from '../support/saml-idp.ts';

const providerid = `saml-${uniqueSuffix()}`;
let admin: string;
let spEntityId: string;

beforeAll(async () => {
  admin = await loginAdmin();
  const created = await api('POST', '/admin/identity_providers', {
    token: admin,
    body: {
      providerid,
      kind: 'saml',
      name: 'Test IdP',
      idp_entity_id: IDP_ENTITY_ID,
      idp_sso_url: 'https://idp.example.test/sso',
      idp_certificates: [IDP_CERT],
      jit: true,
      role_claim: 'groups',
      role_map: { 'stepwise-admins': 'Admin' },
    },
  });
  expect(created.status).toBe(201);
  spEntityId = created.body.sp_entity_id;
  expect(created.body.callback_url).toBe(`${siteUrl()}/sso/${providerid}/acs`);
});

async function startLogin(visitor: Visitor): Promise<SamlRequestSeen> {
  const start = await visitor.get(`/sso/${providerid}/login?returnTo=${encodeURIComponent('/Guide/Fix/2')}`);
  expect(start.status).toBe(302);
  expect(start.headers.get('location')!.startsWith('https://idp.example.test/sso?SAMLRequest=')).toBe(true);
  return readAuthnRequest(start.headers.get('location')!);
}

function answer(request: SamlRequestSeen, changes: Partial<ResponseOptions> = {}): ResponseOptions {
  return {
    inResponseTo: request.id,
    acs: request.acs,
    audience: spEntityId,
    nameId: `emp-${uniqueSuffix()}`,
    attributes: { email: [`saml.${uniqueSuffix()}@example.com`], groups: ['stepwise-admins'] },
    ...changes,
  };
}

function post(visitor: Visitor, request: SamlRequestSeen, response: string) {
  return visitor.post(`/sso/${providerid}/acs`, { SAMLResponse: response, RelayState: request.relayState });
}

describe('SAML sign-in', () => {
  it('signs in with a signed assertion: the session, the account with its mapped role, back to returnTo', async () => {
    const visitor = new Visitor();
    const request = await startLogin(visitor);
    expect(request.acs).toBe(`${siteUrl()}/sso/${providerid}/acs`);
    expect(request.forceAuthn).toBe(false);
    const options = answer(request);
    const done = await post(visitor, request, samlResponse(options));
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe('/Guide/Fix/2');
    const me = await api('GET', '/user', { headers: visitor.cookieHeader() });
    expect(me.body.authToken).toBe(visitor.cookies.get('stepwise_session'));
    const account = await api('GET', `/users/${me.body.userid}`, { token: admin });
    expect(account.body).toMatchObject({
      sso_userid: `${providerid}|${options.nameId}`,
      privileges: ['User', 'Admin'],
    });
  });

  it('takes a signed response around an unsigned assertion too', async () => {
    const visitor = new Visitor();
    const request = await startLogin(visitor);
    expect((await post(visitor, request, samlResponse(answer(request, { sign: 'response' })))).status).toBe(303);
  });

  const refusals: Array<[string, (request: SamlRequestSeen) => string, RegExp]> = [
    ['an unsigned response', (request) => samlResponse(answer(request, { sign: 'none' })), /signature/i],
    [
      'an assertion signed by a stranger',
      (request) => samlResponse(answer(request, { key: ATTACKER_KEY })),
      /signature/i,
    ],
    [
      'another audience',
      (request) => samlResponse(answer(request, { audience: 'https://other-sp.example.com' })),
      /audience/i,
    ],
    [
      'another issuer',
      (request) => samlResponse(answer(request, { issuer: 'https://evil.example.com' })),
      /not from this identity provider/,
    ],
    [
      'another recipient',
      (request) => samlResponse(answer(request, { recipient: 'https://other-sp.example.com/acs' })),
      /recipient/,
    ],
    [
      'an expired assertion',
      (request) => samlResponse(answer(request, { notBefore: -1200, notOnOrAfter: -600 })),
      // The subject confirmation's NotOnOrAfter is passed too: node-saml says none is valid.
      /expired|no valid subject confirmation/i,
    ],
    ['an assertion not yet valid', (request) => samlResponse(answer(request, { notBefore: 600 })), /not yet valid/i],
    [
      'an answer to another request',
      (request) => samlResponse(answer(request, { inResponseTo: '_not-our-request' })),
      /InResponseTo/,
    ],
    ['a wrapped signature', (request) => wrappedResponse(answer(request), 'admin'), /signature/i],
  ];

  for (const [what, build, why] of refusals) {
    it(`refuses ${what}: 401, no session`, async () => {
      const visitor = new Visitor();
      const request = await startLogin(visitor);
      const refused = await post(visitor, request, build(request));
      expect(refused.status).toBe(401);
      expect(refused.text).toMatch(why);
      expect(visitor.cookies.has('stepwise_session')).toBe(false);
    });
  }

  it('refuses an assertion id seen before, even in answer to a new request', async () => {
    const assertionId = `_${uniqueSuffix()}${uniqueSuffix()}`;
    const first = new Visitor();
    const firstRequest = await startLogin(first);
    expect((await post(first, firstRequest, samlResponse(answer(firstRequest, { assertionId })))).status).toBe(303);
    const second = new Visitor();
    const secondRequest = await startLogin(second);
    const replayed = await post(second, secondRequest, samlResponse(answer(secondRequest, { assertionId })));
    expect(replayed.status).toBe(401);
    expect(replayed.text).toContain('already used');
  });

  it('steps up with ForceAuthn: the same person, just authenticated, is kept fresh for the window (§4)', async () => {
    const visitor = new Visitor();
    const request = await startLogin(visitor);
    const options = answer(request);
    expect((await post(visitor, request, samlResponse(options))).status).toBe(303);
    const start = await visitor.get('/sso/step_up?returnTo=%2Fsign');
    const stepUp = readAuthnRequest(start.headers.get('location')!);
    expect(stepUp.forceAuthn).toBe(true);
    const someoneElse = await post(visitor, stepUp, samlResponse(answer(stepUp)));
    expect(someoneElse.status).toBe(403);
    const again = readAuthnRequest((await visitor.get('/sso/step_up?returnTo=%2Fsign')).headers.get('location')!);
    const done = await post(visitor, again, samlResponse(answer(again, { nameId: options.nameId })));
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe('/sign');
    const status = await api('GET', '/user/step_up', { token: visitor.cookies.get('stepwise_session')! });
    expect(status.body).toMatchObject({ required: true, method: 'saml' });
    expect(status.body.fresh_until).toBe(status.body.auth_time + 300);
  });

  it('refuses a response posted twice, one without this browser’s state, and one too large', async () => {
    const visitor = new Visitor();
    const request = await startLogin(visitor);
    const response = samlResponse(answer(request));
    const stranger = new Visitor();
    expect((await post(stranger, request, response)).status).toBe(401);
    expect((await post(visitor, request, response)).status).toBe(303);
    const again = new Visitor();
    again.cookies.set('stepwise_sso_state', request.relayState);
    expect((await post(again, request, response)).status).toBe(401);
    const huge = await post(visitor, request, 'A'.repeat(300_000));
    expect([400, 413]).toContain(huge.status);
  });
});
