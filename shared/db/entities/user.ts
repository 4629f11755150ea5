/**
 * User: pk USER#<userid> / sk USER. Listed through gsi1 (USERS, padded id); unique email,
 * unique_username, sso id and employee id through uniqueness items; found by name words
 * through the USER search partition. Users an account created: pk USER#<creator> /
 * sk CREATED#<userid>.
 */
import { outboxPut } from './outbox.ts';
import { domainEvent } from '../../domain/events/catalogue.ts';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../client.ts';
import { getItem } from '../items.ts';
import { padId } from '../keys.ts';
import { INDEXES } from '../table.ts';
import { claimUnique, releaseUnique, uniqueKey, type UniqueKind } from '../uniqueness.ts';
import { searchTokenWrites } from '../search-index.ts';
import { transactWrite, type LabelledWrite } from '../transactions.ts';
import { queryAll, queryPage, type PageQuery } from '../paging.ts';
import { batchGetParts, type BatchPart } from '../batch.ts';
import { ContainerCache } from '../container-cache.ts';
import { parseStored, recordFrom, type StoredRecordAs } from '../stored-item.ts';
import * as z from 'zod/mini';

const nullableText = z.nullable(z.string());

/**
 * A User item exactly as toItem writes it (plain, after unmarshall). Imports check every User
 * item against it (shared/db/entity-schemas.ts), so a file cannot plant `username: 5`.
 */
export const userItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.literal('USER'),
  entity: z.literal('User'),
  gsi1pk: z.literal('USERS'),
  gsi1sk: z.string().check(z.regex(/^\d{12,}$/)),
  userid: z.int().check(z.positive()),
  username: z.string(),
  unique_username: nullableText,
  email: z.string(),
  password_hash: z.string(),
  privileges: z.array(z.enum(['Admin', 'Author', 'User'])),
  teams: z.optional(z.set(z.int())),
  join_date: z.number(),
  reputation: z.number(),
  image: z.nullable(z.record(z.string(), z.unknown())),
  location: nullableText,
  summary: nullableText,
  about_raw: z.string(),
  sso_userid: nullableText,
  employee_id: nullableText,
  created_by: z.nullable(z.int()),
  /** Per-user feature flags (GET /user/flags). */
  flags: z.array(z.string()),
  badge_counts: z.strictObject({ bronze: z.int(), silver: z.int(), gold: z.int(), total: z.int() }),
  search_tokens: z.array(z.string()),
  /** Bumped on every replace; guards read-modify-write against a concurrent edit. */
  version: z.int(),
  /**
   * Set by SCIM deprovisioning (`active: false` or DELETE): the account signs in no more and its
   * tokens are gone; its records stay (docs/identity.md). Absent on accounts never disabled.
   */
  disabled: z.optional(z.boolean()),
  /**
   * Set (epoch seconds) by SCIM DELETE: the identity provider removed the person. The account
   * stays, disabled, with its records; SCIM answers 404 for it and lists it no more (decision 242).
   */
  scim_deleted_date: z.optional(z.number()),
  /**
   * The SCIM userName as the identity provider sent it (RFC 7643 §4.1.1), unique case aside;
   * absent on accounts SCIM never named, whose userName is their email (decision 284).
   */
  scim_username: z.optional(z.string()),
  /**
   * The SCIM attributes the account has no field for (name parts, emails as sent, title, phone
   * numbers, enterprise department ...), as the identity provider last set them (decision 284).
   */
  scim_profile: z.optional(z.record(z.string(), z.unknown())),
});

/** As read (userFromItem): the team ids, stored as a number set absent while empty, as a sorted list. */
export type UserRecord = StoredRecordAs<typeof userItemSchema, { teams: number[] }>;

/** The link of an account to a user it created. */
export const createdUserItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.string(),
  entity: z.literal('CreatedUser'),
  userid: z.int().check(z.positive()),
});

export function userKey(userid: number) {
  return { pk: `USER#${userid}`, sk: 'USER' as const };
}

/** The link from the account that made a user to that user. */
export function createdKey(creator: number, userid: number) {
  return { pk: `USER#${creator}`, sk: `CREATED#${padId(userid)}` };
}

export const usersCollection: PageQuery = { index: INDEXES.gsi1, partition: 'USERS' };

