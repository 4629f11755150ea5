/**
 * The webhooks crawler against the test stack: a webhook is carried with its id, url, events and
 * dates as stored, but inactive and with a fresh secret (a secret is never shown); a source that
 * does not list webhooks is reported, not fatal.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, loginAdmin } from '../support/api.ts';
import { startReceiver, type Receiver } from '../support/webhook-receiver.ts';
import { webhooksCrawler, WEBHOOK_UNEXPOSED } from '../../infra/ops/migrate/resources/webhooks.ts';
import { crawledAndStored, httpSource, runCrawler, type CrawlRun } from './support/crawl-harness.ts';

let admin: string;
let webhook: { webhookid: number; secret: string };
let run: CrawlRun;
let receiver: Receiver;

beforeAll(async () => {
  admin = await loginAdmin();
  receiver = await startReceiver();
  const created = await api('POST', '/webhooks', {
    token: admin,
    body: { url: receiver.url, events: ['module_import.failed'], active: false },
  });
  if (created.status !== 201) throw new Error(`webhook: ${created.status} ${created.text}`);
  webhook = created.body;
  run = await runCrawler(webhooksCrawler, httpSource(admin));
});

afterAll(async () => {
  if (webhook) await api('DELETE', `/webhooks/${webhook.webhookid}`, { token: admin });
  await receiver?.close();
});

describe('webhooks crawler', () => {
  it('carries the webhook as stored, inactive and with a new secret', async () => {
    const key = `WEBHOOK#${webhook.webhookid}|WEBHOOK`;
    const { crawled, stored } = await crawledAndStored(run, (item) => `${item.pk}|${item.sk}` === key, {
      Webhook: Object.keys(WEBHOOK_UNEXPOSED.Webhook),
    });
    expect(crawled).toHaveLength(1);
    expect(crawled).toEqual(stored);
    const carried = run.items.get(key)!;
    expect(carried.active).toBe(false);
    expect(carried.secret).not.toBe(webhook.secret);
    expect(String(carried.secret).length).toBeGreaterThanOrEqual(32);
    expect(run.ids.get('webhook')).toBeGreaterThanOrEqual(webhook.webhookid);
    expect(run.unexposed.map((entry) => entry.what)).toContain('webhook secrets');
  });

  it('reports a source that does not list webhooks as unexposed, without failing', async () => {
    const denied = await runCrawler(webhooksCrawler, httpSource(admin, { deny: ['/webhooks'] }));
    expect(denied.items.size).toBe(0);
    expect(denied.unexposed).toEqual([expect.objectContaining({ what: 'webhooks' })]);
  });
});
