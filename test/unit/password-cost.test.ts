/**
 * The cost of new password hashes (decision 352): the local stack may lower it for the tests,
 * a deployed site never does, and a hash of either cost verifies under the other.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from '../../shared/accounts/passwords.ts';
import { reloadConfig } from '../../shared/config.ts';
import * as secrets from '../../shared/domain/secrets.ts';

const saved = { ...process.env };
function runWith(environment: Record<string, string>): void {
  Object.assign(process.env, environment);
  reloadConfig();
}

afterEach(() => {
  for (const name of ['STEPWISE_RUNTIME', 'STEPWISE_LOCAL_PASSWORD_HASH_COST']) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
  reloadConfig();
});

const costOf = (hash: string) => Number(hash.split('$')[1]);

describe('password hash cost', () => {
  it('is 16384 on a deployed site, whatever the local setting says', async () => {
    runWith({ STEPWISE_RUNTIME: 'aws', STEPWISE_LOCAL_PASSWORD_HASH_COST: '1024' });
    expect(costOf(await hashPassword('Secret-pass-1'))).toBe(secrets.PASSWORD_HASH_COST);
    expect(secrets.PASSWORD_HASH_COST).toBe(16384);
  });

  it('is the local setting on the local stack, and 16384 when unset', async () => {
    runWith({ STEPWISE_RUNTIME: 'local', STEPWISE_LOCAL_PASSWORD_HASH_COST: '1024' });
    expect(costOf(await hashPassword('Secret-pass-1'))).toBe(1024);
    delete process.env.STEPWISE_LOCAL_PASSWORD_HASH_COST;
    reloadConfig();
    expect(costOf(await hashPassword('Secret-pass-1'))).toBe(16384);
  });

  it('refuses a cost below 1024 or not a power of two', () => {
    for (const cost of ['16', '3000', 'cheap']) {
      process.env.STEPWISE_LOCAL_PASSWORD_HASH_COST = cost;
      expect(() => reloadConfig()).toThrow(/STEPWISE_LOCAL_PASSWORD_HASH_COST/);
    }
  });

  it('verifies a hash by the cost it names, so hashes of either cost sign in anywhere', async () => {
    runWith({ STEPWISE_RUNTIME: 'aws' });
    const cheap = await secrets.hashPassword('Secret-pass-1', 1024);
    expect(await verifyPassword('Secret-pass-1', cheap)).toBe(true);
    expect(await verifyPassword('Secret-pass-2', cheap)).toBe(false);
    runWith({ STEPWISE_RUNTIME: 'local', STEPWISE_LOCAL_PASSWORD_HASH_COST: '1024' });
    const deployed = await secrets.hashPassword('Secret-pass-1');
    expect(costOf(deployed)).toBe(16384);
    expect(await verifyPassword('Secret-pass-1', deployed)).toBe(true);
  });
});
