/**
 * The deliverer on AWS (infra/cdk/stacks/events-stack.ts), the same code as the local loop
 * (shared/events/deliverer.ts):
 * - onOutboxStream: the table's stream, filtered to new outbox items, fans each event out (bus,
 *   one delivery per webhook) in stream order and makes the first attempts at once. A failing
 *   record is reported and processing stops there, so Lambda retries from it and per-entity
 *   order holds; after its retries the batch goes to the dead-letter queue, and the sweep still
 *   finds those events on the pending index.
 * - sweep (on its schedule, functions/schedules.ts): fans out events still pending, delivers retries that are due.
 */
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { newOutboxItem, outboxFromItem } from '../../shared/db/entities/outbox.ts';
import { listAllWebhooks } from '../../shared/db/entities/webhook.ts';
import { delivererRound, deliverDue, dispatchEvent } from '../../shared/events/deliverer.ts';
import { log } from '../../shared/observability/logger.ts';

export async function onOutboxStream(event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> {
  const webhooks = await listAllWebhooks();
  for (const record of event.Records) {
    const item = newOutboxItem(record);
    if (!item) continue;
    try {
      await dispatchEvent(outboxFromItem(item), webhooks);
    } catch (error) {
      log().error('Fan-out failed; the stream retries from this record', { error, eventid: item.eventid });
      return { batchItemFailures: [{ itemIdentifier: record.dynamodb!.SequenceNumber! }] };
    }
  }
  await deliverDue({ wait: true });
  return { batchItemFailures: [] };
}

export async function sweep(): Promise<void> {
  await delivererRound({ wait: true });
}
