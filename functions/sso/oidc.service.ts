/**
 * OpenID Connect sign-in (docs/identity.md, decision 233): authorization code with PKCE through
 * openid-client. openid-client checks the ID token's signature (the issuer's JWKS), issuer,
 * audience, expiry and nonce, and the state; the login state item and its cookie make each
 * callback usable once, in the browser that started it.
 */
import type * as Oidc from 'openid-client';
import {
  getIdentityProvider,
  type IdentityProviderRecord,
  type SignFor,
} from '../../shared/db/entities/identity-provider.ts';
import { NotFoundError, ServiceUnavailableError, UnauthenticatedError } from '../../shared/domain/errors.ts';
import { config } from '../../shared/config.ts';
import { safeReturnTo } from '../../shared/http/session.ts';
import { fetchRefusal, providerFetch } from './oidc-provider-fetch.ts';
import { openProviderSecret } from './sso-secrets.ts';
import { beginLogin, finishLogin } from './sso-login-state.ts';
import type { ProviderRedirect, VerifiedSignIn } from './sso-flow.ts';

/** openid-client, loaded by the first OIDC sign-in only: the sso function's other routes never pay for it. */
const library = () => import('#openid-client');

const siteBase = () => config().STEPWISE_SITE_URL.replace(/\/+$/, '');
export const callbackUrl = (providerid: string) => `${siteBase()}/sso/${providerid}/callback`;

/**
 * Discovery documents per provider and version, kept by a warm container (keys rotate: the
 * library refetches the JWKS).
 */
const configurations = new Map<string, Promise<Oidc.Configuration>>();

function configurationOf(provider: IdentityProviderRecord): Promise<Oidc.Configuration> {
  // created_date too: a provider removed and made again under its id starts at version 1 again.
  const key = `${provider.providerid}#${provider.created_date}#${provider.version}`;
  let found = configurations.get(key);
  if (!found) {
    found = discover(provider);
    found.catch(() => configurations.delete(key));
    configurations.set(key, found);
  }
  return found;
}

async function discover(provider: IdentityProviderRecord): Promise<Oidc.Configuration> {
  const oidc = await library();
  const secret = provider.client_secret_sealed
    ? await openProviderSecret(provider.providerid, 'client_secret', provider.client_secret_sealed)
    : undefined;
  const issuer = new URL(provider.issuer!);
  // The ID token's signature is checked against the issuer's JWKS too (openid-client trusts the
  // token endpoint's TLS alone otherwise): the sign-in may back an e-signature. http only for a
  // provider on this machine (the service refuses it elsewhere).
  const execute = [
    oidc.enableNonRepudiationChecks,
    ...(issuer.protocol === 'http:' ? [oidc.allowInsecureRequests] : []),
  ];
  try {
    // The configuration keeps this fetch for the JWKS and the token endpoint too.
    return await oidc.discovery(issuer, provider.client_id!, secret, undefined, {
      timeout: 10,
      [oidc.customFetch]: providerFetch,
      execute,
    });
  } catch (error) {
    const refused = fetchRefusal(error);
    if (refused)
      throw new ServiceUnavailableError(`The identity provider's issuer ${issuer.origin} was refused: ${refused}`);
    throw error;
  }
}

export async function oidcProvider(providerid: string): Promise<IdentityProviderRecord> {
  const provider = await getIdentityProvider(providerid);
  if (!provider?.enabled || provider.kind !== 'oidc')
    throw new NotFoundError(`No OpenID Connect sign-in ${providerid}`);
  return provider;
}

export interface StartOptions {
  returnTo: string;
  /** A step-up for an e-signature: force a fresh login of this user. */
  stepUpUserid?: number;
  /** An over-the-shoulder signature: force a fresh login of whoever signs (decision 238). */
  signFor?: SignFor;
}

/** The redirect to the provider's authorization endpoint (PKCE S256, state, nonce). */
export async function startOidcLogin(
  provider: IdentityProviderRecord,
  options: StartOptions,
): Promise<ProviderRedirect> {
  const oidc = await library();
  const configuration = await configurationOf(provider);
  const codeVerifier = oidc.randomPKCECodeVerifier();
  const nonce = oidc.randomNonce();
  const { state, cookie } = await beginLogin({
    providerid: provider.providerid,
    nonce,
    code_verifier: codeVerifier,
    request_id: null,
    return_to: safeReturnTo(options.returnTo),
    step_up_userid: options.stepUpUserid ?? null,
    ...(options.signFor ? { sign_for: options.signFor } : {}),
  });
  const parameters: Record<string, string> = {
    redirect_uri: callbackUrl(provider.providerid),
    scope: provider.scopes ?? 'openid email profile',
    code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    state,
    nonce,
  };
  if (options.stepUpUserid !== undefined || options.signFor) {
    parameters.prompt = 'login';
    parameters.max_age = '0';
  }
  return { location: oidc.buildAuthorizationUrl(configuration, parameters).toString(), stateCookie: cookie };
}

export interface OidcIdentity {
  sub: string;
  claims: Record<string, unknown>;
  authTime: number | undefined;
}

