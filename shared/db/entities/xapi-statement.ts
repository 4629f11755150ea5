/**
 * xAPI statements of the site's own LRS (docs/lrs.md, decision 274).
 *
 * - XapiStatement: pk XSTMT#<statement id> / sk STMT. The statement as the LRS answers it
 *   (`body`, JSON text, immutable), what the client sent (`sent`, canonical JSON: what the
 *   same-id comparison reads), its `seq`, and `voided` (set once, by the voiding statement's
 *   commit). It is the commit marker of its own index items: readers take an index item only
 *   when the statement item exists with the same `seq`.
 * - XapiStatementIndex (decision 327): the partitions a statement is found by
 *   (XIDX#<filter>#<hash of the value>, XIDX#ALL for every statement), each with the sort key
 *   <seq>, carried three to an item: the table's key holds one of ALL, VERB, REG, CRED, gsi1 one
 *   related agent (RAGENT), gsi2 one related activity (RACT). A statement has as many items as its
 *   longest of those three lists (3 for a typical one, not 7); an item with nothing left for the
 *   table's key has pk XIDX#X#<hash of the statement id and the item's number>, which no reader
 *   asks for. They are written before the statement items commit (a batch of 100 statements has
 *   over 100 of them, more than one transaction holds), so nothing half-written is ever visible.
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
import { INDEXES, KEY } from '../table.ts';
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
  /** A related agent's partition (RAGENT) and the seq, in gsi1. */
  gsi1pk: z.optional(z.string().check(z.regex(/^XIDX#RAGENT#/))),
  gsi1sk: z.optional(z.string()),
  /** A related activity's partition (RACT) and the seq, in gsi2. */
  gsi2pk: z.optional(z.string().check(z.regex(/^XIDX#RACT#/))),
  gsi2sk: z.optional(z.string()),
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

/** Where a filter's partitions live: the table's key, gsi1 or gsi2 (decision 327). */
type IndexSlot = 'table' | 'gsi1' | 'gsi2';
const SLOT: Record<IndexKind, IndexSlot> = {
  ALL: 'table',
  VERB: 'table',
  REG: 'table',
  CRED: 'table',
  RAGENT: 'gsi1',
  RACT: 'gsi2',
};

/** A partition of a filter value: what a query reads and where. */
export interface IndexPartition {
  kind: IndexKind;
  partition: string;
}

export function statementKey(id: string) {
  return { pk: `XSTMT#${id.toLowerCase()}`, sk: 'STMT' as const };
}

export function indexPartition(kind: IndexKind, value = ''): IndexPartition {
  return { kind, partition: kind === 'ALL' ? 'XIDX#ALL' : `XIDX#${kind}#${sha256Hex(value)}` };
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

/**
 * A statement's index items: its partitions, three to an item (the table's key, gsi1, gsi2 by
 * kind), each taken only once the statement is committed. Duplicates are dropped.
 */
export function indexItems(partitions: IndexPartition[], seq: string, statementId: string) {
  const bySlot: Record<IndexSlot, string[]> = { table: [], gsi1: [], gsi2: [] };
  for (const { kind, partition } of partitions)
    if (!bySlot[SLOT[kind]].includes(partition)) bySlot[SLOT[kind]].push(partition);
  const count = Math.max(bySlot.table.length, bySlot.gsi1.length, bySlot.gsi2.length);
  return Array.from({ length: count }, (_, n) => {
    const gsi1 = bySlot.gsi1[n];
    const gsi2 = bySlot.gsi2[n];
    return {
      pk: bySlot.table[n] ?? `XIDX#X#${sha256Hex(`${statementId}#${n}`)}`,
      sk: seq,
      entity: 'XapiStatementIndex',
      statement_id: statementId,
      ...(gsi1 ? { gsi1pk: gsi1, gsi1sk: seq } : {}),
      ...(gsi2 ? { gsi2pk: gsi2, gsi2sk: seq } : {}),
    } satisfies z.input<typeof statementIndexItemSchema>;
  });
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
export async function writeBeforeCommit(
  items: Array<ReturnType<typeof indexItems>[number] | ReturnType<typeof activityItem>>,
) {
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

/** The seq just after `seq` and the one just before it (seqs have one length: no seq lies between). */
export function seqAfter(seq: string): string {
  return `${seq} `;
}
export function seqBefore(seq: string): string {
  return `${seq.slice(0, -1)}${String.fromCharCode(seq.charCodeAt(seq.length - 1) - 1)}~`;
}

/**
 * One page of a filter's index items between two seqs (inclusive), in stored order or its
 * reverse, starting after `afterSeq` (a `more` cursor). A Query of one partition, of the table
 * (read consistently) or of the GSI that holds the filter's kind; no filter expression.
 */
export async function queryIndex(input: {
  partition: IndexPartition;
  from: string;
  to: string;
  ascending: boolean;
  afterSeq?: string;
  limit: number;
}): Promise<IndexPage> {
  const slot = SLOT[input.partition.kind];
  const names = slot === 'table' ? KEY : INDEXES[slot];
  let { from, to } = input;
  if (input.afterSeq !== undefined) {
    if (input.ascending) from = from > input.afterSeq ? from : seqAfter(input.afterSeq);
    else to = to < input.afterSeq ? to : seqBefore(input.afterSeq);
  }
  if (from > to) return { entries: [] };
  const result = await db().send(
    new QueryCommand({
      TableName: tableName(),
      ...(slot === 'table' ? { ConsistentRead: true } : { IndexName: INDEXES[slot].name }),
      KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
      ExpressionAttributeNames: { '#pk': names.pk, '#sk': names.sk },
      ExpressionAttributeValues: { ':pk': input.partition.partition, ':from': from, ':to': to },
      ScanIndexForward: input.ascending,
      Limit: input.limit,
    }),
  );
  const entries = (result.Items ?? []).map((item) => {
    const parsed = parseStored(statementIndexItemSchema, item);
    return { seq: parsed.sk, statementId: parsed.statement_id };
  });
  const last = entries.at(-1)?.seq;
  return { entries, lastSeq: result.LastEvaluatedKey && last !== undefined ? last : undefined };
}