function fromItem(item: Record<string, unknown>): UserRecord {
  const record = recordFrom(userItemSchema, item);
  return { ...record, teams: [...(record.teams ?? [])].map(Number).sort((a, b) => a - b) };
}

function toItem(user: UserRecord): z.input<typeof userItemSchema> {
  const { teams, ...rest } = user;
  return {
    ...userKey(user.userid),
    entity: 'User',
    [INDEXES.gsi1.pk]: 'USERS',
    [INDEXES.gsi1.sk]: padId(user.userid),
    ...rest,
    ...(teams.length > 0 ? { teams: new Set(teams) } : {}),
  };
}

/** The unique values a user holds, each claimed by a uniqueness item. */
export function uniqueValues(
  user: Pick<UserRecord, 'email' | 'unique_username' | 'sso_userid' | 'employee_id' | 'scim_username'>,
): Array<[UniqueKind, string]> {
  const values: Array<[UniqueKind, string | null | undefined]> = [
    ['EMAIL', user.email],
    ['UNIQUE_USERNAME', user.unique_username],
    ['SSO', user.sso_userid],
    ['EMPLOYEE_ID', user.employee_id],
    ['SCIM_USERNAME', user.scim_username],
  ];
  return values.filter((entry): entry is [UniqueKind, string] => Boolean(entry[1]));
}

/**
 * The items of a new user: the user (only if its id is free), its uniqueness claims, search
 * words and creator link. Pure: the service adds its event; a migration passes the source's ids.
 */
export function userCreateWrites(user: UserRecord): LabelledWrite[] {
  const writes: LabelledWrite[] = [
    {
      label: 'user',
      item: { Put: { TableName: tableName(), Item: toItem(user), ConditionExpression: 'attribute_not_exists(pk)' } },
    },
    ...uniqueValues(user).map(([kind, value]) => claimUnique(kind, value, { userid: user.userid })),
    ...searchTokenWrites('USER', user.userid, [], user.search_tokens),
  ];
  if (user.created_by !== null) {
    writes.push({
      label: 'created-link',
      item: {
        Put: {
          TableName: tableName(),
          Item: {
            ...createdKey(user.created_by, user.userid),
            entity: 'CreatedUser',
            userid: user.userid,
          } satisfies z.input<typeof createdUserItemSchema>,
        },
      },
    });
  }
  return writes;
}

/** Creates a user with its uniqueness claims, search tokens and creator link, atomically. */
export async function insertUser(user: UserRecord): Promise<void> {
  await transactWrite([
    ...userCreateWrites(user),
    outboxPut(domainEvent('user.created', `USER#${user.userid}`, { userid: user.userid, username: user.username })),
  ]);
}

/**
 * Replaces a user's editable fields, moving uniqueness claims and search tokens in the same
 * transaction. Fails with label 'user' when someone else replaced it since `before` was read.
 */
export async function replaceUser(before: UserRecord, after: UserRecord): Promise<void> {
  const writes: LabelledWrite[] = [];
  const oldUnique = new Map(uniqueValues(before));
  const newUnique = new Map(uniqueValues(after));
  for (const [kind, value] of oldUnique) {
    if (newUnique.get(kind)?.toLowerCase() !== value.toLowerCase()) writes.push(releaseUnique(kind, value));
  }
  for (const [kind, value] of newUnique) {
    if (oldUnique.get(kind)?.toLowerCase() !== value.toLowerCase())
      writes.push(claimUnique(kind, value, { userid: after.userid }));
  }
  writes.push(...searchTokenWrites('USER', after.userid, before.search_tokens, after.search_tokens));
  const { teams, userid, version, ...fields } = { ...after, version: before.version + 1 };
  const names: Record<string, string> = { '#version': 'version' };
  const values: Record<string, unknown> = { ':expected': before.version, ':next': version };
  const sets = Object.entries(fields).map(([field, value], index) => {
    names[`#f${index}`] = field;
    values[`:v${index}`] = value;
    return `#f${index} = :v${index}`;
  });
  writes.push({
    label: 'user',
    item: {
      Update: {
        TableName: tableName(),
        Key: userKey(userid),
        UpdateExpression: `SET ${[...sets, '#version = :next'].join(', ')}`,
        ConditionExpression: 'attribute_exists(pk) AND #version = :expected',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      },
    },
  });
  await transactWrite(writes);
}

