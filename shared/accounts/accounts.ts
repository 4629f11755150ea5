/**
 * Account use cases shared by registration, Admin creation, bulk invites and the first-Admin
 * bootstrap: create a user (unique email and unique_username enforced by DynamoDB), set a
 * password, and mint tokens.
 */
import { ConflictError, ValidationError } from '../domain/errors.ts';
import { newApiToken, sha256Hex } from '../domain/secrets.ts';
import { hashPassword } from './passwords.ts';
import { searchTokens } from '../domain/search-tokens.ts';
import { uniqueUsernameBase } from '../domain/user-rules.ts';
import { nextId, moveCounterPast } from '../db/counters.ts';
import { nowSeconds } from '../clock.ts';
import { getUser, insertUser, replaceUser, findUserIdBy, type UserRecord } from '../db/entities/user.ts';
import { putToken, deleteAllTokensOf, type TokenRecord } from '../db/entities/token.ts';
import { TransactionConditionFailed } from '../db/transactions.ts';
import { labelsIn, retryOnLostRace } from '../db/retry.ts';
import { config } from '../config.ts';
import type { Role } from '../domain/caller.ts';
import { credentialStamp, impersonatorStamp } from './credential-stamp.ts';

export interface NewAccount {
  email: string;
  username: string;
  /** Omitted for invited accounts: they set one through the emailed link. */
  password?: string;
  unique_username?: string;
  privileges?: Role[];
  created_by?: number | null;
  /** Explicit id for records migrated from the real service. */
  userid?: number;
  sso_userid?: string | null;
  employee_id?: string | null;
  /** SCIM provisioning: the userName as sent and the attributes kept beside (decision 284). */
  scim_username?: string;
  scim_profile?: Record<string, unknown>;
}

const FIELD_OF_UNIQUE: Record<string, string> = {
  EMAIL: 'email',
  UNIQUE_USERNAME: 'unique_username',
  SSO: 'sso_userid',
  EMPLOYEE_ID: 'employee_id',
  SCIM_USERNAME: 'userName',
};

/** Maps a failed uniqueness claim to the 422 the client should see. */
export function uniquenessProblem(error: unknown): ValidationError | undefined {
  if (!(error instanceof TransactionConditionFailed)) return undefined;
  const taken = error.failedLabels.filter((label) => FIELD_OF_UNIQUE[label]);
  if (taken.length === 0) return undefined;
  return new ValidationError(
    `${taken.map((label) => FIELD_OF_UNIQUE[label]).join(', ')} already in use`,
    taken.map((label) => ({
      field: FIELD_OF_UNIQUE[label],
      code: 'already_exists',
      message: `${FIELD_OF_UNIQUE[label]} is already in use`,
    })),
  );
}

/** A unique_username not yet taken, derived from a name: jane_doe, jane_doe2, ... */
export async function availableUniqueUsername(source: string, alsoTaken: Set<string> = new Set()): Promise<string> {
  const base = uniqueUsernameBase(source);
  for (let suffix = 1; suffix < 1000; suffix++) {
    const candidate = suffix === 1 ? base : `${base.slice(0, 30 - String(suffix).length)}${suffix}`;
    if (alsoTaken.has(candidate)) continue;
    if ((await findUserIdBy('UNIQUE_USERNAME', candidate)) === undefined) return candidate;
  }
  throw new ConflictError(`No free unique_username near ${base}`);
}

export async function createUserAccount(account: NewAccount): Promise<UserRecord> {
  const userid = account.userid ?? (await nextId('user'));
  const unique_username = account.unique_username ?? (await availableUniqueUsername(account.username));
  const user: UserRecord = {
    userid,
    username: account.username,
    unique_username,
    email: account.email.trim(),
    // An account without a password cannot log in until a reset link sets one.
    password_hash: account.password ? await hashPassword(account.password) : '!',
    privileges: account.privileges ?? ['User'],
    teams: [],
    join_date: nowSeconds(),
    reputation: 1,
    image: null,
    location: null,
    summary: null,
    about_raw: '',
    sso_userid: account.sso_userid ?? null,
    employee_id: account.employee_id ?? null,
    created_by: account.created_by ?? null,
    flags: [],
    badge_counts: { bronze: 0, silver: 0, gold: 0, total: 0 },
    search_tokens: searchTokens(account.username, unique_username),
    version: 1,
    ...(account.scim_username === undefined ? {} : { scim_username: account.scim_username }),
    ...(account.scim_profile === undefined ? {} : { scim_profile: account.scim_profile }),
  };
  try {
    await insertUser(user);
  } catch (error) {
    const problem = uniquenessProblem(error);
    if (problem) throw problem;
    if (error instanceof TransactionConditionFailed && error.failedLabels.includes('user')) {
      throw new ConflictError(`A user with userid ${userid} already exists`);
    }
    throw error;
  }
  if (account.userid !== undefined) await moveCounterPast('user', account.userid);
  return user;
}

/**
 * Sets a new password and revokes every token of the user (sessions end everywhere).
 * `onlyIfStamp`: set it only while the account's credential stamp is still that one (a reset
 * link's); otherwise `refused()` is thrown. Checked on the record the versioned write replaces.
 */
export async function setPassword(
  userid: number,
  password: string,
  precondition?: { onlyIfStamp: string | undefined; refused: () => Error },
): Promise<void> {
  await retryOnLostRace(
    async () => {
      const user = await getUser(userid);
      if (!user) throw new ValidationError('No such user');
      const stamp = precondition?.onlyIfStamp;
      if (stamp !== undefined && credentialStamp(user.password_hash) !== stamp) throw precondition!.refused();
      await replaceUser(user, { ...user, password_hash: await hashPassword(password) });
    },
    {
      attempts: 5,
      raceLabels: labelsIn('user'),
      message: 'The account changed while its password was being set; try again',
    },
  );
  await deleteAllTokensOf(userid);
}

/**
 * A new API token for a user: the token to hand out and the record to store (its hash only).
 * An impersonation token names its minter and the minter's stamp (password and email) at that moment.
 */
export function newTokenRecord(
  userid: number,
  minter: Pick<UserRecord, 'userid' | 'password_hash' | 'email'> | null = null,
): { token: string; record: TokenRecord } {
  const token = newApiToken(userid);
  const created = nowSeconds();
  return {
    token,
    record: {
      token_hash: sha256Hex(token),
      userid,
      created,
      expires: created + config().STEPWISE_TOKEN_TTL_DAYS * 86400,
      impersonator_userid: minter?.userid ?? null,
      ...(minter ? { impersonator_credential: impersonatorStamp(minter) } : {}),
    },
  };
}

/** Mints an API token for a user; only its hash is stored. */
export async function issueToken(userid: number): Promise<string> {
  const { token, record } = newTokenRecord(userid);
  await putToken(record);
  return token;
}
