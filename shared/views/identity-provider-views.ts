/**
 * How an identity provider is shown to Admins (docs/identity.md). Secrets are write-only: the
 * view says whether one is set, never what it is.
 */
import * as z from 'zod/mini';
import type { IdentityProviderRecord } from '../db/entities/identity-provider.ts';

export const identityProviderSchema = z.object({
  providerid: z.string(),
  kind: z.enum(['oidc', 'saml', 'remote_login']),
  name: z.string(),
  enabled: z.boolean(),
  jit: z.boolean(),
  match_verified_email: z.boolean(),
  role_claim: z.nullable(z.string()),
  role_map: z.record(z.string(), z.string()),
  demote_admins: z.boolean(),
  team_claim: z.nullable(z.string()),
  team_map: z.record(z.string(), z.int()),
  issuer: z.nullable(z.string()),
  client_id: z.nullable(z.string()),
  client_secret_set: z.boolean(),
  scopes: z.nullable(z.string()),
  idp_entity_id: z.nullable(z.string()),
  idp_sso_url: z.nullable(z.string()),
  idp_certificates: z.array(z.string()),
  sp_entity_id: z.nullable(z.string()),
  login_url: z.nullable(z.string()),
  secret_set: z.boolean(),
  step_up_max_age_seconds: z.int(),
  /** Where a browser starts signing in with this provider. */
  sign_in_url: z.string(),
  /** What the provider must be told: the OIDC redirect URI or the SAML ACS URL (null for remote login). */
  callback_url: z.nullable(z.string()),
  created_date: z.int(),
  modified_date: z.int(),
});

export type IdentityProviderView = z.output<typeof identityProviderSchema>;

export function identityProviderView(provider: IdentityProviderRecord, siteUrl: string): IdentityProviderView {
  const base = siteUrl.replace(/\/+$/, '');
  const remote = provider.kind === 'remote_login';
  const callback = provider.kind === 'oidc' ? 'callback' : 'acs';
  return {
    providerid: provider.providerid,
    kind: provider.kind,
    name: provider.name,
    enabled: provider.enabled,
    jit: provider.jit,
    match_verified_email: provider.match_verified_email,
    role_claim: provider.role_claim,
    role_map: provider.role_map,
    demote_admins: provider.demote_admins ?? false,
    team_claim: provider.team_claim,
    team_map: provider.team_map,
    issuer: provider.issuer,
    client_id: provider.client_id,
    client_secret_set: provider.client_secret_sealed !== null,
    scopes: provider.scopes,
    idp_entity_id: provider.idp_entity_id,
    idp_sso_url: provider.idp_sso_url,
    idp_certificates: provider.idp_certificates,
    sp_entity_id: provider.sp_entity_id,
    login_url: provider.login_url,
    secret_set: provider.secret_sealed !== null,
    step_up_max_age_seconds: provider.step_up_max_age_seconds,
    sign_in_url: remote ? `${base}/Guide/User/login` : `${base}/sso/${provider.providerid}/login`,
    callback_url: remote ? null : `${base}/sso/${provider.providerid}/${callback}`,
    created_date: Math.floor(provider.created_date),
    modified_date: Math.floor(provider.modified_date),
  };
}
