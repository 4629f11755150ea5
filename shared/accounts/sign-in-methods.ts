/**
 * Who may sign in with a password (docs/identity.md): everyone, or, on a site that signs in
 * through its identity provider (STEPWISE_PASSWORD_LOGIN=admins), Admins only: the break-glass
 * accounts that still get in when the identity provider is down or misconfigured.
 */
import { config } from '../config.ts';
import { ForbiddenError } from '../domain/errors.ts';
import type { UserRecord } from '../db/entities/user.ts';

export function passwordLoginAllowed(user: Pick<UserRecord, 'privileges'>): boolean {
  return config().STEPWISE_PASSWORD_LOGIN === 'everyone' || user.privileges.includes('Admin');
}

/** Checked once the password is right, so the answer tells nothing to who does not know it. */
export function requirePasswordLoginAllowed(user: Pick<UserRecord, 'privileges'>): void {
  if (!passwordLoginAllowed(user))
    throw new ForbiddenError('Password sign-in is off on this site: sign in through your company’s identity provider');
}

/**
 * The path where a browser starts single sign-on with the site's provider (STEPWISE_SSO_PROVIDER),
 * or undefined when the site has none. Configuration only: site info builds on it (decision 191).
 */
export function ssoLoginPath(returnTo?: string): string | undefined {
  const providerid = config().STEPWISE_SSO_PROVIDER;
  if (!providerid) return undefined;
  if (providerid === 'remote_login') return '/Guide/User/login';
  const query = returnTo && returnTo !== '/' ? `?returnTo=${encodeURIComponent(returnTo)}` : '';
  return `/sso/${providerid}/login${query}`;
}

/**
 * Where the browser goes after signing out: on a site whose people sign in through the
 * customer's own site (Dozuki's remote login), there with `logout=1` (through
 * /Guide/User/logged_out), so they are not signed straight back in; else the login page.
 */
export function afterLogoutPath(): string {
  return config().STEPWISE_SSO_PROVIDER === 'remote_login' ? '/Guide/User/logged_out' : '/login';
}
