/**
 * SAML 2.0 service provider (docs/identity.md, decision 234), through @node-saml/node-saml:
 * SP-initiated only (every response answers our AuthnRequest: InResponseTo always). node-saml
 * checks the signature on what it then reads (the verified XML: a wrapped, unsigned copy is
 * never read), a signed response or a signed assertion, the audience, NotBefore/NotOnOrAfter
 * and InResponseTo; this file adds what it leaves out: the assertion's issuer, the
 * SubjectConfirmation's Recipient (our ACS URL), the size bound, and the replay cache of
 * assertion ids (a conditional put that expires with the assertion).
 */
import { randomBytes } from 'node:crypto';
import type { CacheProvider, Profile, SAML } from '@node-saml/node-saml';
import { nowSeconds } from '../../shared/clock.ts';
import { config } from '../../shared/config.ts';
import {
  claimFirstUse,
  getIdentityProvider,
  type IdentityProviderRecord,
  type SignFor,
} from '../../shared/db/entities/identity-provider.ts';
import { BadRequestError, NotFoundError, UnauthenticatedError } from '../../shared/domain/errors.ts';
import { missingClaims, samlClaims, samlClaimValues } from './saml-claims.ts';
import { sha256Hex } from '../../shared/domain/secrets.ts';
import { safeReturnTo } from '../../shared/http/session.ts';
import { finishLogin, beginLogin } from './sso-login-state.ts';
import type { ProviderRedirect, VerifiedSignIn } from './sso-flow.ts';

/** node-saml (and its XML libraries), loaded by the first SAML request only. */
const library = () => import('#node-saml');

/** A SAMLResponse larger than this (base64) is refused unread: real ones are a few KB. */
export const MAX_SAML_RESPONSE_CHARS = 200_000;
const CLOCK_SKEW_MS = 60_000;

const siteBase = () => config().STEPWISE_SITE_URL.replace(/\/+$/, '');
export const acsUrl = (providerid: string) => `${siteBase()}/sso/${providerid}/acs`;

export async function samlProvider(providerid: string): Promise<IdentityProviderRecord> {
  const provider = await getIdentityProvider(providerid);
  if (!provider?.enabled || provider.kind !== 'saml') throw new NotFoundError(`No SAML sign-in ${providerid}`);
  return provider;
}

/** The one request id this login may answer (the login state keeps it; nothing else is cached). */
function oneRequestCache(requestId: string | null): CacheProvider {
  return {
    saveAsync: async (_key, value) => ({ value, createdAt: Date.now() }),
    // The login state item's TTL bounds the request's age; node-saml reads this as the request's time.
    getAsync: async (key) => (requestId !== null && key === requestId ? new Date().toISOString() : null),
    removeAsync: async (key) => key,
  };
}

const spEntityIdOf = (provider: IdentityProviderRecord) =>
  provider.sp_entity_id ?? `${siteBase()}/sso/${provider.providerid}`;

/** The NameID formats this SP accepts (any: the NameID is the subject within the provider's namespace). */
export const SP_NAME_ID_FORMATS = [
  'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
  'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
  'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified',
];

/**
 * The SP metadata an IdP imports to set the application up (Entra ID, ADFS, Shibboleth,
 * Keycloak), from node-saml: the entity id, the ACS (HTTP-POST), the NameID formats, and
 * WantAssertionsSigned. No KeyDescriptor: this SP signs no requests and takes no encrypted
 * assertions, so it has no certificate of its own (decision 285).
 */
export async function samlMetadata(providerid: string): Promise<string> {
  const provider = await samlProvider(providerid);
  const { generateServiceProviderMetadata } = await library();
  const xml = generateServiceProviderMetadata({
    issuer: spEntityIdOf(provider),
    callbackUrl: acsUrl(provider.providerid),
    identifierFormat: null,
    wantAssertionsSigned: true,
  });
  // node-saml writes one NameIDFormat at most; the SP takes these three, in the schema's order (before the ACS).
  const formats = SP_NAME_ID_FORMATS.map((format) => `<NameIDFormat>${format}</NameIDFormat>`).join('');
  return xml.replace('<AssertionConsumerService', `${formats}<AssertionConsumerService`);
}

async function samlFor(provider: IdentityProviderRecord, requestId: string | null, forceAuthn = false): Promise<SAML> {
  const { SAML: Saml, ValidateInResponseTo } = await library();
  const spEntityId = spEntityIdOf(provider);
  return new Saml({
    callbackUrl: acsUrl(provider.providerid),
    entryPoint: provider.idp_sso_url!,
    issuer: spEntityId,
    audience: spEntityId,
    idpCert: provider.idp_certificates,
    // Either is enough, but one of them must be signed (node-saml reads only what is).
    wantAuthnResponseSigned: false,
    wantAssertionsSigned: false,
    validateInResponseTo: ValidateInResponseTo.always,
    cacheProvider: oneRequestCache(requestId),
    generateUniqueId: () => requestId ?? `_${randomBytes(20).toString('hex')}`,
    acceptedClockSkewMs: CLOCK_SKEW_MS,
    identifierFormat: null,
    // Entra ID refuses a requested "password" context once MFA is on: ask for none.
    disableRequestedAuthnContext: true,
    forceAuthn,
  });
}

