/**
 * A SAML 2.0 identity provider in the test process: it reads our AuthnRequest from the
 * redirect URL and answers with a Response signed by xml-crypto (the assertion, the response,
 * both or neither), with whatever the test changes: audience, issuer, recipient, validity,
 * InResponseTo, the assertion id, the signing key. Also a wrapped response (XML signature
 * wrapping: a forged assertion where the signed one was, the signed one hidden further in).
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { SignedXml } from 'xml-crypto';

const KEYS = join(import.meta.dirname, 'saml-keys');
export const IDP_KEY = readFileSync(join(KEYS, 'idp.key.pem'), 'utf8');
export const IDP_CERT = readFileSync(join(KEYS, 'idp.cert.pem'), 'utf8');
export const ATTACKER_KEY = readFileSync(join(KEYS, 'attacker.key.pem'), 'utf8');
export const IDP_ENTITY_ID = 'https://idp.example.test/saml';

export interface SamlRequestSeen {
  id: string;
  relayState: string;
  forceAuthn: boolean;
  acs: string;
  xml: string;
}

/** Reads the AuthnRequest our site put in the redirect (HTTP-Redirect binding: deflate + base64). */
export function readAuthnRequest(location: string): SamlRequestSeen {
  const url = new URL(location);
  const xml = inflateRawSync(Buffer.from(url.searchParams.get('SAMLRequest')!, 'base64')).toString('utf8');
  return {
    id: /\sID="([^"]+)"/.exec(xml)![1]!,
    relayState: url.searchParams.get('RelayState') ?? '',
    forceAuthn: /ForceAuthn="true"/.test(xml),
    acs: /AssertionConsumerServiceURL="([^"]+)"/.exec(xml)![1]!,
    xml,
  };
}

export interface ResponseOptions {
  inResponseTo: string;
  acs: string;
  audience: string;
  nameId: string;
  attributes?: Record<string, string[]>;
  issuer?: string;
  recipient?: string;
  assertionId?: string;
  /** Seconds from now. */
  notBefore?: number;
  notOnOrAfter?: number;
  sign?: 'assertion' | 'response' | 'none';
  key?: string;
  /** The NameID's Format (persistent unless told). */
  nameIdFormat?: string;
}

