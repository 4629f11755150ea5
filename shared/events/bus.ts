/**
 * The event bus port: on AWS every event is put on the EventBridge bus named by
 * STEPWISE_EVENT_BUS_NAME (source `stepwise`, detail-type the event name, detail the event),
 * so operators can route events without code. Without a bus (locally) events are only logged.
 */
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { config } from '../config.ts';
import { log } from '../observability/logger.ts';
import { offerClientToHook } from '../sdk-client-hook.ts';
import type { OutboxEventRecord } from '../db/entities/outbox.ts';

let client: EventBridgeClient | undefined;

export const BUS_SOURCE = 'stepwise';

export async function publishToBus(record: OutboxEventRecord): Promise<void> {
  const busName = config().STEPWISE_EVENT_BUS_NAME;
  if (!busName) {
    log().debug('Event (no bus configured)', { event: record.name, eventid: record.eventid });
    return;
  }
  client ??= offerClientToHook(new EventBridgeClient({ region: config().AWS_REGION }));
  const result = await client.send(
    new PutEventsCommand({
      Entries: [
        {
          EventBusName: busName,
          Source: BUS_SOURCE,
          DetailType: record.name,
          Time: new Date(record.occurred_at * 1000),
          Detail: JSON.stringify({
            eventid: record.eventid,
            name: record.name,
            entity: record.entity,
            sequence: record.sequence,
            occurred_at: record.occurred_at,
            data: record.data,
          }),
        },
      ],
    }),
  );
  // PutEvents answers 200 with per-entry failures; a failed entry must fail the fan-out so it is retried.
  if (result.FailedEntryCount)
    throw new Error(
      `EventBridge refused the event: ${result.Entries?.[0]?.ErrorCode} ${result.Entries?.[0]?.ErrorMessage}`,
    );
}
