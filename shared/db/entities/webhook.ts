/**
 * Webhooks and their deliveries.
 * - Webhook: pk WEBHOOK#<webhookid> / sk WEBHOOK, listed through gsi1 (WEBHOOKS, padded id).
 *   Its `secret` is stored as given (the deliverer needs it to sign; docs/decisions/) and
 *   never leaves the server after the create response.
 * - Delivery (one per event and webhook): pk WEBHOOK#<webhookid> / sk DELIVERY#<event
 *   sequence>#<deliveryid>, so a webhook's deliveries list newest first with one Query. The
 *   deliveryid is derived from (eventid, webhookid): fanning an event out twice finds the
 *   delivery already there (attribute_not_exists), so a restart never duplicates one.
 *   While not finished a delivery is in two sparse indexes:
 *   - due: gsi1 WEBHOOK#DUE / <padded epoch ms it is due>#<sequence>#<deliveryid> (a claimed
 *     delivery is due again when its lease runs out, so a crashed deliverer's claim comes back);
 *   - its queue: gsi2 WEBHOOK#<webhookid>#QUEUE#<event entity> / <sequence>#<deliveryid>: a
 *     delivery waits while an earlier one of the same entity to the same webhook is unfinished.
 * - Claim and ack are conditional updates: a claim takes a due delivery (pending and due, or
 *   delivering with its lease run out) and counts the attempt; the ack applies only while the
 *   delivery is still held by that attempt (status delivering and attempts unchanged).
 */
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { db, tableName } from '../client.ts';
import { padId } from '../keys.ts';
import { INDEXES, TTL_ATTRIBUTE } from '../table.ts';
import { queryAll, queryFirst, queryPage } from '../paging.ts';
import type { LabelledWrite } from '../transactions.ts';
import { recordFrom, recordsOf, type FilledRecord, type StoredRecord } from '../stored-item.ts';
import * as z from 'zod/mini';
import { serviceAuthorSchema } from './api-token.ts';

/** A Webhook item as webhookCreateWrite writes it. */
export const webhookItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.literal('WEBHOOK'),
  entity: z.literal('Webhook'),
  gsi1pk: z.literal('WEBHOOKS'),
  gsi1sk: z.string(),
  webhookid: z.int().check(z.positive()),
  url: z.string(),
  /** Event names, or ["*"] for every event. */
  events: z.array(z.string()),
  active: z.boolean(),
  secret: z.string(),
  /** null for a site API token, named by created_by_token (decision 260); 0: a token's, before it. */
  created_by: z.nullable(z.int()),
  created_by_token: z.optional(serviceAuthorSchema),
  created_date: z.number(),
  /**
   * When it was created, in epoch ms: events that happened before are not delivered to it (decision
   * 171). Absent on webhooks stored before it existed (and on migrated ones): created_date counts then.
   */
  created_at_ms: z.optional(z.number()),
  modified_date: z.number(),
  version: z.int(),
});

export type WebhookRecord = StoredRecord<typeof webhookItemSchema>;

export type DeliveryStatus = 'pending' | 'delivering' | 'succeeded' | 'failed';

const DUE_PARTITION = 'WEBHOOK#DUE';
const DELIVERY_RETENTION_SECONDS = 30 * 24 * 3600;

/** A WebhookDelivery as insertDelivery puts it; the claim and finish updates SET and REMOVE the rest. */
export const webhookDeliveryItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.string(),
  entity: z.literal('WebhookDelivery'),
  /** The due and queue indexes, removed once the delivery is finished. */
  gsi1pk: z.optional(z.string()),
  gsi1sk: z.optional(z.string()),
  gsi2pk: z.optional(z.string()),
  gsi2sk: z.optional(z.string()),
  ttl: z.number(),
  deliveryid: z.string(),
  /** 0: the xAPI target (shared/events/deliverer.ts). */
  webhookid: z.int().check(z.nonnegative()),
  eventid: z.string(),
  event: z.string(),
  /** The entity the event is about (its queue). */
  subject: z.string(),
  sequence: z.string(),
  /** The exact body sent on every attempt (the signature covers these bytes). */
  body: z.string(),
  status: z.enum(['pending', 'delivering', 'succeeded', 'failed']),
  attempts: z.int(),
  last_response_code: z.nullable(z.int()),
  last_error: z.nullable(z.string()),
  created_date: z.number(),
  /** Epoch ms; null once finished. */
  next_attempt_at: z.nullable(z.number()),
  lease_until: z.optional(z.nullable(z.number())),
  first_attempt_at: z.optional(z.nullable(z.number())),
  finished_date: z.nullable(z.number()),
});

/** As read (deliveryFromItem): lease_until and first_attempt_at, absent on older deliveries, read as null. */
export type DeliveryRecord = FilledRecord<typeof webhookDeliveryItemSchema, 'lease_until' | 'first_attempt_at'>;

export function webhookKey(webhookid: number) {
  return { pk: `WEBHOOK#${webhookid}`, sk: 'WEBHOOK' as const };
}