const iso = (offsetSeconds: number) => new Date(Date.now() + offsetSeconds * 1000).toISOString();
const escapeXml = (text: string) => text.replace(/[&<>"]/g, (char) => `&#${char.charCodeAt(0)};`);
const newId = () => `_${randomBytes(16).toString('hex')}`;

function sign(xml: string, element: 'Assertion' | 'Response', key: string): string {
  const signer = new SignedXml({
    privateKey: key,
    signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
    canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
  });
  const target = `//*[local-name(.)='${element}']`;
  signer.addReference({
    xpath: target,
    transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', 'http://www.w3.org/2001/10/xml-exc-c14n#'],
    digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
  });
  signer.computeSignature(xml, { location: { reference: `${target}/*[local-name(.)='Issuer']`, action: 'after' } });
  return signer.getSignedXml();
}

export function assertionXml(options: ResponseOptions): string {
  const issuer = options.issuer ?? IDP_ENTITY_ID;
  const attributes = Object.entries(options.attributes ?? {})
    .map(
      ([name, values]) =>
        `<saml:Attribute Name="${escapeXml(name)}">${values
          .map((value) => `<saml:AttributeValue>${escapeXml(value)}</saml:AttributeValue>`)
          .join('')}</saml:Attribute>`,
    )
    .join('');
  const nameIdFormat = options.nameIdFormat ?? 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent';
  const notOnOrAfter = iso(options.notOnOrAfter ?? 300);
  const authnContext = 'urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport';
  return (
    `<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${options.assertionId ?? newId()}" ` +
    `Version="2.0" IssueInstant="${iso(0)}"><saml:Issuer>${escapeXml(issuer)}</saml:Issuer>` +
    `<saml:Subject><saml:NameID Format="${nameIdFormat}">${escapeXml(options.nameId)}</saml:NameID>` +
    `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData ` +
    `InResponseTo="${options.inResponseTo}" NotOnOrAfter="${notOnOrAfter}" ` +
    `Recipient="${escapeXml(options.recipient ?? options.acs)}"/></saml:SubjectConfirmation></saml:Subject>` +
    `<saml:Conditions NotBefore="${iso(options.notBefore ?? -60)}" NotOnOrAfter="${notOnOrAfter}">` +
    '<saml:AudienceRestriction>' +
    `<saml:Audience>${escapeXml(options.audience)}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
    `<saml:AuthnStatement AuthnInstant="${iso(-5)}" SessionIndex="${newId()}"><saml:AuthnContext>` +
    `<saml:AuthnContextClassRef>${authnContext}</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>` +
    `<saml:AttributeStatement>${attributes}</saml:AttributeStatement></saml:Assertion>`
  );
}

function wrap(assertion: string, options: ResponseOptions): string {
  return (
    '<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" ' +
    `xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${newId()}" Version="2.0" IssueInstant="${iso(0)}" ` +
    `Destination="${escapeXml(options.acs)}" InResponseTo="${options.inResponseTo}">` +
    `<saml:Issuer>${escapeXml(options.issuer ?? IDP_ENTITY_ID)}</saml:Issuer>` +
    '<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>' +
    `${assertion}</samlp:Response>`
  );
}

/** A Response as the IdP posts it (base64), signed as asked. */
export function samlResponse(options: ResponseOptions): string {
  const key = options.key ?? IDP_KEY;
  const signing = options.sign ?? 'assertion';
  let assertion = assertionXml(options);
  if (signing === 'assertion') assertion = sign(assertion, 'Assertion', key);
  let xml = wrap(assertion, options);
  if (signing === 'response') xml = sign(xml, 'Response', key);
  return Buffer.from(xml).toString('base64');
}

/**
 * XML signature wrapping: the genuinely signed assertion of `genuine` is kept (its signature
 * still verifies) but moved into an Extensions element, and a forged, unsigned assertion
 * naming `forgedNameId` takes its place where the SP reads.
 */
export function wrappedResponse(genuine: ResponseOptions, forgedNameId: string): string {
  // The forged copy even carries the signed one's ID, so a lookup by the reference's URI is fooled.
  const assertionId = genuine.assertionId ?? newId();
  const signed = sign(assertionXml({ ...genuine, assertionId }), 'Assertion', IDP_KEY);
  const forged = assertionXml({ ...genuine, nameId: forgedNameId, assertionId });
  const xml = wrap(`<samlp:Extensions>${signed}</samlp:Extensions>${forged}`, genuine);
  return Buffer.from(xml).toString('base64');
}

export interface SamlIdpServer {
  /** The IdP's SSO URL (HTTP-Redirect binding in, HTTP-POST binding out). */
  ssoUrl: string;
  /** Attributes of each user the login form may name (email, groups...). */
  users: Map<string, Record<string, string[]>>;
  close(): Promise<void>;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/**
 * The IdP over HTTP, for a browser: GET <ssoUrl>?SAMLRequest&RelayState shows a login form
 * (a user name, no password); its POST answers with the page that posts a signed Response to
 * the ACS of the request, as a real IdP's HTTP-POST binding does.
 */
export async function startSamlIdpServer(audience: string): Promise<SamlIdpServer> {
  const users = new Map<string, Record<string, string[]>>();
  const server: Server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://idp.local');
    const html = (body: string) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Test IdP</title></head>${body}`);
    };
    if (request.method === 'GET' && url.pathname === '/sso') {
      const field = (name: string) =>
        `<input type="hidden" name="${name}" value="${escapeHtml(url.searchParams.get(name) ?? '')}">`;
      html(
        `<body><form method="post" action="/sso/login">${field('SAMLRequest')}${field('RelayState')}` +
          '<label for="login">User</label><input id="login" name="login">' +
          '<button type="submit">Sign in at the IdP</button></form></body>',
      );
      return;
    }
    if (request.method === 'POST' && url.pathname === '/sso/login') {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      const seen = readAuthnRequest(
        `http://idp.local/sso?${new URLSearchParams({ SAMLRequest: form.get('SAMLRequest') ?? '' })}`,
      );
      const nameId = form.get('login') ?? '';
      const answer = samlResponse({
        inResponseTo: seen.id,
        acs: seen.acs,
        audience,
        nameId,
        attributes: users.get(nameId) ?? {},
      });
      html(
        `<body onload="document.forms[0].submit()"><form method="post" action="${escapeHtml(seen.acs)}">` +
          `<input type="hidden" name="SAMLResponse" value="${answer}">` +
          `<input type="hidden" name="RelayState" value="${escapeHtml(form.get('RelayState') ?? '')}">` +
          '<noscript><button type="submit">Continue</button></noscript></form></body>',
      );
      return;
    }
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    ssoUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/sso`,
    users,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
