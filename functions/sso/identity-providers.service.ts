/**
 * Identity providers, configured per site by an Admin (docs/identity.md, decision 232). What each
 * kind needs is checked here, after the body's shape: OIDC an issuer and a client id; SAML the
 * IdP's SSO URL, entity id and signing certificate; remote login the customer's login URL and
 * the shared secret. Secrets are sealed before they are stored and never shown again.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { nowSeconds } from '../../shared/clock.ts';
import { config } from '../../shared/config.ts';
import type { Caller } from '../../shared/domain/caller.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../shared/domain/errors.ts';
import {
  deleteIdentityProvider,
  getIdentityProvider,
  insertIdentityProvider,
  listIdentityProviders,
  REMOTE_LOGIN_PROVIDERID,
  replaceIdentityProvider,
  type IdentityProviderRecord,
} from '../../shared/db/entities/identity-provider.ts';
import { identityProviderView, type IdentityProviderView } from '../../shared/views/identity-provider-views.ts';
import type { CreateIdentityProviderInput, UpdateIdentityProviderInput } from './sso.schemas.ts';
import { sealProviderSecret } from './sso-secrets.ts';
import { FetchRefusedError, vetUrl } from '../../shared/net/safe-fetch.ts';

const DEFAULT_STEP_UP_SECONDS = 300;

const view = (provider: IdentityProviderRecord) => identityProviderView(provider, config().STEPWISE_SITE_URL);

/** https, or http on this machine only (a test provider). */
function requireSafeUrl(field: string, value: string | null): void {
  if (value === null) return;
  const { protocol, hostname } = new URL(value);
  const loopback = hostname === '127.0.0.1' || hostname === 'localhost' || hostname === '[::1]';
  if (protocol !== 'https:' && !(protocol === 'http:' && loopback))
    throw ValidationError.field(field, 'invalid', `${field} must be an https URL`);
}

/**
 * The URL this service fetches itself (the OIDC issuer: discovery, JWKS, token endpoint) is
 * vetted when it is saved, under the SSRF rules of every server-side fetch (shared/net vetUrl,
 * the test allowance STEPWISE_FETCH_ALLOW_HOSTS included): an address, or a name resolving to
 * one, that is private, loopback or link-local is 422 on the field. A name that does not resolve
 * (yet) is accepted: every sign-in vets it again, so a name that moves inward later is refused
 * there. The SAML SSO URL and the remote login URL are never fetched here, only sent to the
 * browser, so they may be on the company's own network (decision 251).
 */
async function requireFetchableUrl(field: string, value: string | null): Promise<void> {
  if (value === null) return;
  const url = new URL(value);
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(hostname) ? [] : await lookup(hostname, { all: true, verbatim: true }).catch(() => []);
  if (!isIP(hostname) && addresses.length === 0) return;
  try {
    await vetUrl(url, { allowHosts: config().STEPWISE_FETCH_ALLOW_HOSTS, resolve: async () => addresses });
  } catch (error) {
    if (!(error instanceof FetchRefusedError)) throw error;
    throw ValidationError.field(
      field,
      'url_not_allowed',
      `${field} ${url.host} may not be fetched: it is, or resolves to, a private, loopback or link-local address`,
    );
  }
}

function requireFields(provider: IdentityProviderRecord): void {
  const missing = (field: string) =>
    ValidationError.field(field, 'missing_field', `${field} is required for ${provider.kind}`);
  if (provider.kind === 'oidc') {
    if (!provider.issuer) throw missing('issuer');
    if (!provider.client_id) throw missing('client_id');
  } else if (provider.kind === 'saml') {
    if (!provider.idp_sso_url) throw missing('idp_sso_url');
    if (!provider.idp_entity_id) throw missing('idp_entity_id');
    if (provider.idp_certificates.length === 0) throw missing('idp_certificates');
  } else {
    if (!provider.login_url) throw missing('login_url');
    if (!provider.secret_sealed) throw missing('secret');
  }
  for (const field of ['issuer', 'idp_sso_url'] as const) requireSafeUrl(field, provider[field]);
}

