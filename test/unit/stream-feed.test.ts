/**
 * verify:deploy's stand-in for Lambda's stream event source mapping (infra/verify/stream-feed.ts):
 * records built from new items, the template's filter, batches in order, retries from the
 * failed record, dead-lettering after the mapping's retries, the mapping's IAM calls.
 */
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { matchesFilter, startStreamFeed } from '../../infra/verify/stream-feed.ts';
import type { StreamSubscription } from '../../infra/verify/template.ts';

const subscription: StreamSubscription = {
  functionId: 'Stepwise-Events/StreamDeliverer',
  streamArn: 'arn:aws:dynamodb:us-east-1:000000000000:table/stepwise/stream/local',
  batchSize: 2,
  filterPatterns: [
    JSON.stringify({ eventName: ['INSERT'], dynamodb: { NewImage: { entity: { S: ['OutboxEvent'] } } } }),
  ],
  maximumRetryAttempts: 1,
  onFailureArn: 'arn:aws:sqs:us-east-1:000000000000:dead-letters',
  reportsItemFailures: true,
};
const outbox = (n: number) => ({ pk: 'OUTBOX#GUIDE#1', sk: `EVT#${n}`, entity: 'OutboxEvent', eventid: `e${n}` });

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(condition()).toBe(true);
}

describe('the local stream feed', () => {
  it('matches Lambda filter patterns of exact values, nested', () => {
    const pattern = JSON.parse(subscription.filterPatterns[0]);
    expect(
      matchesFilter(pattern, { eventName: 'INSERT', dynamodb: { NewImage: { entity: { S: 'OutboxEvent' } } } }),
    ).toBe(true);
    expect(
      matchesFilter(pattern, { eventName: 'MODIFY', dynamodb: { NewImage: { entity: { S: 'OutboxEvent' } } } }),
    ).toBe(false);
    expect(matchesFilter(pattern, { eventName: 'INSERT', dynamodb: { NewImage: { entity: { S: 'User' } } } })).toBe(
      false,
    );
    expect(() => matchesFilter({ a: [{ prefix: 'x' }] }, { a: 'xy' })).toThrow(/not supported/);
  });

  it('feeds new items once, in order, in batches; retries from a failed one; dead-letters after retries', async () => {
    let pending = [outbox(1), outbox(2), outbox(3), { pk: 'USER#1', sk: 'USER', entity: 'User' }];
    const batches: string[][] = [];
    const authorized: string[] = [];
    let failuresLeft = 3;
    const feed = startStreamFeed({
      subscription,
      region: 'us-east-1',
      readNewItems: async () => pending,
      invoke: async (event: DynamoDBStreamEvent) => {
        const ids = event.Records.map((record) => String(record.dynamodb?.NewImage?.eventid?.S));
        batches.push(ids);
        expect(event.Records.every((record) => record.eventName === 'INSERT')).toBe(true);
        // e2 fails: reported as the failed item, so e2 and what follows come again.
        const failed = event.Records.find((record) => record.dynamodb?.NewImage?.eventid?.S === 'e2');
        if (failed && failuresLeft-- > 0)
          return { batchItemFailures: [{ itemIdentifier: failed.dynamodb!.SequenceNumber! }] };
        return { batchItemFailures: [] };
      },
      authorize: (action, resource) => {
        authorized.push(`${action} ${resource}`);
        return true;
      },
      pollMs: 5,
      onError: (error) => {
        throw error;
      },
    });
    await until(() => authorized.some((call) => call.startsWith('sqs:SendMessage')));
    pending = [outbox(4)];
    await until(() => batches.some((batch) => batch.includes('e4')));
    const summary = await feed.stop();
    // e1 and e2 first; e2 fails, retried once (maximumRetryAttempts 1) with e3; then dead-lettered; then e4.
    expect(batches).toEqual([['e1', 'e2'], ['e2', 'e3'], ['e4']]);
    expect(summary).toMatchObject({ records: 2, deadLettered: 2, filteredOut: 1, retriedBatches: 2 });
    expect(authorized).toContain(`dynamodb:GetRecords ${subscription.streamArn}`);
    expect(authorized).toContain(`sqs:SendMessage ${subscription.onFailureArn}`);
  });
});
