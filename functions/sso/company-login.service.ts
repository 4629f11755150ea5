/**
 * Starts a sign-in with a configured provider, whichever its protocol (OIDC or SAML). Each
 * protocol module (and its library) is loaded by the first sign-in that needs it.
 */
import { getIdentityProvider, type SignFor } from '../../shared/db/entities/identity-provider.ts';
import { NotFoundError } from '../../shared/domain/errors.ts';
import type { ProviderRedirect } from './sso-flow.ts';

export async function startCompanyLogin(
  providerid: string,
  options: { returnTo: string; stepUpUserid?: number; signFor?: SignFor },
): Promise<ProviderRedirect> {
  const provider = await getIdentityProvider(providerid);
  if (!provider?.enabled || provider.kind === 'remote_login')
    throw new NotFoundError(`No company sign-in ${providerid}`);
  if (provider.kind === 'oidc') return (await import('./oidc.service.ts')).startOidcLogin(provider, options);
  return (await import('./saml.service.ts')).startSamlLogin(provider, options);
}