export function deliveryKey(delivery: Pick<DeliveryRecord, 'webhookid' | 'sequence' | 'deliveryid'>) {
  return { pk: `WEBHOOK#${delivery.webhookid}`, sk: `DELIVERY#${delivery.sequence}#${delivery.deliveryid}` };
}

const queuePartition = (delivery: Pick<DeliveryRecord, 'webhookid' | 'subject'>) =>
  `WEBHOOK#${delivery.webhookid}#QUEUE#${delivery.subject}`;
const queueSortKey = (delivery: Pick<DeliveryRecord, 'sequence' | 'deliveryid'>) =>
  `${delivery.sequence}#${delivery.deliveryid}`;
const dueSortKey = (atMs: number, delivery: Pick<DeliveryRecord, 'sequence' | 'deliveryid'>) =>
  `${String(atMs).padStart(13, '0')}#${delivery.sequence}#${delivery.deliveryid}`;

const asWebhook = recordsOf(webhookItemSchema);
/** lease_until is removed when an attempt ends, first_attempt_at set by the first claim: absent reads as null. */
const asDelivery = (item: Record<string, unknown>): DeliveryRecord => {
  const delivery = recordFrom(webhookDeliveryItemSchema, item);
  return {
    ...delivery,
    lease_until: delivery.lease_until ?? null,
    first_attempt_at: delivery.first_attempt_at ?? null,
  };
};

// ---- webhooks ----

export async function insertWebhook(webhook: WebhookRecord): Promise<void> {
  await db().send(new PutCommand(webhookCreateWrite(webhook).item.Put!));
}