export async function startSamlLogin(
  provider: IdentityProviderRecord,
  options: { returnTo: string; stepUpUserid?: number; signFor?: SignFor },
): Promise<ProviderRedirect> {
  const requestId = `_${randomBytes(20).toString('hex')}`;
  const { state, cookie } = await beginLogin({
    providerid: provider.providerid,
    nonce: null,
    code_verifier: null,
    request_id: requestId,
    return_to: safeReturnTo(options.returnTo),
    step_up_userid: options.stepUpUserid ?? null,
    ...(options.signFor ? { sign_for: options.signFor } : {}),
  });
  const saml = await samlFor(provider, requestId, options.stepUpUserid !== undefined || options.signFor !== undefined);
  return { location: await saml.getAuthorizeUrlAsync(state, undefined, {}), stateCookie: cookie };
}

type XmlNode = { $?: Record<string, string>; _?: string; [child: string]: unknown };
const first = (node: unknown, child: string): XmlNode | undefined =>
  (node as Record<string, XmlNode[] | undefined> | undefined)?.[child]?.[0];

export interface SamlIdentity {
  nameId: string;
  nameIdFormat: string | undefined;
  attributes: Record<string, unknown>;
  email: string | undefined;
  authnInstant: number | undefined;
}

/** Checks a posted SAMLResponse; 401 naming what failed. */
export async function finishSamlLogin(
  provider: IdentityProviderRecord,
  form: URLSearchParams,
  headers: Record<string, string>,
): Promise<{ identity: SamlIdentity; returnTo: string; stepUpUserid: number | null; signFor: SignFor | null }> {
  const samlResponse = form.get('SAMLResponse');
  if (!samlResponse) throw new BadRequestError('No SAMLResponse');
  if (samlResponse.length > MAX_SAML_RESPONSE_CHARS) throw new BadRequestError('The SAMLResponse is too large');
  const started = await finishLogin(form.get('RelayState') ?? undefined, headers, provider.providerid);
  let profile: Profile | null;
  try {
    ({ profile } = await (await samlFor(provider, started.request_id)).validatePostResponseAsync({
      SAMLResponse: samlResponse,
    }));
  } catch (error) {
    throw new UnauthenticatedError(`The SAML response was refused: ${(error as Error).message}`);
  }
  if (!profile) throw new UnauthenticatedError('The SAML response carries no assertion');
  // A NameID longer than this names no account here (it becomes part of a key).
  if (profile.nameID.length > 255)
    throw new UnauthenticatedError('The SAML response was refused: the NameID is too long');
  const assertion = (profile.getAssertion?.() as { Assertion?: XmlNode } | undefined)?.Assertion;
  if (profile.issuer !== provider.idp_entity_id)
    throw new UnauthenticatedError('The SAML response was refused: the assertion is not from this identity provider');
  const confirmation = first(first(first(assertion, 'Subject'), 'SubjectConfirmation'), 'SubjectConfirmationData');
  if (confirmation?.$?.Recipient !== acsUrl(provider.providerid))
    throw new UnauthenticatedError('The SAML response was refused: the assertion is meant for another recipient');
  const assertionId = assertion?.$?.ID;
  if (!assertionId) throw new UnauthenticatedError('The SAML response was refused: the assertion has no ID');
  const notOnOrAfter = Date.parse(confirmation.$.NotOnOrAfter ?? '') / 1000;
  const expires = Number.isFinite(notOnOrAfter) ? Math.ceil(notOnOrAfter) + 120 : nowSeconds() + 86_400;
  if (
    !(await claimFirstUse(
      'saml',
      sha256Hex(`${provider.providerid}\u0000${assertionId}`),
      provider.providerid,
      expires,
    ))
  )
    throw new UnauthenticatedError('The SAML response was refused: this assertion was already used');
  const instant = Date.parse(first(assertion, 'AuthnStatement')?.$?.AuthnInstant ?? '');
  const attributes = (profile.attributes as Record<string, unknown> | undefined) ?? {};
  return {
    identity: {
      nameId: profile.nameID,
      nameIdFormat: typeof profile.nameIDFormat === 'string' ? profile.nameIDFormat : undefined,
      attributes,
      email: typeof profile.email === 'string' ? profile.email : undefined,
      authnInstant: Number.isFinite(instant) ? Math.floor(instant / 1000) : undefined,
    },
    returnTo: started.return_to,
    stepUpUserid: started.step_up_userid,
    signFor: started.sign_for ?? null,
  };
}

/** The ACS: who signed in at the provider, and what the login was started for. */
export async function verifySamlAcs(
  providerid: string,
  body: Buffer | undefined,
  headers: Record<string, string>,
): Promise<VerifiedSignIn> {
  const provider = await samlProvider(providerid);
  if (body && body.length > MAX_SAML_RESPONSE_CHARS + 4096) throw new BadRequestError('The SAMLResponse is too large');
  const form = new URLSearchParams((body ?? Buffer.alloc(0)).toString('utf8'));
  const { identity, returnTo, stepUpUserid, signFor } = await finishSamlLogin(provider, form, headers);
  const claims = samlClaims(identity.attributes, identity.nameId, identity.nameIdFormat);
  const email = identity.email ?? claims.email;
  return {
    provider,
    identity: {
      ssoUserid: `${provider.providerid}|${identity.nameId}`,
      email,
      // An IdP's asserted email is as verified as the IdP says nothing else: the Admin decides (match_verified_email).
      emailVerified: email !== undefined,
      name: claims.name,
      roleValues: samlClaimValues(identity.attributes, provider.role_claim),
      teamValues: samlClaimValues(identity.attributes, provider.team_claim),
    },
    authTime: identity.authnInstant,
    returnTo,
    stepUpUserid,
    signFor,
    diagnostics: () => ({
      missing: missingClaims({ ...claims, email }),
      attributes: Object.keys(identity.attributes),
      nameIdFormat: identity.nameIdFormat,
    }),
  };
}
