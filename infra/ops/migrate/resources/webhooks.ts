/**
 * Webhooks (GET /webhooks, an Admin's; a source that is not a Stepwise answers 404 or 403,
 * reported as unexposed). A secret never leaves the source, so a carried webhook arrives
 * inactive with a fresh random secret: it cannot sign with a key its receiver does not hold,
 * and the operator sets the receiver's secret (PATCH) and turns it on. Deliveries stay behind,
 * as in an export: a migrated site must not send events a second time.
 */
import { randomBytes } from 'node:crypto';
import { itemsOfWrites, SourceError, type ResourceCrawler } from '../crawl.ts';
import { isDenied } from './training-common.ts';
import { webhookCreateWrite, type WebhookRecord } from '../../../../shared/db/entities/webhook.ts';
import type { webhookSchema } from '../../../../shared/views/webhook-views.ts';
import type * as z from 'zod/mini';

type WebhookView = z.output<typeof webhookSchema>;

/** Stored attributes API 2.0 does not hand out, and what the crawler writes instead. */
export const WEBHOOK_UNEXPOSED = {
  Webhook: {
    secret: 'never shown: a fresh random secret, to be replaced by the operator',
    active: 'carried inactive until the operator sets the secret',
    version: 'internal optimistic-lock counter: starts again at 1',
    created_at_ms: "creation to the millisecond is not shown: the deliverer falls back to created_date's second",
  },
} as const;

export function webhookRecordOf(view: WebhookView): WebhookRecord {
  return {
    webhookid: view.webhookid,
    url: view.url,
    events: view.events,
    active: false,
    secret: randomBytes(32).toString('base64url'),
    created_by: view.created_by,
    ...(view.created_by_token ? { created_by_token: view.created_by_token } : {}),
    created_date: view.created_date,
    modified_date: view.modified_date,
    version: 1,
  };
}

export const webhooksCrawler: ResourceCrawler = {
  name: 'webhooks',
  after: ['users'],
  async crawl(context) {
    const webhooks: WebhookView[] = [];
    try {
      for await (const page of context.api.pages<WebhookView>('/webhooks', {
        pageSize: 200,
        itemsOf: (body) => (body as { webhooks: WebhookView[] }).webhooks,
      })) {
        webhooks.push(...page);
      }
    } catch (error) {
      if (!isDenied(error) && !(error instanceof SourceError && error.status === 404)) throw error;
      context.report.unexposed('webhooks', 'the source does not list them to this account');
      return;
    }
    for (const webhook of webhooks) context.sink.idSeen('webhook', webhook.webhookid);
    if (webhooks.length) {
      context.report.unexposed(
        'webhook secrets',
        'carried webhooks are inactive with a new secret: set the receiver secret (PATCH) and re-enable them',
      );
    }
    if (context.isDone('webhooks')) return;
    await context.sink.items(itemsOfWrites(webhooks.map((webhook) => webhookCreateWrite(webhookRecordOf(webhook)))));
    await context.completed('webhooks');
  },
};
