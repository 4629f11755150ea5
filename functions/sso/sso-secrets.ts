/** The providers' secrets sealed at rest under STEPWISE_SECRETS_KEY (decision 232). */
import { config } from '../../shared/config.ts';
import { ServiceUnavailableError } from '../../shared/domain/errors.ts';
import { atRestKey, openAtRest, sealAtRest } from '../../shared/domain/secret-at-rest.ts';

/** Locally (npm start, tests) a fixed key; a deployed stack must set its own. */
const LOCAL_DEVELOPMENT_KEY = 'stepwise-local-development-secrets-key';

function key(): Buffer {
  const configured = config().STEPWISE_SECRETS_KEY;
  if (configured) return atRestKey(configured);
  if (config().STEPWISE_RUNTIME === 'local') return atRestKey(LOCAL_DEVELOPMENT_KEY);
  throw new ServiceUnavailableError('STEPWISE_SECRETS_KEY is not set: identity provider secrets cannot be kept');
}

/** Bound to the provider and the field: a sealed value moved elsewhere does not open. */
const binding = (providerid: string, field: string) => `IDP#${providerid}#${field}`;

export function sealProviderSecret(providerid: string, field: string, secret: string): string {
  return sealAtRest(secret, key(), binding(providerid, field));
}

export function openProviderSecret(providerid: string, field: string, sealed: string): string {
  const secret = openAtRest(sealed, key(), binding(providerid, field));
  if (secret === undefined)
    throw new ServiceUnavailableError(`The ${field} of identity provider ${providerid} does not open with this key`);
  return secret;
}
