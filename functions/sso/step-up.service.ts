/**
 * Step-up for e-signatures (issue 28 §4, docs/identity.md): a user who signs in through an
 * identity provider re-authenticates there (OIDC prompt=login and max_age, SAML ForceAuthn)
 * before signing; a fresh re-authentication is kept for the provider's window
 * (`step_up_max_age_seconds`) as a StepUp item that says how and when. An API-only client gets
 * the step-up URL to open in a browser.
 */
import { nowSeconds } from '../../shared/clock.ts';
import { config } from '../../shared/config.ts';
import type { Caller } from '../../shared/domain/caller.ts';
import { ForbiddenError, UnauthenticatedError } from '../../shared/domain/errors.ts';
import {
  getFreshStepUp,
  getIdentityProvider,
  putStepUp,
  type IdentityProviderRecord,
} from '../../shared/db/entities/identity-provider.ts';
import { findUserIdBy, getUser } from '../../shared/db/entities/user.ts';
import type { Reply } from '../../shared/http/route.ts';
import { NO_STORE, safeReturnTo } from '../../shared/http/session.ts';
import { startCompanyLogin } from './company-login.service.ts';

/** The OIDC or SAML provider an account signs in with (its sso_userid is `<providerid>|<subject>`). */
async function providerOfAccount(userid: number): Promise<IdentityProviderRecord | undefined> {
  const user = await getUser(userid);
  const providerid = user?.sso_userid?.split('|')[0];
  if (!providerid || !user?.sso_userid?.includes('|')) return undefined;
  const provider = await getIdentityProvider(providerid);
  return provider?.enabled && provider.kind !== 'remote_login' ? provider : undefined;
}

export async function startStepUp(caller: Caller, returnTo: string): Promise<Reply> {
  const provider = await providerOfAccount(caller.userid);
  if (!provider) throw new ForbiddenError('This account does not sign in through an identity provider');
  return startCompanyLogin(provider.providerid, { returnTo, stepUpUserid: caller.userid });
}

/**
 * Ends a step-up: the person who authenticated at the provider must be the account that asked,
 * and recently enough (the provider's window); then the proof is kept for that window.
 */
export async function completeStepUp(
  provider: IdentityProviderRecord,
  input: { ssoUserid: string; stepUpUserid: number; authTime: number | undefined; returnTo: string },
): Promise<Reply> {
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
  return { kind: 'reply', status: 303, headers: { location: safeReturnTo(input.returnTo), 'cache-control': NO_STORE } };
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
    step_up_url: `${config().STEPWISE_SITE_URL.replace(/\/+$/, '')}/sso/step_up`,
    method: fresh?.method ?? null,
    auth_time: fresh?.auth_time ?? null,
    fresh_until: fresh?.fresh_until ?? null,
  };
}
