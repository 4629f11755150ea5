/**
 * Webhooks (Admin, beyond the spec): URLs that receive the site's events (docs/events.md).
 * A URL must pass the same SSRF rules as module imports by URL, at create and at every
 * delivery. The signing secret is returned once, by the create (generated when none is given).
 */
import { randomBytes } from 'node:crypto';
import { config } from '../../shared/config.ts';
import { ConflictError, NotFoundError, ValidationError, type FieldProblem } from '../../shared/domain/errors.ts';
import { actorFields, type Caller } from '../../shared/domain/caller.ts';
import { nextId } from '../../shared/db/counters.ts';
import { nowSeconds } from '../../shared/clock.ts';
import type { Page } from '../../shared/db/paging.ts';
import { putEvent } from '../../shared/db/entities/outbox.ts';
import {
  deleteWebhook,
  getWebhook,
  insertWebhook,
  listDeliveries,
  listWebhooks,
  replaceWebhook,
  type WebhookRecord,
} from '../../shared/db/entities/webhook.ts';
import { domainEvent, isEventName } from '../../shared/domain/events/catalogue.ts';
import { deliveryIdOf } from '../../shared/domain/webhook-delivery.ts';
import { FetchRefusedError, vetUrl } from '../../shared/net/safe-fetch.ts';
import { deliveryView, webhookView } from '../../shared/views/webhook-views.ts';
import type { CreateWebhookInput, UpdateWebhookInput } from './webhooks.schemas.ts';

/** 422 problems of the URL: not http(s), or a host the SSRF rules refuse. */
async function urlProblem(raw: string): Promise<FieldProblem | undefined> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { field: 'url', code: 'invalid', message: 'Not a URL' };
  }
  if (url.username || url.password)
    return {
      field: 'url',
      code: 'url_not_allowed',
      message: 'The URL may not carry credentials; sign with the secret instead',
    };
  try {
    await vetUrl(url, { allowHosts: config().STEPWISE_FETCH_ALLOW_HOSTS });
    return undefined;
  } catch (error) {
    if (error instanceof FetchRefusedError)
      return {
        field: 'url',
        code: error.code === 'url_not_allowed' ? 'url_not_allowed' : 'url_not_resolvable',
        message: error.message,
      };
    throw error;
  }
}

function eventsProblems(events: string[]): FieldProblem[] {
  const problems: FieldProblem[] = [];
  events.forEach((name, index) => {
    if (name !== '*' && !isEventName(name))
      problems.push({
        field: `events.${index}`,
        code: 'unknown_event',
        message: `Unknown event "${name}" (docs/events.md lists them; "*" is every event)`,
      });
  });
  return problems;
}

async function checkInput(input: UpdateWebhookInput): Promise<void> {
  const problems: FieldProblem[] = [];
  if (input.url !== undefined) {
    const problem = await urlProblem(input.url);
    if (problem) problems.push(problem);
  }
  if (input.events !== undefined) problems.push(...eventsProblems(input.events));
  if (problems.length > 0) throw new ValidationError(problems.map((problem) => problem.message).join('; '), problems);
}

const uniqueEvents = (events: string[]) => (events.includes('*') ? ['*'] : [...new Set(events)]);

export async function create(caller: Caller, input: CreateWebhookInput) {
  await checkInput(input);
  const nowMs = Date.now();
  const now = Math.floor(nowMs / 1000);
  const webhook: WebhookRecord = {
    webhookid: await nextId('webhook'),
    url: input.url,
    events: uniqueEvents(input.events),
    active: input.active ?? true,
    secret: input.secret ?? randomBytes(32).toString('hex'),
    ...actorFields('created_by', caller),
    created_date: now,
    created_at_ms: nowMs,
    modified_date: now,
    version: 1,
  };
  await insertWebhook(webhook);
  // The only time the secret is shown.
  return { ...webhookView(webhook), secret: webhook.secret };
}

async function requireWebhook(webhookid: number): Promise<WebhookRecord> {
  const webhook = await getWebhook(webhookid);
  if (!webhook) throw new NotFoundError(`No webhook with webhookid ${webhookid}`);
  return webhook;
}

export async function get(webhookid: number) {
  return webhookView(await requireWebhook(webhookid));
}

export async function list(page: Page) {
  return { webhooks: (await listWebhooks(page)).map(webhookView) };
}

/** Changes url, events, active or the secret (a new secret is not shown back: the caller chose it). */
export async function update(webhookid: number, input: UpdateWebhookInput) {
  const before = await requireWebhook(webhookid);
  await checkInput(input);
  const after: WebhookRecord = {
    ...before,
    ...(input.url !== undefined ? { url: input.url } : {}),
    ...(input.events !== undefined ? { events: uniqueEvents(input.events) } : {}),
    ...(input.active !== undefined ? { active: input.active } : {}),
    ...(input.secret !== undefined ? { secret: input.secret } : {}),
    modified_date: nowSeconds(),
    version: before.version + 1,
  };
  if (!(await replaceWebhook(before, after))) {
    if (!(await getWebhook(webhookid))) throw new NotFoundError(`No webhook with webhookid ${webhookid}`);
    throw new ConflictError(
      'The webhook was changed meanwhile; read it and try again',
      webhookView((await getWebhook(webhookid))!),
    );
  }
  return webhookView(after);
}

export async function remove(webhookid: number): Promise<void> {
  if (!(await deleteWebhook(webhookid))) throw new NotFoundError(`No webhook with webhookid ${webhookid}`);
}

/** Queues a ping to this webhook only, through the same outbox and deliverer as every event. */
export async function ping(webhookid: number) {
  const webhook = await requireWebhook(webhookid);
  const record = await putEvent(
    domainEvent(
      'ping',
      `WEBHOOK#${webhook.webhookid}`,
      { webhookid: webhook.webhookid },
      { target_webhookid: webhook.webhookid },
    ),
  );
  return { event: 'ping', eventid: record.eventid, deliveryid: deliveryIdOf(record.eventid, webhook.webhookid) };
}

export async function deliveries(webhookid: number, page: Page) {
  await requireWebhook(webhookid);
  return { deliveries: (await listDeliveries(webhookid, page)).map(deliveryView) };
}
