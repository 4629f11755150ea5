/**
 * The deliverer: the same code on AWS (the stream-fed Lambda and the scheduled sweep in
 * functions/webhooks/deliverer.handler.ts) and locally (an in-process loop, startDeliverer).
 *
 * 1. Fan-out (dispatchEvent): an outbox event is put on the bus and gets one delivery per
 *    matching active webhook (insertDelivery is idempotent: the deliveryid derives from the
 *    event and the webhook), then leaves the pending index. A crash between the steps repeats
 *    them harmlessly.
 * 2. Delivery (deliverDue): due deliveries are claimed (conditional update with a lease), POSTed
 *    SSRF-safe with the signature, and acked on condition of that claim. A delivery waits while
 *    an earlier one of the same entity to the same webhook is unfinished (per-entity order).
 * Nothing here runs inside an API request: a slow or dead receiver only delays its own
 * deliveries.
 */
import { config } from '../config.ts';
import { log } from '../observability/logger.ts';
import { IDLE_POLL_CEILING_MS, nowSeconds, type Repeating, repeatEvery } from '../clock.ts';
import { listPendingEvents, markEventDispatched, type OutboxEventRecord } from '../db/entities/outbox.ts';
import {
  claimDelivery,
  finishAttempt,
  getWebhook,
  hasEarlierUnfinished,
  insertDelivery,
  listAllWebhooks,
  listDueDeliveries,
  type DeliveryRecord,
  type WebhookRecord,
} from '../db/entities/webhook.ts';
import { deliveryIdOf, isDelivered, nextAttemptAt, signatureHeader } from '../domain/webhook-delivery.ts';
import { safePost } from '../net/safe-post.ts';
import { publishToBus } from './bus.ts';
import { deliveryBody } from '../domain/events/envelope.ts';
import { xapiStatements } from '../domain/events/xapi-statements.ts';

/** When an event happened, in epoch ms (its sequence starts with that time). */
const occurredAtMs = (record: OutboxEventRecord) => Number(record.sequence.slice(0, 13));

/**
 * Whether a webhook gets this event: one it asked for, that happened after it was created (a
 * new webhook is not sent the backlog the outbox still holds, nor one retried fan-out).
 */
export function subscribes(webhook: WebhookRecord, record: OutboxEventRecord): boolean {
  if (record.target_webhookid !== undefined) return record.target_webhookid === webhook.webhookid;
  if (occurredAtMs(record) < (webhook.created_at_ms ?? webhook.created_date * 1000)) return false;
  return webhook.active && (webhook.events.includes('*') || webhook.events.includes(record.name));
}

const site = () => ({ name: config().STEPWISE_SITE_NAME, url: config().STEPWISE_SITE_URL });

/**
 * The learning record store's deliveries are kept like a webhook's, under this reserved id (webhook ids start at 1).
 */
export const XAPI_TARGET = 0;

function newDelivery(record: OutboxEventRecord, targetid: number, body: string, nowMs: number): DeliveryRecord {
  return {
    deliveryid: deliveryIdOf(record.eventid, targetid),
    webhookid: targetid,
    eventid: record.eventid,
    event: record.name,
    subject: record.entity,
    sequence: record.sequence,
    body,
    status: 'pending',
    attempts: 0,
    last_response_code: null,
    last_error: null,
    created_date: nowSeconds(),
    next_attempt_at: nowMs,
    lease_until: null,
    first_attempt_at: null,
    finished_date: null,
  };
}

/**
 * Fans one outbox event out: bus, one delivery per subscribed webhook, the xAPI statements; then marks it dispatched.
 */
export async function dispatchEvent(
  record: OutboxEventRecord,
  webhooks?: WebhookRecord[],
  nowMs = Date.now(),
): Promise<void> {
  if (record.target_webhookid === undefined) await publishToBus(record);
  const body = deliveryBody(record, site());
  for (const webhook of webhooks ?? (await listAllWebhooks())) {
    if (subscribes(webhook, record)) await insertDelivery(newDelivery(record, webhook.webhookid, body, nowMs), nowMs);
  }
  if (config().STEPWISE_XAPI_ENDPOINT && record.target_webhookid === undefined) {
    const statements = xapiStatements(record, site().url);
    if (statements.length > 0)
      await insertDelivery(newDelivery(record, XAPI_TARGET, JSON.stringify(statements), nowMs), nowMs);
  }
  await markEventDispatched(record);
}

/** Fans out events still pending (the local loop; on AWS the sweep's safety net). Returns how many. */
export async function dispatchPending(limit = 100): Promise<number> {
  const pending = await listPendingEvents(limit);
  if (pending.length === 0) return 0;
  const webhooks = await listAllWebhooks();
  for (const record of pending) await dispatchEvent(record, webhooks);
  return pending.length;
}

