/**
 * What a login started with an identity provider keeps until it comes back (decision 233): a
 * server-side state item (one use, ten minutes) found by the hash of the random `state`, and a
 * cookie holding that `state` in this browser, so a callback URL sent to someone else signs
 * nobody in (login CSRF): the callback needs both.
 */
import { randomBytes } from 'node:crypto';
import { nowSeconds } from '../../shared/clock.ts';
import { putLoginState, takeLoginState, type SsoLoginStateRecord } from '../../shared/db/entities/identity-provider.ts';
import { sha256Hex } from '../../shared/domain/secrets.ts';
import { UnauthenticatedError } from '../../shared/domain/errors.ts';
import { cookiesAreSecure, requestCookies } from '../../shared/http/session.ts';

export const STATE_COOKIE = 'stepwise_sso_state';
export const LOGIN_STATE_SECONDS = 600;

/** Starts a login: the random state to send, and the cookie that ties it to this browser. */
export async function beginLogin(state: SsoLoginStateRecord): Promise<{ state: string; cookie: string }> {
  const value = randomBytes(32).toString('base64url');
  await putLoginState(sha256Hex(value), state, nowSeconds() + LOGIN_STATE_SECONDS);
  // SameSite=None for SAML's cross-site POST back (Secure where the site is https; browsers
  // treat http://localhost as secure enough in tests); HttpOnly, for the sign-in paths only.
  const sameSite = cookiesAreSecure() ? 'SameSite=None; Secure' : 'SameSite=Lax';
  return {
    state: value,
    cookie: `${STATE_COOKIE}=${value}; Path=/sso/; Max-Age=${LOGIN_STATE_SECONDS}; HttpOnly; ${sameSite}`,
  };
}

/** The cookie that ends the tie once the login is done. */
export function endedStateCookie(): string {
  return `${STATE_COOKIE}=; Path=/sso/; Max-Age=0; HttpOnly; SameSite=Lax`;
}

/**
 * Takes the login this callback finishes: the `state` it carries must be the one this
 * browser's cookie holds, and its item must be live and unused.
 */
export async function finishLogin(
  state: string | undefined,
  headers: Record<string, string>,
  providerid: string,
  options: { requireCookie: boolean } = { requireCookie: true },
): Promise<SsoLoginStateRecord> {
  if (!state) throw new UnauthenticatedError('The sign-in answer carries no state');
  const cookie = requestCookies(headers)[STATE_COOKIE];
  if (options.requireCookie && cookie !== state)
    throw new UnauthenticatedError('This sign-in was not started in this browser; start it again');
  const started = await takeLoginState(sha256Hex(state));
  if (!started || started.providerid !== providerid)
    throw new UnauthenticatedError('This sign-in expired or was already finished; start it again');
  return started;
}
