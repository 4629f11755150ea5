/** Starts a sign-in with a configured provider, whichever its protocol (OIDC or SAML). */
import { getIdentityProvider, type SignFor } from '../../shared/db/entities/identity-provider.ts';
import { NotFoundError } from '../../shared/domain/errors.ts';
import type { Reply } from '../../shared/http/route.ts';
import { startOidcLogin } from './oidc.service.ts';
import { startSamlLogin } from './saml.service.ts';

export async function startCompanyLogin(
  providerid: string,
  options: { returnTo: string; stepUpUserid?: number; signFor?: SignFor },
): Promise<Reply> {
  const provider = await getIdentityProvider(providerid);
  if (!provider?.enabled || provider.kind === 'remote_login')
    throw new NotFoundError(`No company sign-in ${providerid}`);
  return provider.kind === 'oidc' ? startOidcLogin(provider, options) : startSamlLogin(provider, options);
}
