/**
 * The company sign-in flow as values (issue 36 item 3, decision 286), the types both sides
 * import: the protocol modules (oidc.service.ts, saml.service.ts) check what a provider answered
 * and return who signed in (a VerifiedSignIn); sign-in.service.ts decides what that sign-in is
 * for (a step-up before signing, an over-the-shoulder signature, or a session). Services return
 * where the browser goes next (ProviderRedirect, SignInEnd); sso.routes.ts builds the replies.
 * The protocol modules import nothing of step-up or sign-for, so no import runs in a circle.
 */
import type { IdentityProviderRecord, SignFor } from '../../shared/db/entities/identity-provider.ts';
import type { AssertedIdentity } from './sso-accounts.ts';

/** To the identity provider: its URL, and the login state cookie that makes the answer ours. */
export interface ProviderRedirect {
  location: string;
  stateCookie: string;
}

/** How a sign-in ends: a session for the account, or back to a page (a step-up or a signature token). */
export type SignInEnd = { kind: 'session'; userid: number; returnTo: string } | { kind: 'back'; location: string };

/** What a protocol module verified: who signed in at the provider, and what the login was started for. */
export interface VerifiedSignIn {
  provider: IdentityProviderRecord;
  identity: AssertedIdentity;
  authTime: number | undefined;
  returnTo: string;
  stepUpUserid: number | null;
  signFor: SignFor | null;
  /** For the Admin's log when the account is refused (the claims that were missing), never for the visitor. */
  diagnostics?: () => Record<string, unknown>;
}
