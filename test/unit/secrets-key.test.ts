/**
 * Where a deployed function's secrets key comes from (decision 240): the Secrets Manager secret
 * named by STEPWISE_SECRETS_KEY_ARN, read once and kept, read again (at most once a minute) when
 * a value no longer opens, as after `npm run secrets:rotate`. Against a local Secrets Manager
 * stand-in on 127.0.0.1, through the real SDK client.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openProviderSecret, sealProviderSecret } from '../../shared/accounts/provider-secrets.ts';
import { reloadConfig } from '../../shared/config.ts';
import { ServiceUnavailableError } from '../../shared/domain/errors.ts';
import { atRestKey, sealAtRest } from '../../shared/domain/secret-at-rest.ts';
import { type SecretsManagerStandIn, startSecretsManagerStandIn } from '../support/secrets-manager-stand-in.ts';

const ARN = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:stepwise-key-AbC123';
const KEY_A = 'the-first-key-of-the-secret-0123456789';
const KEY_B = 'the-rotated-key-of-the-secret-987654321';
let standIn: SecretsManagerStandIn;
let current = KEY_A;
let reads = 0;
const saved = { ...process.env };

beforeAll(async () => {
  standIn = await startSecretsManagerStandIn((secretId, target) => {
    expect(target).toBe('secretsmanager.GetSecretValue');
    expect(secretId).toBe(ARN);
    reads++;
    return { secretString: current, versionId: `v${reads}` };
  });
  Object.assign(process.env, {
    STEPWISE_RUNTIME: 'aws',
    STEPWISE_TRACING: 'false',
    STEPWISE_SECRETS_KEY_ARN: ARN,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: standIn.endpoint,
    AWS_ACCESS_KEY_ID: 'x',
    AWS_SECRET_ACCESS_KEY: 'x',
  });
  delete process.env.STEPWISE_SECRETS_KEY;
  reloadConfig();
});

afterAll(async () => {
  vi.useRealTimers();
  process.env = saved;
  reloadConfig();
  await standIn.close();
});

describe('the secrets key from Secrets Manager', () => {
  it('is read once and kept for every sealing and opening', async () => {
    const sealed = await sealProviderSecret('okta', 'client_secret', 'the-client-secret');
    expect(await openProviderSecret('okta', 'client_secret', sealed)).toBe('the-client-secret');
    expect(await sealProviderSecret('okta', 'client_secret', 'another')).toMatch(/^stepwise-at-rest:v1:/);
    expect(reads).toBe(1);
  });

  it('is read again when a value no longer opens, at most once a minute (after a rotation)', async () => {
    current = KEY_B;
    const resealed = sealAtRest('the-client-secret', atRestKey(KEY_B), 'IDP#okta#client_secret');
    // Within the minute: the kept key does not open it, and the secret is not read again.
    await expect(openProviderSecret('okta', 'client_secret', resealed)).rejects.toBeInstanceOf(ServiceUnavailableError);
    expect(reads).toBe(1);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 61_000);
    expect(await openProviderSecret('okta', 'client_secret', resealed)).toBe('the-client-secret');
    expect(reads).toBe(2);
  });
});
