/**
 * Password reset link: pk RESET#<sha256 of the link token>, single use, expiring by TTL. It
 * keeps its account's credential stamp (shared/accounts/credential-stamp.ts) from when it was
 * sent: once the password changes (by another link or otherwise) it no longer applies.
 */
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../client.ts';
import { putItem } from '../items.ts';
import { nowSeconds } from '../../clock.ts';
import { TTL_ATTRIBUTE } from '../table.ts';
import { parseStored } from '../stored-item.ts';
import * as z from 'zod/mini';

/** A ResetLink item as putResetLink writes it (a credential: it never travels in a site file). */
export const resetLinkItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.literal('RESET'),
  entity: z.literal('ResetLink'),
  userid: z.int().check(z.positive()),
  ttl: z.number(),
  /** The account's credential stamp when the link was sent (decision 168); absent on older links. */
  credential_stamp: z.optional(z.string()),
});

export function resetKey(tokenHash: string) {
  return { pk: `RESET#${tokenHash}`, sk: 'RESET' as const };
}

export interface ResetLinkUse {
  userid: number;
  /** Absent on links sent before stamps existed. */
  credential_stamp?: string;
}

export async function putResetLink(
  tokenHash: string,
  userid: number,
  expires: number,
  credentialStamp: string,
): Promise<void> {
  await putItem({
    ...resetKey(tokenHash),
    entity: 'ResetLink',
    userid,
    credential_stamp: credentialStamp,
    [TTL_ATTRIBUTE]: expires,
  } satisfies z.input<typeof resetLinkItemSchema>);
}

/** Uses a link up: deletes it and returns its account if it was live (one use only). */
export async function consumeResetLink(tokenHash: string): Promise<ResetLinkUse | undefined> {
  const result = await db().send(
    new DeleteCommand({ TableName: tableName(), Key: resetKey(tokenHash), ReturnValues: 'ALL_OLD' }),
  );
  if (!result.Attributes) return undefined;
  const link = parseStored(resetLinkItemSchema, result.Attributes);
  if (link.ttl <= nowSeconds()) return undefined;
  return {
    userid: link.userid,
    ...(link.credential_stamp !== undefined ? { credential_stamp: link.credential_stamp } : {}),
  };
}
