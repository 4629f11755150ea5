/**
 * The deliverer's conditional writes against DynamoDB Local, on a table of its own (the test
 * stack's deliverer never sees it): fan-out is idempotent, a claim is exclusive, a deliverer
 * that dies mid-delivery leaves a claim that comes back only when its lease ran out (with the
 * same delivery id), and its late ack is refused, so nothing is delivered twice by the service.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { deliveryIdOf } from '../../shared/domain/webhook-delivery.ts';
import { runServicesOnStackTable } from '../support/local-db.ts';

const TABLE = 'stepwise-deliverer-test';
let outbox: typeof import('../../shared/db/entities/outbox.ts');
let webhooks: typeof import('../../shared/db/entities/webhook.ts');
let deliverer: typeof import('../../shared/events/deliverer.ts');
let transactions: typeof import('../../shared/db/transactions.ts');

runServicesOnStackTable(TABLE);

beforeAll(async () => {
  const { ensureTable } = await import('../../infra/local/create-table.ts');
  await ensureTable(inject('ddbEndpoint'), TABLE);
  outbox = await import('../../shared/db/entities/outbox.ts');
  webhooks = await import('../../shared/db/entities/webhook.ts');
  deliverer = await import('../../shared/events/deliverer.ts');
  transactions = await import('../../shared/db/transactions.ts');
});

let nextWebhookId = Date.now() % 1_000_000_000;

async function webhookAndEvent() {
  const webhook = {
    webhookid: ++nextWebhookId,
    url: 'http://127.0.0.1:9/never-called',
    events: ['user.created'],
    active: true,
    secret: 's'.repeat(32),
    created_by: 1,
    created_date: 1,
    modified_date: 1,
    version: 1,
  };
  await webhooks.insertWebhook(webhook);
  const event = {
    name: 'user.created' as const,
    entity: `USER#${webhook.webhookid}`,
    data: { userid: webhook.webhookid, username: 'someone' },
  };
  const write = outbox.outboxPut(event);
  await transactions.transactWrite([write]);
  const stored = outbox.outboxFromItem(write.item.Put!.Item as Record<string, unknown>);
  return { webhook, stored };
}

describe('fan-out', () => {
  it('skips events from before the webhook was created (the outbox backlog, a repeated fan-out)', async () => {
    const { webhook, stored } = await webhookAndEvent();
    const eventMs = Number(stored.sequence.slice(0, 13));
    const later = { ...webhook, webhookid: ++nextWebhookId, created_at_ms: eventMs + 1 };
    const sameMoment = { ...webhook, webhookid: ++nextWebhookId, created_at_ms: eventMs };
    // Stored before created_at_ms existed: created_date (seconds) counts.
    const legacyLater = { ...webhook, webhookid: ++nextWebhookId, created_date: Math.floor(eventMs / 1000) + 1 };
    for (const hook of [later, sameMoment, legacyLater]) await webhooks.insertWebhook(hook);
    await deliverer.dispatchEvent(stored, [later, sameMoment, legacyLater]);
    const count = async (webhookid: number) =>
      (await webhooks.listDeliveries(webhookid, { limit: 10, offset: 0 })).length;
    expect(await count(later.webhookid)).toBe(0);
    expect(await count(legacyLater.webhookid)).toBe(0);
    expect(await count(sameMoment.webhookid)).toBe(1);
  });

  it('is idempotent: dispatching an event twice (a restart between fan-out and dispatched) makes one delivery', async () => {
    const { webhook, stored } = await webhookAndEvent();
    await deliverer.dispatchEvent(stored, [webhook]);
    await deliverer.dispatchEvent(stored, [webhook]);
    const deliveries = await webhooks.listDeliveries(webhook.webhookid, { limit: 10, offset: 0 });
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({
      deliveryid: deliveryIdOf(stored.eventid, webhook.webhookid),
      status: 'pending',
      attempts: 0,
    });
    const pending = await outbox.listPendingEvents(1000);
    expect(pending.map((event) => event.eventid)).not.toContain(stored.eventid);
  });

  it('an outbox item written in a transaction that fails is not written at all', async () => {
    const { webhook } = await webhookAndEvent();
    const event = outbox.outboxPut({
      name: 'user.created',
      entity: `USER#x${webhook.webhookid}`,
      data: { userid: 1, username: 'x' },
    });
    const failing = {
      label: 'change',
      item: {
        ConditionCheck: {
          TableName: TABLE,
          Key: { pk: 'NOPE', sk: 'NOPE' },
          ConditionExpression: 'attribute_exists(pk)',
        },
      },
    };
    await expect(transactions.transactWrite([failing, event])).rejects.toBeInstanceOf(
      transactions.TransactionConditionFailed,
    );
    const pending = await outbox.listPendingEvents(1000);
    expect(pending.map((record) => record.entity)).not.toContain(`USER#x${webhook.webhookid}`);
  });
});

describe('claim and ack', () => {
  async function dueDelivery() {
    const { webhook, stored } = await webhookAndEvent();
    await deliverer.dispatchEvent(stored, [webhook], 1_000);
    const [delivery] = await webhooks.listDeliveries(webhook.webhookid, { limit: 1, offset: 0 });
    return delivery;
  }

  it('only one of two concurrent claims wins', async () => {
    const delivery = await dueDelivery();
    const now = Date.now();
    const claims = await Promise.all([
      webhooks.claimDelivery(delivery, now, now + 10_000),
      webhooks.claimDelivery(delivery, now, now + 10_000),
    ]);
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(claims.find(Boolean)).toMatchObject({ status: 'delivering', attempts: 1 });
  });

  it('a deliverer that died mid-delivery: its claim is held until the lease runs out, then retried with the same id, and its late ack is refused', async () => {
    const delivery = await dueDelivery();
    const start = Date.now();
    const dead = (await webhooks.claimDelivery(delivery, start, start + 10_000))!;
    expect(dead).toBeDefined();
    // Restarted deliverer, lease still running: nothing to claim, so no second POST.
    expect(await webhooks.claimDelivery(delivery, start + 5_000, start + 15_000)).toBeUndefined();
    // Lease over: the delivery comes back in the due list and is claimed again, same delivery id.
    const due = await webhooks.listDueDeliveries(start + 10_000, 1000);
    expect(due.map((candidate) => candidate.deliveryid)).toContain(delivery.deliveryid);
    const again = (await webhooks.claimDelivery(delivery, start + 10_000, start + 20_000))!;
    expect(again).toMatchObject({ deliveryid: delivery.deliveryid, attempts: 2, status: 'delivering' });
    // The first deliverer's ack arrives late: refused, nothing changes.
    expect(await webhooks.finishAttempt(dead, { kind: 'succeeded', responseCode: 200, at: start })).toBe(false);
    expect(await webhooks.finishAttempt(again, { kind: 'succeeded', responseCode: 200, at: start + 11_000 })).toBe(
      true,
    );
    const stored = await webhooks.getDelivery(delivery);
    expect(stored).toMatchObject({
      status: 'succeeded',
      attempts: 2,
      last_response_code: 200,
      next_attempt_at: null,
    });
  });

  it('a delivered delivery is never claimed again and leaves the due list', async () => {
    const delivery = await dueDelivery();
    const now = Date.now();
    const claimed = (await webhooks.claimDelivery(delivery, now, now + 10_000))!;
    expect(await webhooks.finishAttempt(claimed, { kind: 'succeeded', responseCode: 204, at: now })).toBe(true);
    const far = now + 48 * 3600 * 1000;
    expect(await webhooks.claimDelivery(delivery, far, far + 10_000)).toBeUndefined();
    expect((await webhooks.listDueDeliveries(far, 1000)).map((candidate) => candidate.deliveryid)).not.toContain(
      delivery.deliveryid,
    );
    expect(await webhooks.hasEarlierUnfinished({ ...delivery, sequence: '9999999999999#9999' })).toBe(false);
  });

  it('a retried delivery waits until its next attempt, and holds later deliveries of its entity', async () => {
    const delivery = await dueDelivery();
    const now = Date.now();
    const claimed = (await webhooks.claimDelivery(delivery, now, now + 10_000))!;
    expect(
      await webhooks.finishAttempt(claimed, {
        kind: 'retry',
        responseCode: 500,
        error: 'HTTP 500',
        nextAttemptAt: now + 60_000,
      }),
    ).toBe(true);
    expect(await webhooks.claimDelivery(delivery, now + 30_000, now + 40_000)).toBeUndefined();
    expect(
      await webhooks.hasEarlierUnfinished({ ...delivery, sequence: '9999999999999#9999', deliveryid: 'later' }),
    ).toBe(true);
    expect(await webhooks.claimDelivery(delivery, now + 60_000, now + 70_000)).toMatchObject({ attempts: 2 });
  });
});