/** Finishes the code flow: the checked ID token's claims, or 401 naming what failed. */
export async function finishOidcLogin(
  provider: IdentityProviderRecord,
  rawQueryString: string,
  headers: Record<string, string>,
): Promise<{ identity: OidcIdentity; returnTo: string; stepUpUserid: number | null; signFor: SignFor | null }> {
  const query = new URLSearchParams(rawQueryString);
  if (query.get('error'))
    throw new UnauthenticatedError(`The identity provider refused the sign-in: ${query.get('error')}`);
  const started = await finishLogin(query.get('state') ?? undefined, headers, provider.providerid);
  const oidc = await library();
  const configuration = await configurationOf(provider);
  const currentUrl = new URL(`${callbackUrl(provider.providerid)}?${rawQueryString}`);
  let tokens: Awaited<ReturnType<typeof Oidc.authorizationCodeGrant>>;
  try {
    tokens = await oidc.authorizationCodeGrant(configuration, currentUrl, {
      pkceCodeVerifier: started.code_verifier!,
      expectedState: query.get('state')!,
      expectedNonce: started.nonce!,
      idTokenExpected: true,
      ...(started.step_up_userid !== null || started.sign_for ? { maxAge: provider.step_up_max_age_seconds } : {}),
    });
  } catch (error) {
    throw new UnauthenticatedError(`The sign-in answer was refused: ${refusal(error)}`);
  }
  const idClaims = tokens.claims();
  if (!idClaims) throw new UnauthenticatedError('The identity provider sent no ID token');
  // OIDC Core §2: sub is at most 255 ASCII characters; a longer one names no account here.
  if (idClaims.sub.length > 255) throw new UnauthenticatedError("The identity provider's subject is too long");
  const claims = await withUserInfo(configuration, tokens.access_token, idClaims, wantedClaims(provider));
  return {
    identity: {
      sub: idClaims.sub,
      claims,
      authTime: typeof idClaims.auth_time === 'number' ? idClaims.auth_time : undefined,
    },
    returnTo: started.return_to,
    stepUpUserid: started.step_up_userid,
    signFor: started.sign_for ?? null,
  };
}

/** The claims a sign-in reads: email, its verification, name, and the provider's role and team claims. */
function wantedClaims(provider: IdentityProviderRecord): string[] {
  return ['email', 'email_verified', 'name', provider.role_claim, provider.team_claim].filter(
    (name): name is string => typeof name === 'string' && name !== '',
  );
}

/**
 * The ID token's claims, and where it leaves a wanted claim out, the UserInfo endpoint's
 * (OIDC Core §5.4: a provider may give profile and email claims only there), as openid-client
 * reads it: through the provider's SSRF-safe fetch, its `sub` required to be the ID token's.
 * The ID token wins where both say; email_verified is taken only for the email it verifies.
 */
async function withUserInfo(
  configuration: Oidc.Configuration,
  accessToken: string,
  claims: Oidc.IDToken,
  wanted: string[],
): Promise<Record<string, unknown>> {
  const oidc = await library();
  const missing = wanted.filter((name) => !Object.hasOwn(claims, name));
  if (missing.length === 0 || !configuration.serverMetadata().userinfo_endpoint) return claims;
  let info: Oidc.UserInfoResponse;
  try {
    info = await oidc.fetchUserInfo(configuration, accessToken, claims.sub);
  } catch (error) {
    const refused = fetchRefusal(error);
    throw new UnauthenticatedError(`The identity provider's UserInfo answer was refused: ${refused ?? refusal(error)}`);
  }
  const added: Record<string, unknown> = {};
  for (const name of missing) if (Object.hasOwn(info, name)) added[name] = info[name];
  const email = (claims.email ?? added.email) as unknown;
  if ('email_verified' in added && info.email !== email) delete added.email_verified;
  return { ...added, ...claims };
}

/**
 * What openid-client found wrong, naming the claim where it says which (aud, iss, exp, nonce),
 * and the first cause that says more than "invalid response" (a bad signature).
 */
function refusal(error: unknown): string {
  let claim = '';
  let detail = '';
  // openid-client wraps oauth4webapi's error, whose cause names the claim or the failed check.
  for (let at: unknown = error, depth = 0; at && typeof at === 'object' && depth < 4; depth++) {
    const named = (at as { claim?: unknown }).claim;
    if (typeof named === 'string') claim = ` (${named})`;
    const message = (at as { message?: unknown }).message;
    if (depth > 0 && !detail && typeof message === 'string' && message !== (error as Error).message)
      detail = `: ${message}`;
    at = (at as { cause?: unknown }).cause;
  }
  return `${(error as Error).message}${claim}${detail}`;
}

const claimValues = (value: unknown): string[] =>
  Array.isArray(value)
    ? value.filter((item): item is string => typeof item === 'string')
    : typeof value === 'string'
      ? [value]
      : [];

/** The callback: who signed in at the provider, and what the login was started for. */
export async function verifyOidcCallback(
  providerid: string,
  rawQueryString: string,
  headers: Record<string, string>,
): Promise<VerifiedSignIn> {
  const provider = await oidcProvider(providerid);
  const { identity, returnTo, stepUpUserid, signFor } = await finishOidcLogin(provider, rawQueryString, headers);
  const { claims } = identity;
  return {
    provider,
    identity: {
      ssoUserid: `${provider.providerid}|${identity.sub}`,
      email: typeof claims.email === 'string' ? claims.email : undefined,
      emailVerified: claims.email_verified === true,
      name: typeof claims.name === 'string' ? claims.name : undefined,
      roleValues: provider.role_claim ? claimValues(claims[provider.role_claim]) : [],
      teamValues: provider.team_claim ? claimValues(claims[provider.team_claim]) : [],
    },
    authTime: identity.authTime,
    returnTo,
    stepUpUserid,
    signFor,
    diagnostics: () => ({ claims: Object.keys(claims), missing: claims.email === undefined ? ['email'] : [] }),
  };
}
