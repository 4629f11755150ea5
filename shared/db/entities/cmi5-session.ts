/**
 * cmi5 launch sessions (docs/lrs.md, decision 310): one per launch of an AU. It holds the
 * one-time fetch secret's hash (the fetch URL answers once: a conditional update), then the
 * auth-token's hash the AU authenticates to /xapi with (HTTP Basic, the session id and the token
 * secret), and where the AU is in its session (launched, initialized, terminated, abandoned).
 * pk CMI5SES#<session> / sk CMI5SES; gsi1 CMI5OPEN#<shard 0-7> / <padded created>#<session> while
 * the session is open (launched or initialized): what the abandon sweep reads, every shard
 * (decision 328); removed when it ends. `writes` counts the AU's stored requests: every one moves
 * the session in its statements' commit transaction on condition of the state and count it was
 * judged by, so two requests at once cannot both pass the AU rules (decision 328). The item
 * expires 30 days after its launch.
 */
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { db, tableName } from '../client.ts';
import { getItem } from '../items.ts';
import { padId } from '../keys.ts';
import { queryPage } from '../paging.ts';
import { isConditionFailed } from '../retry.ts';
import { recordFrom, recordsOf, type StoredRecord } from '../stored-item.ts';
import { INDEXES } from '../table.ts';
import type { LabelledWrite } from '../transactions.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const CMI5_SESSION_STATES = ['launched', 'initialized', 'terminated', 'abandoned'] as const;
export type Cmi5SessionState = (typeof CMI5_SESSION_STATES)[number];
const SESSION_SECONDS = 30 * 24 * 3600;
/** Open sessions are spread over this many gsi1 partitions (write sharding), read all by the sweep. */
export const OPEN_SHARDS = 8;

function openPartition(sessionId: string): string {
  return `CMI5OPEN#${Number.parseInt(sessionId.slice(-2), 16) % OPEN_SHARDS}`;
}

