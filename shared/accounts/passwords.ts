/**
 * Password hashes at this site's cost. Deployed, always scrypt N=16384. The local stack may lower
 * it with STEPWISE_LOCAL_PASSWORD_HASH_COST: the tests create and sign in thousands of accounts, and
 * at N=16384 each hash is about 50 ms of CPU (decision 352). A hash names its own cost, so either
 * kind verifies anywhere.
 */
import { randomBytes } from 'node:crypto';
import { config } from '../config.ts';
import * as secrets from '../domain/secrets.ts';

function cost(): number {
  const { STEPWISE_RUNTIME, STEPWISE_LOCAL_PASSWORD_HASH_COST } = config();
  return STEPWISE_RUNTIME === 'local' ? STEPWISE_LOCAL_PASSWORD_HASH_COST : secrets.PASSWORD_HASH_COST;
}

export const hashPassword = (password: string) => secrets.hashPassword(password, cost());

export const verifyPassword = (password: string, stored: string) => secrets.verifyPassword(password, stored, cost());

/** A hash that costs the same as a real verify, used when no account exists (no enumeration). */
let decoy: Promise<string> | undefined;
export function decoyPasswordHash(): Promise<string> {
  decoy ??= hashPassword(randomBytes(12).toString('hex'));
  return decoy;
}
