/**
 * An event as the outbox stores it (shared/db/entities/outbox.ts): what deliveries are built from
 * (envelope.ts, xapi-statements.ts). The shape is stated once, here: the outbox item's schema is
 * these fields under its keys (the event's entity stored as `subject`), and the record type is
 * derived from the schema.
 */
import * as z from 'zod/mini';
import { EVENT_NAMES } from './catalogue.ts';

export const storedEventSchema = z.object({
  eventid: z.string(),
  name: z.enum([...EVENT_NAMES, 'ping']),
  /** The entity the event is about (DomainEvent.entity): its events are delivered in order. */
  entity: z.string(),
  /** Sorts the entity's events in the order they were written. */
  sequence: z.string(),
  occurred_at: z.number(),
  data: z.record(z.string(), z.unknown()),
  /** Deliver to this webhook only (ping). */
  target_webhookid: z.optional(z.int()),
});

export type StoredEvent = z.output<typeof storedEventSchema>;
