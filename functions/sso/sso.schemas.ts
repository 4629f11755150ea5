/** Request bodies of the identity-provider routes (docs/identity.md); the service takes their z.output. */
import * as z from 'zod/mini';

/** How long a step-up ticket may wait to be opened: the time to switch to the browser. */
export const STEP_UP_TICKET_SECONDS = 120;

const text = (max: number) => z.string().check(z.minLength(1), z.maxLength(max));
const url = z.string().check(z.url(), z.maxLength(2000));
const role = z.enum(['User', 'Author', 'Admin']);
/** A PEM certificate, or its base64 body as IdP metadata shows it. */
const certificate = z.string().check(z.minLength(100), z.maxLength(20_000));

const common = {
  name: text(200),
  enabled: z.optional(z.boolean()),
  jit: z.optional(z.boolean()),
  match_verified_email: z.optional(z.boolean()),
  role_claim: z.optional(z.nullable(text(200))),
  role_map: z.optional(z.record(text(200), role)),
  /** Whether the mapping may take Admin away from an account that no longer carries an Admin value (decision 241). */
  demote_admins: z.optional(z.boolean()),
  team_claim: z.optional(z.nullable(text(200))),
  team_map: z.optional(z.record(text(200), z.int().check(z.positive()))),
  issuer: z.optional(url),
  client_id: z.optional(text(500)),
  /** Write-only: stored sealed, never shown. */
  client_secret: z.optional(text(2000)),
  scopes: z.optional(text(500)),
  idp_entity_id: z.optional(text(2000)),
  idp_sso_url: z.optional(url),
  idp_certificates: z.optional(z.array(certificate).check(z.minLength(1), z.maxLength(4))),
  sp_entity_id: z.optional(text(2000)),
  login_url: z.optional(url),
  /** Write-only: the remote-login secret, stored sealed, never shown. */
  secret: z.optional(z.string().check(z.minLength(16), z.maxLength(500))),
  step_up_max_age_seconds: z.optional(z.int().check(z.minimum(30), z.maximum(86_400))),
};

export const createIdentityProviderBody = z.object({
  /** Lower-case letters, digits, `-` and `_`; a remote-login provider is always `remote_login`. */
  providerid: z.optional(z.string().check(z.regex(/^[a-z0-9][a-z0-9_-]{0,39}$/))),
  kind: z.enum(['oidc', 'saml', 'remote_login']),
  ...common,
});

export const updateIdentityProviderBody = z.object({ ...common, name: z.optional(common.name) });

export type CreateIdentityProviderInput = z.output<typeof createIdentityProviderBody>;
export type UpdateIdentityProviderInput = z.output<typeof updateIdentityProviderBody>;
