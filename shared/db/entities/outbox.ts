/**
 * The outbox: one item per event, written in the same transaction as the change it reports, so
 * there is never an event without its change nor a change without its event.
 *
 * Keys: pk OUTBOX#<entity> / sk EVT#<13-digit epoch ms>#<4-digit counter>#<eventid>, so the
 * events of one entity sort in the order they were written (the entity's own conditions
 * serialize its changes; the counter orders events written in the same millisecond by one
 * process). Until the deliverer has fanned an event out it is also in the pending index:
 * gsi1pk OUTBOX#PENDING / gsi1sk <same sequence>#<entity> (sparse: removed once dispatched).
 * On AWS the table's stream feeds new outbox items to the deliverer; the pending index is what
 * the local deliverer polls and what the scheduled sweep re-reads when a stream batch failed.
 * Items expire (TTL) 30 days after the event.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { db, tableName } from '../client.ts';
import { INDEXES, TTL_ATTRIBUTE } from '../table.ts';
import { batchGetInOrder } from '../batch.ts';
import { queryPage } from '../paging.ts';
import { isConditionFailed, isLostRace } from '../retry.ts';
import { createItemWrite, transactWrite, TransactionConditionFailed, type LabelledWrite } from '../transactions.ts';
import type { DomainEvent } from '../../domain/events/catalogue.ts';
import { type StoredEvent, storedEventSchema } from '../../domain/events/stored-event.ts';
import { parseStored } from '../stored-item.ts';
import * as z from 'zod/mini';

export const OUTBOX_ENTITY = 'OutboxEvent';
const PENDING_PARTITION = 'OUTBOX#PENDING';
const RETENTION_SECONDS = 30 * 24 * 3600;

/** An event as stored (shared/domain/events/stored-event.ts). */
export type OutboxEventRecord = StoredEvent;

/** An OutboxEvent as recordPut writes it; dispatch REMOVEs the index keys. */
export const outboxEventItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.string(),
  entity: z.literal(OUTBOX_ENTITY),
  gsi1pk: z.optional(z.string()),
  gsi1sk: z.optional(z.string()),
  ttl: z.number(),
  // The stored event, its entity kept as `subject`: `entity` names the item type on every item.
  ...z.omit(storedEventSchema, { entity: true }).shape,
  subject: z.string(),
  dispatched_at: z.optional(z.number()),
});

export const emittedMarkerItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.literal('EMITTED'),
  entity: z.literal('EmittedMarker'),
  name: z.string(),
  ttl: z.number(),
});

let lastMs = 0;
let counter = 0;

/** A sequence that grows within this process even when the clock stands still or steps back. */
function nextSequence(): string {
  const now = Date.now();
  if (now > lastMs) {
    lastMs = now;
    counter = 0;
  } else {
    counter += 1;
    if (counter > 9999) {
      lastMs += 1;
      counter = 0;
    }
  }
  return `${String(lastMs).padStart(13, '0')}#${String(counter).padStart(4, '0')}`;
}

export function outboxRecord(event: DomainEvent): OutboxEventRecord {
  const sequence = nextSequence();
  return {
    eventid: randomUUID(),
    name: event.name,
    entity: event.entity,
    sequence,
    occurred_at: Math.floor(Number(sequence.slice(0, 13)) / 1000),
    // A shallow copy: the payload's interface as the plain map it is stored as.
    data: { ...event.data },
    ...(event.target_webhookid !== undefined ? { target_webhookid: event.target_webhookid } : {}),
  };
}

export function outboxKey(record: Pick<OutboxEventRecord, 'entity' | 'sequence' | 'eventid'>) {
  return { pk: `OUTBOX#${record.entity}`, sk: `EVT#${record.sequence}#${record.eventid}` };
}

/** The transaction item that records an event; add it to the transaction of the change. */
export function outboxPut(event: DomainEvent, label = `event:${event.name}`): LabelledWrite {
  return recordPut(outboxRecord(event), label);
}

function recordPut(record: OutboxEventRecord, label: string): LabelledWrite {
  const { entity: subject, ...fields } = record;
  return createItemWrite(label, {
    ...outboxKey(record),
    entity: OUTBOX_ENTITY,
    [INDEXES.gsi1.pk]: PENDING_PARTITION,
    [INDEXES.gsi1.sk]: `${record.sequence}#${record.entity}`,
    [TTL_ATTRIBUTE]: record.occurred_at + RETENTION_SECONDS,
    ...fields,
    // `entity` names the item type on every item of the table; the event's entity is `subject`.
    subject,
  } satisfies z.input<typeof outboxEventItemSchema>);
}

