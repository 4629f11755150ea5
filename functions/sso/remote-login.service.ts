/**
 * Dozuki's signed remote login (docs/identity.md, decision 231): the customer's own site signs
 * who the visitor is; Stepwise checks the hash over the raw query string, the freshness of `t`
 * and that this very link was never used, then starts the browser session.
 */
import { nowSeconds } from '../../shared/clock.ts';
import {
  claimFirstUse,
  getIdentityProvider,
  REMOTE_LOGIN_PROVIDERID,
  type IdentityProviderRecord,
} from '../../shared/db/entities/identity-provider.ts';
import { NotFoundError, UnauthenticatedError } from '../../shared/domain/errors.ts';
import { verifyRemoteLogin } from '../../shared/domain/remote-login.ts';
import { accountFor } from './sso-accounts.ts';
import { openProviderSecret } from './sso-secrets.ts';

/** `<providerid>|...`: the namespace of OpenID Connect and SAML subjects (sso-accounts.ts). */
const PROVIDER_SCOPED = /^[a-z0-9][a-z0-9_-]{0,39}\|/;

/** How far `t` may be from now, either way (the customer's clock may drift a little). */
export const REMOTE_LOGIN_WINDOW_SECONDS = 300;

const PROBLEMS = {
  unsigned: 'The sign-in link carries no hash',
  bad_hash: 'The sign-in link is not signed with this site’s SSO secret',
  missing_field: 'The sign-in link lacks userid, email or t',
  stale: 'The sign-in link has expired; sign in again from your company’s site',
} as const;

async function remoteProvider(): Promise<IdentityProviderRecord & { login_url: string; secret_sealed: string }> {
  const provider = await getIdentityProvider(REMOTE_LOGIN_PROVIDERID);
  if (!provider?.enabled || !provider.secret_sealed || !provider.login_url)
    throw new NotFoundError('Remote login is not set up on this site');
  return provider as IdentityProviderRecord & { login_url: string; secret_sealed: string };
}

/** Who the signed link names (the account, found or made), and where the session goes. */
export async function remoteLogin(rawQueryString: string): Promise<{ userid: number; returnTo: string | undefined }> {
  const provider = await remoteProvider();
  const secret = await openProviderSecret(provider.providerid, 'secret', provider.secret_sealed);
  const now = nowSeconds();
  const checked = verifyRemoteLogin(rawQueryString, secret, now, REMOTE_LOGIN_WINDOW_SECONDS);
  if (!checked.ok) throw new UnauthenticatedError(PROBLEMS[checked.problem]);
  const { claims } = checked;
  // A company sign-in's account is bound to `<providerid>|<subject>`: a remote userid of that
  // shape would sign in as it (issue 35 item 9). Remote userids live outside that namespace.
  if (PROVIDER_SCOPED.test(claims.userid))
    throw new UnauthenticatedError('The sign-in link names a userid of a company sign-in provider');
  // One use per signed link: kept as long as the link could still be fresh.
  const first = await claimFirstUse(
    'remote',
    claims.hash,
    provider.providerid,
    claims.t + REMOTE_LOGIN_WINDOW_SECONDS + 60,
  );
  if (!first)
    throw new UnauthenticatedError('This sign-in link was already used; sign in again from your company’s site');
  const user = await accountFor(provider, {
    ssoUserid: claims.userid,
    email: claims.email,
    // The customer's site vouches for the address it signs.
    emailVerified: true,
    name: claims.name,
    roleValues: [],
  });
  return { userid: user.userid, returnTo: claims.returnTo };
}

/** Dozuki's redirects to the customer's Remote Authentication URL: sign in, `register=1`, `logout=1`. */
export async function customerLoginUrl(kind: 'login' | 'register' | 'logout'): Promise<string> {
  const provider = await remoteProvider();
  const url = new URL(provider.login_url);
  if (kind !== 'login') url.searchParams.set(kind, '1');
  return url.toString();
}
