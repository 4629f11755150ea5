/**
 * How webhooks and their deliveries are shown (docs/events.md). A webhook's signing secret is
 * never part of its view: only the create answer carries it, once.
 */
import * as z from 'zod/mini';
import { actorUserid } from '../domain/caller.ts';
import { actingTokenSchema, actingTokenView } from './common-schemas.ts';
import type { DeliveryRecord, WebhookRecord } from '../db/entities/webhook.ts';

export const webhookSchema = z.object({
  webhookid: z.int(),
  url: z.string(),
  events: z.array(z.string()),
  active: z.boolean(),
  /** null when a site API token made it, named by created_by_token (decision 260). */
  created_by: z.nullable(z.int()),
  created_by_token: z.optional(actingTokenSchema),
  created_date: z.int(),
  modified_date: z.int(),
});

/** The create answer: the view plus the signing secret, shown this once. */
export const createdWebhookSchema = z.extend(webhookSchema, { secret: z.string() });

export const deliverySchema = z.object({
  deliveryid: z.string(),
  eventid: z.string(),
  event: z.string(),
  status: z.string(),
  attempts: z.int(),
  last_response_code: z.nullable(z.int()),
  last_error: z.nullable(z.string()),
  /** Unix seconds; null once delivered or failed. */
  next_attempt: z.nullable(z.int()),
  created_date: z.int(),
  finished_date: z.nullable(z.int()),
});

export const pingSchema = z.object({ event: z.literal('ping'), eventid: z.string(), deliveryid: z.string() });

export function webhookView(webhook: WebhookRecord): z.output<typeof webhookSchema> {
  return {
    webhookid: webhook.webhookid,
    url: webhook.url,
    events: webhook.events,
    active: webhook.active,
    created_by: actorUserid(webhook.created_by),
    ...actingTokenView('created_by', webhook.created_by_token),
    created_date: webhook.created_date,
    modified_date: webhook.modified_date,
  };
}

export function deliveryView(delivery: DeliveryRecord): z.output<typeof deliverySchema> {
  const open = delivery.status === 'pending' || delivery.status === 'delivering';
  return {
    deliveryid: delivery.deliveryid,
    eventid: delivery.eventid,
    event: delivery.event,
    status: delivery.status,
    attempts: delivery.attempts,
    last_response_code: delivery.last_response_code,
    last_error: delivery.last_error,
    next_attempt: open ? Math.ceil((delivery.next_attempt_at ?? Date.now()) / 1000) : null,
    created_date: delivery.created_date,
    finished_date: delivery.finished_date,
  };
}
