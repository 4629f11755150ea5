/**
 * Secrets Manager secrets read by ARN, once per container (decisions 240, 346): the secrets key
 * and the content signing key. A deployed function gets a secret's ARN and
 * `secretsmanager:GetSecretValue` on it, never its value; the value is read at its first use and
 * kept for the container's life. A failed read is not kept: the next use reads again. The SDK
 * client is a side bundle (`#secrets-manager`, decision 155) loaded by the first read, so a cold
 * start that reads no secret does not parse it.
 */
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { type Config, config } from '../config.ts';
import { ServiceUnavailableError } from '../domain/errors.ts';
import { offerClientToHook } from '../sdk-client-hook.ts';

/** What a secret must be to be used: its name in errors, and its least length. */
export interface SecretRule {
  what: string;
  minLength: number;
}

/** One client per configuration: a new one after reloadConfig (tests point it at a stand-in of their own). */
let client: { config: Config; client: SecretsManagerClient } | undefined;
const kept = new Map<string, { value: Promise<string>; at: number }>();

async function readSecret(arn: string, rule: SecretRule): Promise<string> {
  const { GetSecretValueCommand, SecretsManagerClient } = await import('#secrets-manager');
  const current = config();
  if (client?.config !== current)
    client = { config: current, client: offerClientToHook(new SecretsManagerClient({ region: current.AWS_REGION })) };
  const answer = await client.client.send(new GetSecretValueCommand({ SecretId: arn }));
  if (!answer.SecretString || answer.SecretString.length < rule.minLength)
    throw new ServiceUnavailableError(`${rule.what} in Secrets Manager is empty or too short`);
  return answer.SecretString;
}

/** The value of the secret `arn`: read at the first call, then kept. */
export function secretValue(arn: string, rule: SecretRule): Promise<string> {
  const found = kept.get(arn);
  if (found) return found.value;
  const value = readSecret(arn, rule);
  // A failed read is not kept: the next call tries again.
  value.catch(() => {
    if (kept.get(arn)?.value === value) kept.delete(arn);
  });
  kept.set(arn, { value, at: Date.now() });
  return value;
}

/**
 * Forget the value of `arn` if it was read at least `ageMs` ago, so that the next call reads the
 * current one (after a rotation). True when it was forgotten.
 */
export function forgetSecretValue(arn: string, ageMs: number): boolean {
  const found = kept.get(arn);
  if (!found || Date.now() - found.at < ageMs) return false;
  kept.delete(arn);
  return true;
}
