/**
 * Badges a user earned: pk USER#<userid> / sk BADGE#<badgeid>. Awarding is idempotent (a
 * condition on the badge item) and moves the user's badge_counts in the same transaction.
 */
import { tableName } from '../client.ts';
import { queryAll } from '../paging.ts';
import { transactWrite, TransactionConditionFailed, type LabelledWrite } from '../transactions.ts';
import { userKey } from './user.ts';
import { recordsOf, type StoredRecord } from '../stored-item.ts';
import * as z from 'zod/mini';

/** A Badge item as badgePut writes it. */
export const badgeItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.string(),
  entity: z.literal('Badge'),
  badgeid: z.string(),
  title: z.string(),
  description: z.string(),
  level: z.enum(['bronze', 'silver', 'gold']),
  userid: z.int().check(z.positive()),
  date: z.number(),
});

export type BadgeRecord = StoredRecord<typeof badgeItemSchema>;

/** The badge item, only if the user has not earned it yet (pure; the award also moves badge_counts). */
export function badgePut(badge: BadgeRecord): LabelledWrite {
  return {
    label: 'badge',
    item: {
      Put: {
        TableName: tableName(),
        Item: {
          pk: `USER#${badge.userid}`,
          sk: `BADGE#${badge.badgeid}`,
          entity: 'Badge',
          ...badge,
        } satisfies z.input<typeof badgeItemSchema>,
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  };
}

/** Awards a badge once; a second award of the same badge is a no-op. */
export async function awardBadge(badge: BadgeRecord): Promise<boolean> {
  try {
    await transactWrite([
      badgePut(badge),
      {
        label: 'user',
        item: {
          Update: {
            TableName: tableName(),
            Key: userKey(badge.userid),
            UpdateExpression:
              'SET badge_counts.#level = badge_counts.#level + :one, badge_counts.#total = badge_counts.#total + :one',
            ExpressionAttributeNames: { '#level': badge.level, '#total': 'total' },
            ExpressionAttributeValues: { ':one': 1 },
          },
        },
      },
    ]);
    return true;
  } catch (error) {
    if (error instanceof TransactionConditionFailed && error.failedLabels.includes('badge')) return false;
    throw error;
  }
}

export async function listBadges(userid: number): Promise<BadgeRecord[]> {
  const items = await queryAll({ partition: `USER#${userid}`, sortPrefix: 'BADGE#' });
  return items.map(recordsOf(badgeItemSchema));
}
