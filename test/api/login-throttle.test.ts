/**
 * The login throttle's policy, driven directly against the test stack's DynamoDB with a clock
 * the test moves (only Date is faked): over HTTP the address limit (1000 in the test stack) and
 * the delays (minutes) are out of reach. Limits here: 2 free failures per account, 20 per address.
 * Last, a sign-in's DynamoDB round trips (the auth group's handler in this process, every command
 * counted through the SDK client hook as test/api/guide-list-round-trips.test.ts does).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, inject, vi } from 'vitest';
import { reloadConfig } from '../../shared/config.ts';
import { TooManyRequestsError } from '../../shared/domain/errors.ts';
import { FIRST_DELAY_SECONDS, MAX_DELAY_SECONDS } from '../../shared/domain/login-delay.ts';
import { hashPassword } from '../../shared/domain/secrets.ts';
import { passwordAccepted } from '../../shared/accounts/login-throttle.ts';
import { createUser } from '../support/api.ts';
import { countDynamoDbCommands, type DynamoDbCommands } from '../support/dynamodb-commands.ts';
import { apiEvent } from '../bench/api-event.ts';

let passwordHash: string;
let clock = Date.UTC(2030, 0, 1);
let dynamoDb: DynamoDbCommands;

beforeAll(async () => {
  // Before any client exists: every client this process creates counts its commands.
  dynamoDb = countDynamoDbCommands();
  process.env.DDB_ENDPOINT = inject('ddbEndpoint');
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
  process.env.STEPWISE_LOGIN_MAX_FAILURES = '2';
  process.env.STEPWISE_LOGIN_MAX_FAILURES_PER_ADDRESS = '20';
  process.env.STEPWISE_LOGIN_WINDOW_SECONDS = '1800';
  reloadConfig();
  passwordHash = await hashPassword('the-right-password');
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(clock);
});

afterAll(() => {
  vi.useRealTimers();
  dynamoDb.uninstall();
});

function advance(seconds: number): void {
  clock += seconds * 1000;
  vi.setSystemTime(clock);
}

const account = () => `victim.${randomUUID()}@example.com`;
const address = () =>
  `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;

/** true/false for a checked password, or the seconds to wait when the attempt is held back. */
async function attempt(email: string, sourceIp: string, password: string): Promise<boolean | { retryAfter: number }> {
  try {
    return await passwordAccepted({ account: email, sourceIp, passwordHash, password });
  } catch (error) {
    if (error instanceof TooManyRequestsError) return { retryAfter: error.retryAfterSeconds };
    throw error;
  }
}

describe('per-account delay', () => {
  it('doubles the wait with each failure past the free ones, up to the cap', async () => {
    const email = account();
    const attacker = address();
    expect(await attempt(email, attacker, 'guess-1')).toBe(false);
    expect(await attempt(email, attacker, 'guess-2')).toBe(false);
    const waits: number[] = [];
    for (let failure = 0; failure < 7; failure++) {
      const held = await attempt(email, attacker, 'the-right-password');
      expect(held).toHaveProperty('retryAfter');
      const wait = (held as { retryAfter: number }).retryAfter;
      waits.push(wait);
      advance(wait);
      expect(await attempt(email, attacker, `guess-${failure + 3}`)).toBe(false);
    }
    expect(waits).toEqual([30, 60, 120, 240, 480, 900, 900]);
    expect(waits.at(-1)).toBe(MAX_DELAY_SECONDS);
    expect(waits[0]).toBe(FIRST_DELAY_SECONDS);
  });

  it("never holds back an address without failures, and the owner's login does not free the attacker", async () => {
    const email = account();
    const attacker = address();
    for (let i = 0; i < 3; i++) await attempt(email, attacker, `guess-${i}`);
    expect(await attempt(email, attacker, 'the-right-password')).toHaveProperty('retryAfter');
    expect(await attempt(email, address(), 'the-right-password')).toBe(true);
    // The delay is kept per address and account (decision 170): the owner's success clears only
    // the owner's own pair, so the attacker's next guess is still held back.
    expect(await attempt(email, attacker, 'guess-again')).toHaveProperty('retryAfter');
  });

  it('forgets the run a window after its last failure', async () => {
    const email = account();
    const attacker = address();
    for (let i = 0; i < 2; i++) await attempt(email, attacker, `guess-${i}`);
    advance(1800);
    // Past the window both counters are gone: two more free failures, then the first delay again.
    expect(await attempt(email, attacker, 'guess-3')).toBe(false);
    expect(await attempt(email, attacker, 'guess-4')).toBe(false);
    expect(await attempt(email, attacker, 'guess-5')).toEqual({ retryAfter: FIRST_DELAY_SECONDS });
  });
});

describe('per-address limit', () => {
  it('refuses an address past its failures across accounts, until its window ends', async () => {
    const attacker = address();
    for (let i = 0; i < 20; i++) expect(await attempt(account(), attacker, 'guess')).toBe(false);
    const held = await attempt(account(), attacker, 'the-right-password');
    expect(held).toEqual({ retryAfter: 1800 });
    expect(await attempt(account(), address(), 'guess')).toBe(false);
    advance(1800);
    expect(await attempt(account(), attacker, 'guess')).toBe(false);
  });
});

describe('round trips', () => {
  it('POST /user/token reads the three throttle counters in one BatchGet', async () => {
    type Handler = (event: unknown, context: unknown) => Promise<{ statusCode: number }>;
    const handler = (await import('../../functions/auth/handler.ts')).handler as unknown as Handler;
    const user = await createUser();
    // No cache on this path: a cold container's first sign-in sends the same commands as a warm one's.
    const { commands, result: answer } = await dynamoDb.during(() =>
      handler(apiEvent('POST', '/user/token', { body: { email: user.email, password: user.password } }), {}),
    );
    expect(answer.statusCode).toBe(201);
    // The email's UNIQUE item, the user, the counters (address, pair, account), the token's put.
    expect(commands).toEqual(['GetItem', 'GetItem', 'BatchGetItem', 'PutItem']);
  });
});
