/**
 * Step-up for e-signatures (issue 28 §4, docs/identity.md, decision 237): a user who signs in
 * through an identity provider re-authenticates there (OIDC prompt=login and max_age, SAML
 * ForceAuthn) before signing; a fresh re-authentication is kept for the provider's window
 * (`step_up_max_age_seconds`) as a StepUp item that says how and when, and one signature spends
 * it (shared/accounts/e-signature.ts `proveSigner`). An API-only client asks for a one-time
 * ticket and opens the step-up URL it names in the system browser, which has no session.
 */
import { randomBytes } from 'node:crypto';
import { nowSeconds } from '../../shared/clock.ts';
import type { AuthContext, Caller } from '../../shared/domain/caller.ts';
import { ForbiddenError, UnauthenticatedError } from '../../shared/domain/errors.ts';
import { sha256Hex } from '../../shared/domain/secrets.ts';
import {
  getFreshStepUp,
  putStepUp,
  putStepUpTicket,
  takeStepUpTicket,
  type IdentityProviderRecord,
  type SignFor,
} from '../../shared/db/entities/identity-provider.ts';
import { findUserIdBy, getUser } from '../../shared/db/entities/user.ts';
import { refuseImpersonatedSignature, signingProviderOf, stepUpUrl } from '../../shared/accounts/e-signature.ts';
import { safeReturnTo } from '../../shared/http/session.ts';
import { startCompanyLogin } from './company-login.service.ts';
import type { ProviderRedirect } from './sso-flow.ts';
import { STEP_UP_TICKET_SECONDS } from './sso.schemas.ts';

export { STEP_UP_TICKET_SECONDS };

/** The OIDC or SAML provider an account signs in with (its sso_userid is `<providerid>|<subject>`). */
async function providerOfAccount(userid: number): Promise<IdentityProviderRecord | undefined> {
  const user = await getUser(userid);
  return user && !user.disabled ? signingProviderOf(user) : undefined;
}

async function startStepUpOf(userid: number, returnTo: string): Promise<ProviderRedirect> {
  const provider = await providerOfAccount(userid);
  if (!provider) throw new ForbiddenError('This account does not sign in through an identity provider');
  return startCompanyLogin(provider.providerid, { returnTo, stepUpUserid: userid });
}

/**
 * GET /sso/step_up: the signed-in browser's own step-up, or (`ticket`) the step-up of the user
 * a one-time ticket names, in a browser without their session. The session is never changed.
 * An anonymous browser without a ticket is to sign in first (`{login}`: the path to come back to).
 */
export async function startStepUp(
  caller: Caller | null,
  query: { returnTo?: string; ticket?: string },
): Promise<ProviderRedirect | { login: string }> {
  const returnTo = query.returnTo ?? '/';
  if (query.ticket !== undefined) {
    const ticket = await takeStepUpTicket(sha256Hex(query.ticket));
    if (!ticket)
      throw new UnauthenticatedError('This step-up link is unknown, already used or expired; ask for a new one');
    return startStepUpOf(ticket.userid, returnTo);
  }
  if (!caller) return { login: `/sso/step_up?returnTo=${encodeURIComponent(returnTo)}` };
  return startStepUpOf(caller.userid, returnTo);
}

/**
 * POST /api/2.0/user/step_up/ticket: a step-up URL an app opens in the system browser (no
 * session there). The ticket is random, stored hashed, single use, and lives
 * STEP_UP_TICKET_SECONDS; it only starts a step-up of this user, never a session.
 */
export async function issueStepUpTicket(
  auth: AuthContext & { user: Caller },
): Promise<{ step_up_url: string; expires_at: number }> {
  refuseImpersonatedSignature(auth);
  if (!(await providerOfAccount(auth.user.userid)))
    throw new ForbiddenError('This account does not sign in through an identity provider: it signs with its password');
  const ticket = randomBytes(32).toString('base64url');
  const expires_at = nowSeconds() + STEP_UP_TICKET_SECONDS;
  await putStepUpTicket(sha256Hex(ticket), { userid: auth.user.userid, expires_at });
  return { step_up_url: `${stepUpUrl()}?ticket=${ticket}`, expires_at };
}

/**
 * Ends a step-up: the person who authenticated at the provider must be the account that asked,
 * and recently enough (the provider's window); then the proof is kept for that window. Answers
 * where the browser goes back to.
 */
export async function completeStepUp(
  provider: IdentityProviderRecord,
  input: {
    ssoUserid: string;
    stepUpUserid: number | null;
    signFor?: SignFor | null;
    authTime: number | undefined;
    returnTo: string;
  },
): Promise<string> {
  // Over-the-shoulder signatures and the training they sign for load with the first one (decision 323).
  if (input.signFor) {
    const { completeSignFor } = await import('./sign-for.service.ts');
    return completeSignFor(provider, { ...input, signFor: input.signFor });
  }
  if (input.stepUpUserid === null) throw new Error('A step-up callback names no user');
  const signedIn = await findUserIdBy('SSO', input.ssoUserid);
  if (signedIn !== input.stepUpUserid)
    throw new ForbiddenError('Another person signed in at the identity provider: sign in as yourself to sign');
  const window = provider.step_up_max_age_seconds;
  if (input.authTime === undefined || nowSeconds() - input.authTime > window)
    throw new UnauthenticatedError('The identity provider did not sign you in again just now; try again');
  await putStepUp(
    {
      userid: input.stepUpUserid,
      providerid: provider.providerid,
      method: provider.kind as 'oidc' | 'saml',
      auth_time: input.authTime,
    },
    input.authTime + window,
  );
  return safeReturnTo(input.returnTo);
}

export interface StepUpStatus {
  /** Whether this account signs through its identity provider (else: with its password). */
  required: boolean;
  /** Where a browser re-authenticates (null when not required). */
  step_up_url: string | null;
  method: 'oidc' | 'saml' | null;
  auth_time: number | null;
  /** Until when a signature counts as stepped up (null: no fresh step-up). */
  fresh_until: number | null;
}

export async function stepUpStatus(caller: Caller): Promise<StepUpStatus> {
  const provider = await providerOfAccount(caller.userid);
  if (!provider) return { required: false, step_up_url: null, method: null, auth_time: null, fresh_until: null };
  const fresh = await getFreshStepUp(caller.userid);
  return {
    required: true,
    step_up_url: stepUpUrl(),
    method: fresh?.method ?? null,
    auth_time: fresh?.auth_time ?? null,
    fresh_until: fresh?.fresh_until ?? null,
  };
}
