/**
 * How an electronic signature's signer proved who they were (issue 28 §4, decision 237): their
 * password, or a fresh re-authentication at their identity provider (OIDC or SAML) at
 * `auth_time`. Stored with every signature and carried by its audit record; a signature stored
 * before this field existed has none, which means `password`.
 */
import * as z from 'zod/mini';

/** How long an over-the-shoulder finalize token lives. */
export const FINALIZE_TOKEN_SECONDS = 300;

export const authenticatedBySchema = z.union([
  z.object({ method: z.literal('password') }),
  z.object({
    method: z.enum(['oidc', 'saml']),
    /** The identity provider the signer re-authenticated at. */
    providerid: z.string(),
    /** When they authenticated there (OIDC auth_time, SAML AuthnInstant), unix seconds. */
    auth_time: z.number(),
  }),
]);

export type AuthenticatedBy = z.output<typeof authenticatedBySchema>;

export const BY_PASSWORD: AuthenticatedBy = { method: 'password' };