/** Writes an event that is a change of its own (a webhook ping); returns it as stored. */
export async function putEvent(event: DomainEvent): Promise<OutboxEventRecord> {
  const record = outboxRecord(event);
  await transactWrite([recordPut(record, 'event')]);
  return record;
}

/** Outbox writes for several events (labels kept distinct within one transaction). */
export function outboxPuts(events: DomainEvent[]): LabelledWrite[] {
  return events.map((event, index) => outboxPut(event, `event:${event.name}:${index}`));
}

/** A stored outbox item back to its record. */
export function outboxFromItem(item: Record<string, unknown>): OutboxEventRecord {
  const stored = parseStored(outboxEventItemSchema, item);
  return {
    eventid: stored.eventid,
    name: stored.name,
    entity: stored.subject,
    sequence: stored.sequence,
    occurred_at: stored.occurred_at,
    data: stored.data,
    ...(stored.target_webhookid !== undefined ? { target_webhookid: stored.target_webhookid } : {}),
  };
}

export function isOutboxItem(item: Record<string, unknown>): boolean {
  return item.entity === OUTBOX_ENTITY;
}

/**
 * The outbox item a table stream record brings in new (an event inserted), else undefined. The
 * entity is read first: other items may hold numbers `unmarshall` refuses (beyond 2^53).
 */
export function newOutboxItem(record: DynamoDBRecord): Record<string, unknown> | undefined {
  const image = record.dynamodb?.NewImage;
  if (record.eventName !== 'INSERT' || image?.entity?.S !== OUTBOX_ENTITY) return undefined;
  return unmarshall(image as Record<string, AttributeValue>);
}

/**
 * The marker of something done once (label `emitted-marker` unless named), created on condition
 * it is absent: a transaction carrying it fails when it was done before.
 */
export function emittedMarkerWrite(marker: string, name: string, label = 'emitted-marker'): LabelledWrite {
  return createItemWrite(label, {
    pk: `EMITTED#${marker}`,
    sk: 'EMITTED',
    entity: 'EmittedMarker',
    name,
    [TTL_ATTRIBUTE]: Math.floor(Date.now() / 1000) + 400 * 24 * 3600,
  } satisfies z.input<typeof emittedMarkerItemSchema>);
}

/**
 * Emits a time-driven event once: a marker item (pk EMITTED#<marker>) is created with
 * attribute_not_exists in the event's transaction, so however many readers observe the state
 * at once, one transaction wins. Returns whether this call emitted it.
 */
export async function emitOnce(
  marker: string,
  event: DomainEvent,
  extraWrites: LabelledWrite[] = [],
): Promise<boolean> {
  try {
    await transactWrite([emittedMarkerWrite(marker, event.name), outboxPut(event), ...extraWrites]);
    return true;
  } catch (error) {
    if (error instanceof TransactionConditionFailed && error.failedLabels.includes('emitted-marker')) return false;
    // A transaction conflict (another observer writing the same marker right now) writes
    // nothing; whoever commits the marker emits the event, and if nobody does, the next
    // observation tries again.
    if (isLostRace(error)) return false;
    throw error;
  }
}

/** Which of these markers were already emitted (one BatchGet): lets readers skip known ones. */
export async function emittedMarkers(markers: string[]): Promise<Set<string>> {
  if (markers.length === 0) return new Set();
  const items = await batchGetInOrder(markers.map((marker) => ({ pk: `EMITTED#${marker}`, sk: 'EMITTED' })));
  return new Set(items.map((item) => String(item.pk).slice('EMITTED#'.length)));
}

/** Events not yet fanned out, oldest first (a Query on the sparse pending index). */
export async function listPendingEvents(limit: number): Promise<OutboxEventRecord[]> {
  return (await pendingOutboxItems(limit)).map(outboxFromItem);
}

/** The pending outbox items as stored (what the table's stream carries as their NewImage). */
export async function pendingOutboxItems(limit: number): Promise<Record<string, unknown>[]> {
  return queryPage({ index: INDEXES.gsi1, partition: PENDING_PARTITION }, { limit, offset: 0 });
}

/** Takes a fanned-out event off the pending index (idempotent). */
export async function markEventDispatched(record: OutboxEventRecord): Promise<void> {
  await db()
    .send(
      new UpdateCommand({
        TableName: tableName(),
        Key: outboxKey(record),
        UpdateExpression: 'REMOVE #gpk, #gsk SET dispatched_at = :now',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#gpk': INDEXES.gsi1.pk, '#gsk': INDEXES.gsi1.sk },
        ExpressionAttributeValues: { ':now': Math.floor(Date.now() / 1000) },
      }),
    )
    .catch((error) => {
      if (!isConditionFailed(error)) throw error;
    });
}