/** Where a delivery goes and with which headers; undefined when its target is gone. */
async function targetOf(
  claimed: DeliveryRecord,
): Promise<{ url: string; headers: Record<string, string> } | undefined> {
  const settings = config();
  if (claimed.webhookid === XAPI_TARGET) {
    if (!settings.STEPWISE_XAPI_ENDPOINT) return undefined;
    const credentials = Buffer.from(
      `${settings.STEPWISE_XAPI_USERNAME ?? ''}:${settings.STEPWISE_XAPI_PASSWORD ?? ''}`,
    ).toString('base64');
    return {
      url: new URL('statements', settings.STEPWISE_XAPI_ENDPOINT.replace(/\/?$/, '/')).toString(),
      headers: {
        authorization: `Basic ${credentials}`,
        'x-experience-api-version': '1.0.3',
        'x-stepwise-delivery': claimed.deliveryid,
      },
    };
  }
  const webhook = await getWebhook(claimed.webhookid);
  if (!webhook) return undefined;
  return {
    url: webhook.url,
    headers: {
      'x-stepwise-event': claimed.event,
      'x-stepwise-delivery': claimed.deliveryid,
      'x-stepwise-signature': signatureHeader(webhook.secret, claimed.body),
    },
  };
}

/** One attempt of a claimed delivery, its outcome recorded on condition of the claim. */
async function attempt(claimed: DeliveryRecord): Promise<void> {
  const settings = config();
  const now = () => Date.now();
  const target = await targetOf(claimed);
  if (!target) {
    const error = claimed.webhookid === XAPI_TARGET ? 'xAPI is no longer configured' : 'The webhook was deleted';
    await finishAttempt(claimed, { kind: 'failed', responseCode: null, error, at: now() });
    return;
  }
  let responseCode: number | null = null;
  let error: string | null = null;
  try {
    responseCode = await safePost(target.url, claimed.body, {
      allowHosts: settings.STEPWISE_FETCH_ALLOW_HOSTS,
      timeoutMs: settings.STEPWISE_WEBHOOK_TIMEOUT_SECONDS * 1000,
      headers: { 'user-agent': 'Stepwise-Webhooks', ...target.headers },
    });
  } catch (failure) {
    error = (failure as Error).message;
  }
  if (responseCode !== null && isDelivered(responseCode)) {
    await finishAttempt(claimed, { kind: 'succeeded', responseCode, at: now() });
    return;
  }
  error ??= `HTTP ${responseCode}`;
  const next = nextAttemptAt(claimed.attempts, claimed.first_attempt_at ?? now(), now(), {
    scale: settings.STEPWISE_WEBHOOK_DELAY_SCALE,
    random: Math.random(),
  });
  await finishAttempt(
    claimed,
    next === null
      ? { kind: 'failed', responseCode, error, at: now() }
      : { kind: 'retry', responseCode, error, nextAttemptAt: next },
  );
}

/** The lease of one attempt: the receiver's time plus a margin. */
const leaseMs = () => (config().STEPWISE_WEBHOOK_TIMEOUT_SECONDS + 5) * 1000;

/** Delivers one queue's due deliveries in order, stopping at the first that must wait. */
async function deliverQueue(deliveries: DeliveryRecord[]): Promise<void> {
  for (const delivery of deliveries) {
    if (await hasEarlierUnfinished(delivery)) return;
    const nowMs = Date.now();
    const claimed = await claimDelivery(delivery, nowMs, nowMs + leaseMs());
    if (!claimed) continue;
    await attempt(claimed);
  }
}

/** Queues (webhook and entity) being delivered by this process: a slow receiver holds only its own. */
const inFlight = new Map<string, Promise<void>>();

/**
 * Delivers what is due now: queues side by side, each in order. Queues this process is still
 * delivering are left alone. With `wait`, resolves once every queue started is done (the Lambda
 * sweep); otherwise they go on in the background (the local loop). Returns how many were due.
 */
export async function deliverDue(options: { limit?: number; wait?: boolean } = {}): Promise<number> {
  const due = await listDueDeliveries(Date.now(), options.limit ?? 50);
  const queues = new Map<string, DeliveryRecord[]>();
  for (const delivery of due.sort((a, b) => a.sequence.localeCompare(b.sequence))) {
    const key = `${delivery.webhookid}|${delivery.subject}`;
    if (inFlight.has(key)) continue;
    queues.set(key, [...(queues.get(key) ?? []), delivery]);
  }
  const started = [...queues].map(([key, queue]) => {
    const running = deliverQueue(queue)
      .catch((error) => log().error('Webhook delivery failed', { error }))
      .finally(() => inFlight.delete(key));
    inFlight.set(key, running);
    return running;
  });
  if (options.wait) await Promise.all(started);
  return due.length;
}

/** Waits for the deliveries this process has under way. */
export async function deliveriesSettled(): Promise<void> {
  await Promise.all([...inFlight.values()]);
}

/** One round: fan out pending events, then deliver what is due. Returns how many of each it found. */
export async function delivererRound(options: { wait?: boolean } = {}): Promise<number> {
  const dispatched = await dispatchPending();
  return dispatched + (await deliverDue(options));
}

/**
 * The local deliverer: a loop polling the outbox and the due deliveries (Queries on the two
 * sparse indexes, never a Scan). It polls every `intervalMs` while rounds find work and slows to a
 * half-second when they find none; the local stack wakes it after each write request (decision 345).
 * stop() waits for the round in progress.
 */
export function startDeliverer(intervalMs = config().STEPWISE_DELIVERER_POLL_MS): Repeating {
  const loop = repeatEvery(intervalMs, delivererRound, (error) => log().error('Deliverer round failed', { error }), {
    idleUpToMs: Math.max(intervalMs, IDLE_POLL_CEILING_MS),
  });
  return {
    wake: loop.wake,
    async stop() {
      await loop.stop();
      await deliveriesSettled();
    },
  };
}
