/**
 * `npm run secrets:rotate` (decision 240): the identity providers' secrets re-sealed from the
 * old STEPWISE_SECRETS_KEY to a new one, the keys read from standard input. A stack of its own
 * with a key of its own: the rotation touches every provider of its table.
 */
import { spawnSync } from 'node:child_process';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { atRestKey, openAtRest } from '../../shared/domain/secret-at-rest.ts';
import { signRemoteLogin } from '../../shared/domain/remote-login.ts';
import { apiAt, uniqueSuffix } from '../support/api.ts';
import { localDb } from '../support/local-db.ts';
import { startStackProcess, type RunningStack } from '../support/local-stack-process.ts';

const OLD_KEY = 'the-old-secrets-key-of-this-site-0123';
const NEW_KEY = 'the-new-secrets-key-of-this-site-4567';
const SECRET = 'the-customer-sso-secret-0123456789';

let stack: RunningStack;
let admin: string;

beforeAll(async () => {
  stack = await startStackProcess({
    STEPWISE_ADMIN_EMAIL: 'admin@example.com',
    STEPWISE_ADMIN_PASSWORD: 'stepwise-admin',
    STEPWISE_SECRETS_KEY: OLD_KEY,
  });
  const login = await apiAt(stack.url, 'POST', '/user/token', {
    body: { email: 'admin@example.com', password: 'stepwise-admin' },
  });
  admin = login.body.authToken;
  for (const body of [
    {
      kind: 'remote_login',
      name: 'Intranet',
      login_url: 'https://intranet.example.com/sso',
      secret: SECRET,
      jit: true,
    },
    {
      providerid: 'okta',
      kind: 'oidc',
      name: 'Okta',
      issuer: 'https://example.okta.com',
      client_id: 'client-1',
      client_secret: 'the-okta-client-secret',
    },
  ]) {
    expect((await apiAt(stack.url, 'POST', '/admin/identity_providers', { token: admin, body })).status).toBe(201);
  }
}, 60_000);

afterAll(() => stack?.stop());

function rotate(input: string) {
  return spawnSync(process.execPath, ['--import', 'tsx', 'infra/ops/rotate-secrets-key.ts', '--table', 'stepwise'], {
    input,
    encoding: 'utf8',
    env: {
      ...process.env,
      DDB_ENDPOINT: stack.ddbEndpoint,
      AWS_ACCESS_KEY_ID: 'x',
      AWS_SECRET_ACCESS_KEY: 'x',
      AWS_REGION: 'us-east-1',
      LOG_LEVEL: 'ERROR',
    },
  });
}

const remoteLogin = () => {
  const suffix = uniqueSuffix();
  const query = signRemoteLogin(
    { userid: `emp-${suffix}`, email: `emp.${suffix}@example.com`, name: 'Emp', t: Math.floor(Date.now() / 1000) },
    SECRET,
  );
  return fetch(`${stack.url.replace(/\/api\/2\.0$/, '')}/Guide/User/remote_login?${query}`, { redirect: 'manual' });
};

async function sealed(providerid: string, field: 'secret' | 'client_secret'): Promise<string> {
  const { Item } = await localDb(stack.ddbEndpoint).send(
    new GetCommand({ TableName: 'stepwise', Key: { pk: `IDP#${providerid}`, sk: 'IDP' } }),
  );
  return Item![`${field}_sealed`];
}

describe('npm run secrets:rotate', () => {
  it('re-seals every provider secret under the new key; the old key no longer opens them', async () => {
    expect((await remoteLogin()).status).toBe(303);
    const run = rotate(`${OLD_KEY}\n${NEW_KEY}\n`);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('Re-sealed 2 secret(s) under the new key; 0 already were.');
    for (const [providerid, field, secret] of [
      ['remote_login', 'secret', SECRET],
      ['okta', 'client_secret', 'the-okta-client-secret'],
    ] as const) {
      const value = await sealed(providerid, field);
      const binding = `IDP#${providerid}#${field}`;
      expect(openAtRest(value, atRestKey(NEW_KEY), binding)).toBe(secret);
      expect(openAtRest(value, atRestKey(OLD_KEY), binding)).toBeUndefined();
    }
    // The stack still runs with the old key: the secret no longer opens there.
    expect((await remoteLogin()).status).toBe(503);
  });

  it('is rerunnable, and names what neither key opens (exit 1, left as it was)', async () => {
    const again = rotate(`${OLD_KEY}\n${NEW_KEY}\n`);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toContain('Re-sealed 0 secret(s) under the new key; 2 already were.');
    const before = await sealed('okta', 'client_secret');
    const wrong = rotate('some-key-that-was-never-used\nyet-another-key-never-used\n');
    expect(wrong.status).toBe(1);
    expect(wrong.stdout).toMatch(/left as they were.*okta client_secret, remote_login secret/s);
    expect(await sealed('okta', 'client_secret')).toBe(before);
  });

  it('refuses missing, short or identical keys before touching anything', () => {
    expect(rotate(`${OLD_KEY}\n`).status).toBe(2);
    expect(rotate('short\nalso-short\n').status).toBe(2);
    const same = rotate(`${NEW_KEY}\n${NEW_KEY}\n`);
    expect(same.status).toBe(2);
    expect(same.stderr).toContain('nothing to do');
  });
});
