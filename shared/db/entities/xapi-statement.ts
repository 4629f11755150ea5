/**
 * xAPI statements of the site's own LRS (docs/lrs.md, decision 274).
 *
 * - XapiStatement: pk XSTMT#<statement id> / sk STMT. The statement as the LRS answers it
 *   (`body`, JSON text, immutable), what the client sent (`sent`, canonical JSON: what the
 *   same-id comparison reads), its `seq`, and `voided` (set once, by the voiding statement's
 *   commit). It is the commit marker of its own index items: readers take an index item only
 *   when the statement item exists with the same `seq`.
 * - XapiStatementIndex: pk XIDX#<filter>#<hash of the value> (XIDX#ALL for every statement) /
 *   sk <seq>: one per filter value a statement can be found by, written before the statement
 *   items commit (a batch of 100 statements has over 100 of them, more than one transaction
 *   holds), so nothing half-written is ever visible.
 * - XapiActivity: pk XACT#<hash of the activity id> / sk ACTIVITY: the latest definition a
 *   statement gave the activity (GET /xapi/activities).
 *
 * `seq` is `<stored epoch ms, 15 digits>#<position in its batch, 3 digits>#<id>`: string order is
 * stored order, and since/until are ranges of it.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { db, tableName } from '../client.ts';
import { batchGetInOrder, batchPut } from '../batch.ts';
import { getItem } from '../items.ts';
import type { LabelledWrite } from '../transactions.ts';
import { parseStored, recordFrom, recordsOf, type StoredRecord } from '../stored-item.ts';
import { sha256Hex } from '../../domain/secrets.ts';

export const statementItemSchema = z.strictObject({
  pk: z.string().check(z.regex(/^XSTMT#[0-9a-f-]{36}$/)),
  sk: z.literal('STMT'),
  entity: z.literal('XapiStatement'),
  statement_id: z.string(),
  body: z.string(),
  sent: z.string(),
  seq: z.string(),
  stored: z.string(),
  /** The LRS credential whose request stored it (statements/read/mine). */
  credential: z.string(),
  voiding: z.boolean(),
  voided: z.optional(z.boolean()),
  /** SHA-2 digests of the attachment bodies it carries in the attachments bucket prefix. */
  attachments: z.optional(z.array(z.string())),
});

export type StatementRecord = StoredRecord<typeof statementItemSchema>;

