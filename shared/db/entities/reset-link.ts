/** Password reset link: pk RESET#<sha256 of the link token>, single use, expiring by TTL. */
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../client.ts';
import { putItem } from '../items.ts';
import { nowSeconds } from '../keys.ts';
import { TTL_ATTRIBUTE } from '../table.ts';
import * as z from 'zod/mini';

/** A ResetLink item as putResetLink writes it (a credential: it never travels in a site file). */
export const resetLinkItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.literal('RESET'),
  entity: z.literal('ResetLink'),
  userid: z.int().check(z.positive()),
  ttl: z.number(),
});

function resetKey(tokenHash: string) {
  return { pk: `RESET#${tokenHash}`, sk: 'RESET' };
}

export async function putResetLink(tokenHash: string, userid: number, expires: number): Promise<void> {
  await putItem({ ...resetKey(tokenHash), entity: 'ResetLink', userid, [TTL_ATTRIBUTE]: expires });
}

/** Uses a link up: deletes it and returns its userid if it was live (one use only). */
export async function consumeResetLink(tokenHash: string): Promise<number | undefined> {
  const result = await db().send(
    new DeleteCommand({ TableName: tableName(), Key: resetKey(tokenHash), ReturnValues: 'ALL_OLD' }),
  );
  const item = result.Attributes;
  if (!item || Number(item[TTL_ATTRIBUTE]) <= nowSeconds()) return undefined;
  return Number(item.userid);
}
