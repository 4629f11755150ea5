/**
 * Identity providers' secrets sealed at rest (decisions 232, 240): an OIDC client secret and
 * the remote-login secret, bound to their provider and field, under the deployment's key.
 */
import { nowSeconds } from '../clock.ts';
import {
  getIdentityProvider,
  listIdentityProviders,
  replaceIdentityProvider,
} from '../db/entities/identity-provider.ts';
import { ServiceUnavailableError } from '../domain/errors.ts';
import { LostRace, retryOnLostRace } from '../db/retry.ts';
import { atRestKey, openAtRest, sealAtRest } from '../domain/secret-at-rest.ts';
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

export interface ResealReport {
  /** Values opened with the old key and sealed under the new one. */
  resealed: number;
  /** Values already under the new key (a rerun after an interruption). */
  alreadyNew: number;
  /** `<providerid> <field>`: opened under neither key; left as they were. */
  unopened: string[];
}

/**
 * Re-seals every provider's secrets from the old key to the new (`npm run secrets:rotate`,
 * decision 240). Each provider is one versioned put; a provider changed meanwhile is read again.
 * Rerunnable: a value already under the new key is left alone.
 */
export async function resealProviderSecrets(oldKeyText: string, newKeyText: string): Promise<ResealReport> {
  const oldKey = atRestKey(oldKeyText);
  const newKey = atRestKey(newKeyText);
  const report: ResealReport = { resealed: 0, alreadyNew: 0, unopened: [] };
  for (const listed of await listIdentityProviders()) {
    const counts = await retryOnLostRace(
      async (attempt) => {
        const provider = attempt === 0 ? listed : await getIdentityProvider(listed.providerid);
        if (!provider) return undefined;
        const next = { ...provider };
        const found = { resealed: 0, alreadyNew: 0, unopened: [] as string[] };
        for (const { field, sealed } of SEALED_PROVIDER_FIELDS) {
          const value = provider[sealed];
          if (!value) continue;
          const binding = providerSecretBinding(provider.providerid, field);
          if (openAtRest(value, newKey, binding) !== undefined) {
            found.alreadyNew++;
            continue;
          }
          const secret = openAtRest(value, oldKey, binding);
          if (secret === undefined) {
            found.unopened.push(`${provider.providerid} ${field}`);
            continue;
          }
          next[sealed] = sealAtRest(secret, newKey, binding);
          found.resealed++;
        }
        if (found.resealed > 0) {
          const replaced = await replaceIdentityProvider(provider, {
            ...next,
            modified_date: nowSeconds(),
            version: provider.version + 1,
          });
          if (!replaced) throw new LostRace();
        }
        return found;
      },
      {
        attempts: 6,
        onExhausted: () => {
          throw new Error(`Identity provider ${listed.providerid} keeps changing; run this again`);
        },
      },
    );
    if (!counts) continue;
    report.resealed += counts.resealed;
    report.alreadyNew += counts.alreadyNew;
    report.unopened.push(...counts.unopened);
  }
  return report;
}
