/**
 * Where a deployed function's content signing key comes from (decision 346): the Secrets Manager
 * secret named by STEPWISE_CONTENT_SIGNING_KEY_ARN, read at the first signing and kept for the
 * container; a failed read is not kept. Against a local Secrets Manager stand-in on 127.0.0.1,
 * through the real SDK client, which also answers the faults.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { reloadConfig } from '../../shared/config.ts';
import { contentPath, openContentRequest } from '../../shared/domain/content-token.ts';
import { ServiceUnavailableError } from '../../shared/domain/errors.ts';
import { contentFileUrl, contentSigningKey } from '../../shared/storage/module-content.ts';
import { type SecretsManagerStandIn, startSecretsManagerStandIn } from '../support/secrets-manager-stand-in.ts';

const ARN = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:stepwise-content-key-AbC123';
const SHORT_ARN = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:stepwise-short-key-AbC123';
const KEY = 'the-content-signing-key-of-the-secret-0123456789';
const ORIGIN = 'https://content.example.net';
/** What the stand-in answers next, by ARN: a value, or an error type with its status. */
let fault: { status: number; type: string } | null = null;
let reads = 0;
let standIn: SecretsManagerStandIn;
const saved = { ...process.env };

beforeAll(async () => {
  standIn = await startSecretsManagerStandIn((secretId) => {
    reads++;
    return fault ?? { secretString: secretId === ARN ? KEY : 'short' };
  });
  Object.assign(process.env, {
    STEPWISE_RUNTIME: 'aws',
    STEPWISE_TRACING: 'false',
    STEPWISE_CONTENT_URL: ORIGIN,
    STEPWISE_CONTENT_SIGNING_KEY_ARN: ARN,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: standIn.endpoint,
    AWS_ACCESS_KEY_ID: 'x',
    AWS_SECRET_ACCESS_KEY: 'x',
    // No retries of the SDK's own: each read is one request, so the count says what the code did.
    AWS_MAX_ATTEMPTS: '1',
  });
  delete process.env.STEPWISE_CONTENT_SIGNING_KEY;
  reloadConfig();
});

beforeEach(() => {
  fault = null;
  reads = 0;
});

afterAll(async () => {
  process.env = saved;
  reloadConfig();
  await standIn.close();
});

describe('the content signing key from Secrets Manager', () => {
  it('is not kept when the read fails, then read once and kept for every URL', async () => {
    fault = { status: 400, type: 'AccessDeniedException' };
    await expect(contentFileUrl({ importid: 7, expires: 2_000_000_000 }, 'index.html')).rejects.toThrow(
      /refused by the stand-in/,
    );
    expect(reads).toBe(1);

    fault = null;
    const grant = { importid: 7, expires: Math.floor(Date.now() / 1000) + 60 };
    const url = await contentFileUrl(grant, 'sco/index.html?x=1');
    expect(url).toBe(`${ORIGIN}${contentPath(KEY, grant, 'sco/index.html')}?x=1`);
    // The token opens under the secret's value, as the edge checks it.
    const opened = openContentRequest(KEY, new URL(url).pathname, Math.floor(Date.now() / 1000));
    expect(opened).toMatchObject({ ok: true, importid: 7, path: 'sco/index.html' });
    expect(await contentSigningKey()).toBe(KEY);
    expect(reads).toBe(2);
  });

  it('refuses a secret too short to sign with (503), and an operator’s own key wins over the ARN', async () => {
    process.env.STEPWISE_CONTENT_SIGNING_KEY_ARN = SHORT_ARN;
    reloadConfig();
    await expect(contentSigningKey()).rejects.toBeInstanceOf(ServiceUnavailableError);
    process.env.STEPWISE_CONTENT_SIGNING_KEY = 'an-operator-key-of-their-own-0123456789';
    reloadConfig();
    expect(await contentSigningKey()).toBe('an-operator-key-of-their-own-0123456789');
    expect(reads).toBe(1);
    delete process.env.STEPWISE_CONTENT_SIGNING_KEY;
    process.env.STEPWISE_CONTENT_SIGNING_KEY_ARN = ARN;
    reloadConfig();
  });
});