/** The input's fields applied to a record (secrets sealed); absent fields keep their value. */
async function applied(
  base: IdentityProviderRecord,
  input: UpdateIdentityProviderInput,
): Promise<IdentityProviderRecord> {
  const { client_secret, secret, ...plain } = input;
  const next: IdentityProviderRecord = { ...base };
  for (const [field, value] of Object.entries(plain)) {
    if (value !== undefined) (next as unknown as Record<string, unknown>)[field] = value;
  }
  if (client_secret !== undefined)
    next.client_secret_sealed = await sealProviderSecret(base.providerid, 'client_secret', client_secret);
  if (secret !== undefined) next.secret_sealed = await sealProviderSecret(base.providerid, 'secret', secret);
  return next;
}

export async function create(caller: Caller, input: CreateIdentityProviderInput): Promise<IdentityProviderView> {
  const { providerid: given, kind, ...rest } = input;
  const providerid = kind === 'remote_login' ? REMOTE_LOGIN_PROVIDERID : given;
  if (!providerid) throw ValidationError.field('providerid', 'missing_field', 'providerid is required');
  if (kind !== 'remote_login' && providerid === REMOTE_LOGIN_PROVIDERID)
    throw ValidationError.field('providerid', 'invalid', 'remote_login is the remote-login provider’s id');
  const now = nowSeconds();
  const blank: IdentityProviderRecord = {
    providerid,
    kind,
    name: rest.name,
    enabled: true,
    jit: false,
    match_verified_email: false,
    role_claim: null,
    role_map: {},
    demote_admins: false,
    team_claim: null,
    team_map: {},
    issuer: null,
    client_id: null,
    client_secret_sealed: null,
    scopes: kind === 'oidc' ? 'openid email profile' : null,
    idp_entity_id: null,
    idp_sso_url: null,
    idp_certificates: [],
    sp_entity_id: kind === 'saml' ? `${config().STEPWISE_SITE_URL.replace(/\/+$/, '')}/sso/${providerid}` : null,
    login_url: null,
    secret_sealed: null,
    step_up_max_age_seconds: DEFAULT_STEP_UP_SECONDS,
    created_by: caller.userid,
    created_date: now,
    modified_date: now,
    version: 1,
  };
  const provider = await applied(blank, rest);
  requireFields(provider);
  await requireFetchableUrl('issuer', provider.issuer);
  if (!(await insertIdentityProvider(provider)))
    throw new ConflictError(`An identity provider ${providerid} already exists`);
  return view(provider);
}

export async function list(): Promise<{ identity_providers: IdentityProviderView[] }> {
  return { identity_providers: (await listIdentityProviders()).map(view) };
}

async function existing(providerid: string): Promise<IdentityProviderRecord> {
  const provider = await getIdentityProvider(providerid);
  if (!provider) throw new NotFoundError(`No identity provider ${providerid}`);
  return provider;
}

export async function get(providerid: string): Promise<IdentityProviderView> {
  return view(await existing(providerid));
}

export async function update(providerid: string, input: UpdateIdentityProviderInput): Promise<IdentityProviderView> {
  const previous = await existing(providerid);
  const next = { ...(await applied(previous, input)), modified_date: nowSeconds(), version: previous.version + 1 };
  requireFields(next);
  if (next.issuer !== previous.issuer) await requireFetchableUrl('issuer', next.issuer);
  if (!(await replaceIdentityProvider(previous, next)))
    throw new ConflictError('The identity provider changed meanwhile; read it again and retry');
  return view(next);
}

export async function remove(providerid: string): Promise<void> {
  if (!(await deleteIdentityProvider(providerid))) throw new NotFoundError(`No identity provider ${providerid}`);
}