/** The put of insertWebhook (the explicit-id path: a migration writes a source's webhook with its id). */
export function webhookCreateWrite(webhook: WebhookRecord): LabelledWrite {
  return {
    label: 'webhook',
    item: {
      Put: {
        TableName: tableName(),
        Item: {
          ...webhookKey(webhook.webhookid),
          entity: 'Webhook',
          [INDEXES.gsi1.pk]: 'WEBHOOKS',
          [INDEXES.gsi1.sk]: padId(webhook.webhookid),
          ...webhook,
        } satisfies z.input<typeof webhookItemSchema>,
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  };
}

export async function getWebhook(webhookid: number): Promise<WebhookRecord | undefined> {
  const result = await db().send(
    new GetCommand({ TableName: tableName(), Key: webhookKey(webhookid), ConsistentRead: true }),
  );
  return result.Item ? asWebhook(result.Item) : undefined;
}

export async function listWebhooks(page: { limit: number; offset: number }): Promise<WebhookRecord[]> {
  return (await queryPage({ index: INDEXES.gsi1, partition: 'WEBHOOKS' }, page)).map(asWebhook);
}

/** Every webhook (the deliverer's fan-out; a site has a handful). */
export async function listAllWebhooks(): Promise<WebhookRecord[]> {
  return (await queryAll({ index: INDEXES.gsi1, partition: 'WEBHOOKS' })).map(asWebhook);
}

/** Replaces a webhook read at `before.version`; false when it changed or went away meanwhile. */
export async function replaceWebhook(before: WebhookRecord, after: WebhookRecord): Promise<boolean> {
  try {
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...webhookKey(after.webhookid),
          entity: 'Webhook',
          [INDEXES.gsi1.pk]: 'WEBHOOKS',
          [INDEXES.gsi1.sk]: padId(after.webhookid),
          ...after,
        } satisfies z.input<typeof webhookItemSchema>,
        ConditionExpression: 'attribute_exists(pk) AND version = :version',
        ExpressionAttributeValues: { ':version': before.version },
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/** Deletes a webhook; false when there was none. Its unfinished deliveries fail when next due. */
export async function deleteWebhook(webhookid: number): Promise<boolean> {
  try {
    await db().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: webhookKey(webhookid),
        ConditionExpression: 'attribute_exists(pk)',
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

// ---- deliveries ----

/** Creates a delivery due at `dueAt` (epoch ms) unless it exists already; true when created. */
export async function insertDelivery(delivery: DeliveryRecord, dueAt: number): Promise<boolean> {
  try {
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...deliveryKey(delivery),
          entity: 'WebhookDelivery',
          [INDEXES.gsi1.pk]: DUE_PARTITION,
          [INDEXES.gsi1.sk]: dueSortKey(dueAt, delivery),
          [INDEXES.gsi2.pk]: queuePartition(delivery),
          [INDEXES.gsi2.sk]: queueSortKey(delivery),
          [TTL_ATTRIBUTE]: delivery.created_date + DELIVERY_RETENTION_SECONDS,
          ...delivery,
          // Absent until the first claim sets it (if_not_exists).
          first_attempt_at: undefined,
          next_attempt_at: dueAt,
        } satisfies z.input<typeof webhookDeliveryItemSchema>,
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/** A webhook's deliveries, newest first. */
export async function listDeliveries(
  webhookid: number,
  page: { limit: number; offset: number },
): Promise<DeliveryRecord[]> {
  return (await queryPage({ partition: `WEBHOOK#${webhookid}`, sortPrefix: 'DELIVERY#', descending: true }, page)).map(
    asDelivery,
  );
}

export async function getDelivery(
  key: Pick<DeliveryRecord, 'webhookid' | 'sequence' | 'deliveryid'>,
): Promise<DeliveryRecord | undefined> {
  const result = await db().send(
    new GetCommand({ TableName: tableName(), Key: deliveryKey(key), ConsistentRead: true }),
  );
  return result.Item ? asDelivery(result.Item) : undefined;
}

/** Deliveries due by `nowMs` (claimable ones and expired claims), soonest first. */
export async function listDueDeliveries(nowMs: number, limit: number): Promise<DeliveryRecord[]> {
  const items = await queryPage(
    {
      index: INDEXES.gsi1,
      partition: DUE_PARTITION,
      // Due keys start with the 13-digit due time: every one sorts after '0'.
      sortBetween: { from: '0', to: `${String(nowMs).padStart(13, '0')}~` },
    },
    { limit, offset: 0 },
  );
  return items.map(asDelivery);
}

/** True when an earlier delivery of the same entity to the same webhook is still unfinished. */
export async function hasEarlierUnfinished(delivery: DeliveryRecord): Promise<boolean> {
  const earlier = await queryFirst({
    index: INDEXES.gsi2,
    partition: queuePartition(delivery),
    sortBefore: queueSortKey(delivery),
  });
  return earlier !== undefined;
}

/**
 * Claims a due delivery for one attempt, held until `leaseUntil` (epoch ms). Returns the
 * delivery as claimed (attempts counted), or undefined when someone else holds it or it is
 * no longer due.
 */
export async function claimDelivery(
  delivery: DeliveryRecord,
  nowMs: number,
  leaseUntil: number,
): Promise<DeliveryRecord | undefined> {
  try {
    const result = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: deliveryKey(delivery),
        UpdateExpression:
          'SET #status = :delivering, attempts = attempts + :one, lease_until = :lease, #dsk = :dsk, ' +
          'first_attempt_at = if_not_exists(first_attempt_at, :now)',
        ConditionExpression:
          '(#status = :pending AND next_attempt_at <= :now) OR (#status = :delivering AND lease_until <= :now)',
        ExpressionAttributeNames: { '#status': 'status', '#dsk': INDEXES.gsi1.sk },
        ExpressionAttributeValues: {
          ':delivering': 'delivering',
          ':pending': 'pending',
          ':one': 1,
          ':lease': leaseUntil,
          ':dsk': dueSortKey(leaseUntil, delivery),
          ':now': nowMs,
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return asDelivery(result.Attributes!);
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return undefined;
    throw error;
  }
}

export type AttemptOutcome =
  | { kind: 'succeeded'; responseCode: number; at: number }
  | { kind: 'retry'; responseCode: number | null; error: string | null; nextAttemptAt: number }
  | { kind: 'failed'; responseCode: number | null; error: string | null; at: number };

/**
 * Records the outcome of the attempt that claimed `claimed`; false when the claim was lost
 * meanwhile (its lease ran out and another deliverer took it), in which case nothing changes.
 */
export async function finishAttempt(claimed: DeliveryRecord, outcome: AttemptOutcome): Promise<boolean> {
  const names: Record<string, string> = { '#status': 'status', '#dsk': INDEXES.gsi1.sk };
  const values: Record<string, unknown> = { ':delivering': 'delivering', ':attempts': claimed.attempts };
  let update: string;
  if (outcome.kind === 'retry') {
    Object.assign(values, {
      ':pending': 'pending',
      ':code': outcome.responseCode,
      ':error': outcome.error,
      ':next': outcome.nextAttemptAt,
      ':dsk': dueSortKey(outcome.nextAttemptAt, claimed),
    });
    update =
      'SET #status = :pending, last_response_code = :code, last_error = :error, next_attempt_at = :next, ' +
      '#dsk = :dsk REMOVE lease_until';
  } else {
    const code = outcome.responseCode;
    const error = outcome.kind === 'failed' ? outcome.error : null;
    Object.assign(values, {
      ':final': outcome.kind,
      ':code': code,
      ':error': error,
      ':at': Math.floor(outcome.at / 1000),
      ':null': null,
    });
    Object.assign(names, { '#dpk': INDEXES.gsi1.pk, '#qpk': INDEXES.gsi2.pk, '#qsk': INDEXES.gsi2.sk });
    update =
      'SET #status = :final, last_response_code = :code, last_error = :error, finished_date = :at, ' +
      'next_attempt_at = :null REMOVE lease_until, #dpk, #dsk, #qpk, #qsk';
  }
  names['#attempts'] = 'attempts';
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: deliveryKey(claimed),
        UpdateExpression: update,
        ConditionExpression: '#status = :delivering AND #attempts = :attempts',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}
