/**
 * Identity providers' secrets sealed at rest (decisions 232, 240): an OIDC client secret and
 * the remote-login secret, bound to their provider and field, under the deployment's key.
 */
import { ServiceUnavailableError } from '../domain/errors.ts';
import { openAtRest, sealAtRest } from '../domain/secret-at-rest.ts';
import { forgetStaleSecretsKey, secretsKey } from './secrets-key.ts';

export const SEALED_PROVIDER_FIELDS = [
  { field: 'client_secret', sealed: 'client_secret_sealed' },
  { field: 'secret', sealed: 'secret_sealed' },
] as const;
export type ProviderSecretField = (typeof SEALED_PROVIDER_FIELDS)[number]['field'];

/** Bound to the provider and the field: a sealed value moved elsewhere does not open. */
export const providerSecretBinding = (providerid: string, field: ProviderSecretField) => `IDP#${providerid}#${field}`;

export async function sealProviderSecret(providerid: string, field: ProviderSecretField, secret: string) {
  return sealAtRest(secret, await secretsKey(), providerSecretBinding(providerid, field));
}

export async function openProviderSecret(providerid: string, field: ProviderSecretField, sealed: string) {
  const binding = providerSecretBinding(providerid, field);
  let secret = openAtRest(sealed, await secretsKey(), binding);
  // Re-sealed under a new key since this container read its key: read the key again.
  if (secret === undefined && forgetStaleSecretsKey()) secret = openAtRest(sealed, await secretsKey(), binding);
  if (secret === undefined)
    throw new ServiceUnavailableError(`The ${field} of identity provider ${providerid} does not open with this key`);
  return secret;
}