export const statementIndexItemSchema = z.strictObject({
  pk: z.string().check(z.regex(/^XIDX#/)),
  sk: z.string(),
  entity: z.literal('XapiStatementIndex'),
  statement_id: z.string(),
});

export const activityItemSchema = z.strictObject({
  pk: z.string().check(z.regex(/^XACT#[0-9a-f]{64}$/)),
  sk: z.literal('ACTIVITY'),
  entity: z.literal('XapiActivity'),
  activity_id: z.string(),
  definition: z.string(),
});

/** The filters a statement is indexed by (each a partition of index items). */
export type IndexKind = 'ALL' | 'RAGENT' | 'VERB' | 'RACT' | 'REG' | 'CRED';

export function statementKey(id: string) {
  return { pk: `XSTMT#${id.toLowerCase()}`, sk: 'STMT' as const };
}

export function indexPartition(kind: IndexKind, value = ''): string {
  return kind === 'ALL' ? 'XIDX#ALL' : `XIDX#${kind}#${sha256Hex(value)}`;
}

export function activityKey(activityId: string) {
  return { pk: `XACT#${sha256Hex(activityId)}`, sk: 'ACTIVITY' as const };
}

export function seqOf(storedMs: number, position: number, id: string): string {
  return `${String(storedMs).padStart(15, '0')}#${String(position).padStart(3, '0')}#${id}`;
}

/** The first seq at or after `ms`, and the last one at or before it. */
export function seqFloor(ms: number): string {
  return String(Math.max(0, ms)).padStart(15, '0');
}
export function seqCeiling(ms: number): string {
  return `${String(Math.max(0, ms)).padStart(15, '0')}#~`;
}

/** An index item: found by its filter's partition, taken only once its statement is committed. */
export function indexItem(partition: string, seq: string, statementId: string) {
  return {
    pk: partition,
    sk: seq,
    entity: 'XapiStatementIndex',
    statement_id: statementId,
  } satisfies z.input<typeof statementIndexItemSchema>;
}

/** The latest definition a statement gave an activity. */
export function activityItem(activityId: string, definition: unknown) {
  return {
    ...activityKey(activityId),
    entity: 'XapiActivity',
    activity_id: activityId,
    definition: JSON.stringify(definition),
  } satisfies z.input<typeof activityItemSchema>;
}

/**
 * Writes index items and activity definitions before the statements' commit: no conditions, in
 * parallel batches (no reader takes an index item before its statement item exists). An
 * activity defined twice in one request is written once, with its last definition.
 */
export async function writeBeforeCommit(items: Array<ReturnType<typeof indexItem> | ReturnType<typeof activityItem>>) {
  const byKey = new Map(items.map((item) => [`${item.pk}\u0000${item.sk}`, item]));
  await batchPut([...byKey.values()]);
}

/** The statement's commit: only while no statement has its id (label `statement:<id>`). */
export function statementPut(record: StatementRecord): LabelledWrite {
  return {
    label: `statement:${record.statement_id}`,
    item: {
      Put: {
        TableName: tableName(),
        Item: {
          ...statementKey(record.statement_id),
          entity: 'XapiStatement',
          ...record,
        } satisfies z.input<typeof statementItemSchema>,
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  };
}

/** Marks a statement voided, in its voiding statement's commit; only a stored, non-voiding one. */
export function statementVoidUpdate(id: string): LabelledWrite {
  return {
    label: `voids:${id}`,
    item: {
      Update: {
        TableName: tableName(),
        Key: statementKey(id),
        UpdateExpression: 'SET voided = :true',
        ConditionExpression: 'attribute_exists(pk) AND voiding = :false',
        ExpressionAttributeValues: { ':true': true, ':false': false },
      },
    },
  };
}

export async function getStatement(id: string): Promise<StatementRecord | undefined> {
  const item = await getItem(statementKey(id), { consistent: true });
  return item ? recordFrom(statementItemSchema, item) : undefined;
}

export async function getStatements(ids: string[]): Promise<StatementRecord[]> {
  if (ids.length === 0) return [];
  const items = await batchGetInOrder(ids.map(statementKey));
  return items.map(recordsOf(statementItemSchema));
}

export async function getActivityDefinition(activityId: string): Promise<unknown | undefined> {
  const item = await getItem(activityKey(activityId));
  return item ? JSON.parse(recordFrom(activityItemSchema, item).definition) : undefined;
}

export interface IndexPage {
  entries: Array<{ seq: string; statementId: string }>;
  /** The last seq read when the partition goes on past this page. */
  lastSeq?: string;
}

/**
 * One page of a filter's index items between two seqs (inclusive), in stored order or its
 * reverse, starting after `afterSeq` (a `more` cursor). A Query of one partition; no filter.
 */
export async function queryIndex(input: {
  partition: string;
  from: string;
  to: string;
  ascending: boolean;
  afterSeq?: string;
  limit: number;
}): Promise<IndexPage> {
  const result = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': input.partition, ':from': input.from, ':to': input.to },
      ScanIndexForward: input.ascending,
      Limit: input.limit,
      ConsistentRead: true,
      ExclusiveStartKey: input.afterSeq ? { pk: input.partition, sk: input.afterSeq } : undefined,
    }),
  );
  const entries = (result.Items ?? []).map((item) => {
    const parsed = parseStored(statementIndexItemSchema, item);
    return { seq: parsed.sk, statementId: parsed.statement_id };
  });
  const last = result.LastEvaluatedKey?.sk;
  return { entries, lastSeq: typeof last === 'string' ? last : undefined };
}
