/**
 * The key that seals identity providers' secrets at rest (decision 240). Where it comes from:
 * - STEPWISE_SECRETS_KEY itself (an operator's own setup, the rotation command);
 * - else STEPWISE_SECRETS_KEY_ARN: a Secrets Manager secret read once per container, at the
 *   first sealing or opening (CDK sets it on the functions that need it, and only those may read it);
 * - else, locally (npm start, tests), a fixed development key;
 * - else nothing: storing or using a provider secret answers 503.
 * The key never appears in the template or the environment.
 */
import { config } from '../config.ts';
import { ServiceUnavailableError } from '../domain/errors.ts';
import { atRestKey } from '../domain/secret-at-rest.ts';
import { forgetSecretValue, type SecretRule, secretValue } from '../storage/secret-values.ts';

/** Locally (npm start, tests) a fixed key; a deployed stack has its own. */
export const LOCAL_DEVELOPMENT_KEY = 'stepwise-local-development-secrets-key';

/** A value that fails to open may mean the key was rotated: read it again, at most this often. */
const REREAD_AFTER_MS = 60_000;

const SECRETS_KEY: SecretRule = { what: 'The secrets key', minLength: 16 };

/** The sealing key of this deployment. */
export function secretsKey(): Promise<Buffer> {
  const { STEPWISE_SECRETS_KEY, STEPWISE_SECRETS_KEY_ARN, STEPWISE_RUNTIME } = config();
  if (STEPWISE_SECRETS_KEY) return Promise.resolve(atRestKey(STEPWISE_SECRETS_KEY));
  if (STEPWISE_SECRETS_KEY_ARN) return secretValue(STEPWISE_SECRETS_KEY_ARN, SECRETS_KEY).then(atRestKey);
  if (STEPWISE_RUNTIME === 'local') return Promise.resolve(atRestKey(LOCAL_DEVELOPMENT_KEY));
  return Promise.reject(
    new ServiceUnavailableError('STEPWISE_SECRETS_KEY is not set: identity provider secrets cannot be kept'),
  );
}

/**
 * After a value did not open: forget a key read from Secrets Manager a while ago, so the next
 * call reads the current one (after a rotation). True when there is a newer key to try.
 */
export function forgetStaleSecretsKey(): boolean {
  const arn = config().STEPWISE_SECRETS_KEY_ARN;
  return !config().STEPWISE_SECRETS_KEY && arn !== undefined && forgetSecretValue(arn, REREAD_AFTER_MS);
}
