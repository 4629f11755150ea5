/**
 * Signing token: pk SIGNING_TOKEN#<sha256 of the token> / sk SIGNING_TOKEN, expiring by TTL.
 * It stands for one password entry of one signer, for one thing to sign (an approval request),
 * for a few minutes, once: the signature's transaction deletes it on condition that it is still
 * there and live (label `signing-token`), so it cannot be used twice.
 */
import { tableName } from '../client.ts';
import { getItem, putItem } from '../items.ts';
import { recordFrom, type StoredRecord } from '../stored-item.ts';
import { nowSeconds } from '../../clock.ts';
import { TTL_ATTRIBUTE } from '../table.ts';
import type { LabelledWrite } from '../transactions.ts';
import * as z from 'zod/mini';
import { authenticatedBySchema } from '../../domain/signature-auth.ts';

/** A SigningToken item as putSigningToken writes it (a credential: it never travels). */
export const signingTokenItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.literal('SIGNING_TOKEN'),
  entity: z.literal('SigningToken'),
  ttl: z.number(),
  /** The signer: whose password made the token. */
  userid: z.int(),
  purpose: z.literal('approval_request'),
  /** The id of what it signs (approval_requestid). */
  subjectid: z.int(),
  /** Whose session asked for it (the operator's device in an over-the-shoulder signature). */
  issued_to_userid: z.int(),
  issued_date: z.number(),
  expires_at: z.number(),
  /** How the signer proved themselves when the token was bought (none on older items: password). */
  authenticated_by: z.optional(authenticatedBySchema),
});

export type SigningTokenRecord = StoredRecord<typeof signingTokenItemSchema>;

export function signingTokenKey(tokenHash: string) {
  return { pk: `SIGNING_TOKEN#${tokenHash}`, sk: 'SIGNING_TOKEN' as const };
}

function signingTokenItem(tokenHash: string, record: SigningTokenRecord): z.input<typeof signingTokenItemSchema> {
  return { ...signingTokenKey(tokenHash), entity: 'SigningToken', [TTL_ATTRIBUTE]: record.expires_at, ...record };
}

export async function putSigningToken(tokenHash: string, record: SigningTokenRecord): Promise<void> {
  if (!(await putItem(signingTokenItem(tokenHash, record), { ifAbsent: true }))) {
    throw new Error('A signing token with this hash exists already');
  }
}

/** The token's put inside a transaction (with the step-up that buys it, decision 251). */
export function putSigningTokenWrite(tokenHash: string, record: SigningTokenRecord): LabelledWrite {
  return {
    label: 'signing-token-issued',
    item: {
      Put: {
        TableName: tableName(),
        Item: signingTokenItem(tokenHash, record),
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  };
}

/** A live token (TTL deletion lags, so expiry is checked here too). */
export async function getSigningToken(tokenHash: string): Promise<SigningTokenRecord | undefined> {
  const item = await getItem(signingTokenKey(tokenHash), { consistent: true });
  if (!item) return undefined;
  const token = recordFrom(signingTokenItemSchema, item);
  return token.expires_at > nowSeconds() ? token : undefined;
}

/** Uses the token up inside a signature's transaction; fails if it is gone, used or expired. */
export function consumeSigningTokenWrite(tokenHash: string, now: number): LabelledWrite {
  return {
    label: 'signing-token',
    item: {
      Delete: {
        TableName: tableName(),
        Key: signingTokenKey(tokenHash),
        ConditionExpression: 'attribute_exists(pk) AND expires_at > :now',
        ExpressionAttributeValues: { ':now': now },
      },
    },
  };
}