export const cmi5SessionItemSchema = z.strictObject({
  pk: z.string().check(z.regex(/^CMI5SES#[0-9a-f-]{36}$/)),
  sk: z.literal('CMI5SES'),
  entity: z.literal('Cmi5Session'),
  gsi1pk: z.optional(z.string().check(z.regex(/^CMI5OPEN#[0-7]$/))),
  gsi1sk: z.optional(z.string()),
  ttl: z.number(),
  session_id: z.string().check(z.regex(UUID)),
  registration: z.string().check(z.regex(UUID)),
  moduleid: z.int().check(z.positive()),
  userid: z.int().check(z.positive()),
  au_id: z.string(),
  actor: z.string(),
  launch_mode: z.enum(['Normal', 'Browse', 'Review']),
  fetch_hash: z.string().check(z.regex(/^[0-9a-f]{64}$/)),
  /** Set when the fetch URL answered: the SHA-256 of the auth-token's secret. */
  token_hash: z.nullable(z.string().check(z.regex(/^[0-9a-f]{64}$/))),
  state: z.enum(CMI5_SESSION_STATES),
  /** How many of the AU's requests were stored in the session (absent: none yet). */
  writes: z.optional(z.int().check(z.nonnegative())),
  created: z.number(),
  /** Who launched it: the learner from the player, an Admin by POST /admin/cmi5/launches (absent: made before). */
  created_by: z.optional(z.int().check(z.positive())),
  /** The Admin who abandoned it by a route (absent: the scheduled sweep did, or it did not end so). */
  abandoned_by: z.optional(z.int().check(z.positive())),
});

export type Cmi5SessionRecord = StoredRecord<typeof cmi5SessionItemSchema>;

export function sessionKey(sessionId: string) {
  return { pk: `CMI5SES#${sessionId}`, sk: 'CMI5SES' as const };
}

export async function insertCmi5Session(record: Cmi5SessionRecord): Promise<void> {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...sessionKey(record.session_id),
        entity: 'Cmi5Session',
        [INDEXES.gsi1.pk]: openPartition(record.session_id),
        [INDEXES.gsi1.sk]: `${padId(record.created)}#${record.session_id}`,
        ttl: record.created + SESSION_SECONDS,
        ...record,
      } satisfies z.input<typeof cmi5SessionItemSchema>,
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

export async function getCmi5Session(sessionId: string): Promise<Cmi5SessionRecord | undefined> {
  if (!UUID.test(sessionId)) return undefined;
  const item = await getItem(sessionKey(sessionId), { consistent: true });
  return item ? recordFrom(cmi5SessionItemSchema, item) : undefined;
}

/** The fetch URL's one answer: sets the token's hash only while none is set. False when it was used. */
export async function claimCmi5Fetch(sessionId: string, tokenHash: string): Promise<boolean> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: sessionKey(sessionId),
        UpdateExpression: 'SET token_hash = :hash',
        ConditionExpression: 'attribute_exists(pk) AND token_hash = :none',
        ExpressionAttributeValues: { ':hash': tokenHash, ':none': null },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailed(error)) return false;
    throw error;
  }
}

/**
 * Moves the session from `from` to `to`; an ended session (terminated, abandoned) leaves the open
 * index. An abandon an Admin asked for names them (`abandonedBy`). False when the session was not in `from`.
 */
export async function moveCmi5Session(
  sessionId: string,
  from: Cmi5SessionState,
  to: Cmi5SessionState,
  abandonedBy?: number,
): Promise<boolean> {
  const ends = to === 'terminated' || to === 'abandoned';
  const by = to === 'abandoned' && abandonedBy !== undefined;
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: sessionKey(sessionId),
        UpdateExpression: `SET #state = :to${by ? ', abandoned_by = :by' : ''}${ends ? ' REMOVE gsi1pk, gsi1sk' : ''}`,
        ConditionExpression: 'attribute_exists(pk) AND #state = :from',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':to': to, ':from': from, ...(by ? { ':by': abandonedBy } : {}) },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailed(error)) return false;
    throw error;
  }
}

/**
 * An AU request's move of its session, in the statements' commit transaction (label
 * `cmi5-session:<id>`): to `to`, one more write, on condition that the session is still in the
 * state and at the count the request was judged by. An ended session leaves the open index.
 */
export function cmi5SessionMove(record: Cmi5SessionRecord, to: Cmi5SessionState): LabelledWrite {
  const ends = to === 'terminated' || to === 'abandoned';
  const counted = record.writes !== undefined;
  return {
    label: `cmi5-session:${record.session_id}`,
    item: {
      Update: {
        TableName: tableName(),
        Key: sessionKey(record.session_id),
        UpdateExpression: `SET #state = :to, writes = :next${ends ? ' REMOVE gsi1pk, gsi1sk' : ''}`,
        ConditionExpression: `#state = :from AND ${counted ? 'writes = :writes' : 'attribute_not_exists(writes)'}`,
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: {
          ':to': to,
          ':from': record.state,
          ':next': (record.writes ?? 0) + 1,
          ...(counted ? { ':writes': record.writes } : {}),
        },
      },
    },
  };
}

/** Open sessions launched at or before `before` (seconds), oldest first, at most `limit`: every shard. */
export async function openCmi5SessionsBefore(before: number, limit: number): Promise<Cmi5SessionRecord[]> {
  const shards = await Promise.all(
    Array.from({ length: OPEN_SHARDS }, (_, shard) =>
      queryPage(
        {
          index: INDEXES.gsi1,
          partition: `CMI5OPEN#${shard}`,
          sortBetween: { from: padId(0), to: `${padId(before)}#~` },
        },
        { limit, offset: 0 },
      ),
    ),
  );
  return shards
    .flat()
    .map(recordsOf(cmi5SessionItemSchema))
    .sort((a, b) => a.created - b.created || a.session_id.localeCompare(b.session_id))
    .slice(0, limit);
}