/**
 * User items authentication read with a caller's token, by userid: a handler asking for the
 * caller (GET /user, GET /users/{self}, a signature check) gets that copy, as old as the
 * authentication cache allows (container-cache.ts). Other users are always read.
 */
const callerItems = new ContainerCache<Record<string, unknown>>(1000);

/** A user; `consistent` reads the table (never the caller cache) with a consistent read. */
export async function getUser(userid: number, options: { consistent?: boolean } = {}): Promise<UserRecord | undefined> {
  const cached = options.consistent ? undefined : callerItems.get(String(userid));
  const item = cached ?? (await getItem(userKey(userid), { consistent: options.consistent }));
  return item ? fromItem(item) : undefined;
}

/** A caller's user item read with their token; getUser serves it until `validUntil`. */
export function callerFromItem(item: Record<string, unknown>, validUntil: number): UserRecord {
  const user = fromItem(item);
  callerItems.set(String(user.userid), item, validUntil);
  return user;
}

/** Users in the order of the ids asked for; a caller authentication cached is not read again. */
export async function getUsers(userids: number[]): Promise<UserRecord[]> {
  const [users] = await batchGetParts(usersPart(userids));
  return users;
}

/**
 * Users in the order of the ids asked for, as a share of a BatchGet: the callers whose items
 * authentication cached (callerItems) add no key, so a list of the caller's own guides reads
 * no user at all.
 */
export function usersPart(userids: number[]): BatchPart<UserRecord[]> {
  const cached = new Map<number, Record<string, unknown>>();
  for (const userid of userids) {
    const item = callerItems.get(String(userid));
    if (item) cached.set(userid, item);
  }
  return {
    keys: [...new Set(userids.filter((userid) => !cached.has(userid)))].map(userKey),
    decode(items) {
      const read = new Map(items.map((item) => [Number(item.userid), item]));
      return userids.flatMap((userid) => {
        const item = cached.get(userid) ?? read.get(userid);
        return item ? [fromItem(item)] : [];
      });
    },
  };
}

/** The userid holding a unique value (email, unique_username, sso id, employee id). */
export async function findUserIdBy(kind: UniqueKind, value: string): Promise<number | undefined> {
  const item = await getItem(uniqueKey(kind, value));
  return item ? Number(item.userid) : undefined;
}

export async function listUsers(page: { limit: number; offset: number }, descending = false): Promise<UserRecord[]> {
  const items = await queryPage({ ...usersCollection, descending }, page);
  return items.map(fromItem);
}

/** Users not in the team (no team set, or one without it), newest accounts first (team suggestions). */
export async function listUsersOutsideTeam(
  teamid: number,
  page: { limit: number; offset: number },
): Promise<UserRecord[]> {
  const items = await queryPage(
    {
      ...usersCollection,
      descending: true,
      filter: {
        FilterExpression: 'attribute_not_exists(teams) OR NOT contains(teams, :teamid)',
        ExpressionAttributeValues: { ':teamid': teamid },
      },
    },
    page,
  );
  return items.map(fromItem);
}

/** Users created by one account (POST /users by an Admin, createByEmails), oldest first. */
export async function listCreatedUserIds(creator: number, page: { limit: number; offset: number }): Promise<number[]> {
  const items = await queryPage({ partition: `USER#${creator}`, sortPrefix: 'CREATED#' }, page);
  return items.map((item) => parseStored(createdUserItemSchema, item).userid);
}

/** Adds to a user's reputation (and to the teams' aggregates, by the caller). */
export async function addReputation(userid: number, delta: number): Promise<void> {
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: userKey(userid),
      UpdateExpression: 'ADD reputation :delta',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':delta': delta },
    }),
  );
}

/**
 * The userids of the enabled Admins (the last-Admin rule, shared/accounts/account-authority.ts):
 * a Query of the user list keeping Admins that are not disabled, their ids only.
 */
export async function activeAdminUserids(): Promise<number[]> {
  const items = await queryAll({
    ...usersCollection,
    projection: ['userid'],
    filter: {
      FilterExpression: 'contains(#privileges, :admin) AND (attribute_not_exists(#disabled) OR #disabled = :no)',
      ExpressionAttributeNames: { '#privileges': 'privileges', '#disabled': 'disabled' },
      ExpressionAttributeValues: { ':admin': 'Admin', ':no': false },
    },
  });
  return items.map((item) => Number(item.userid));
}
