/**
 * Signing token: pk SIGNING_TOKEN#<sha256 of the token> / sk SIGNING_TOKEN, expiring by TTL.
 * It stands for one password entry of one signer, for one thing to sign (an approval request),
 * for a few minutes, once: the signature's transaction deletes it on condition that it is still
 * there and live (label `signing-token`), so it cannot be used twice.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../client.ts';
import { nowSeconds, withoutKeys } from '../keys.ts';
import { TTL_ATTRIBUTE } from '../table.ts';
import type { LabelledWrite } from '../transactions.ts';

export interface SigningTokenRecord {
  /** The signer: whose password made the token. */
  userid: number;
  purpose: 'approval_request';
  /** The id of what it signs (approval_requestid). */
  subjectid: number;
  /** Whose session asked for it (the operator's device in an over-the-shoulder signature). */
  issued_to_userid: number;
  issued_date: number;
  expires_at: number;
}

function signingTokenKey(tokenHash: string) {
  return { pk: `SIGNING_TOKEN#${tokenHash}`, sk: 'SIGNING_TOKEN' };
}

export async function putSigningToken(tokenHash: string, record: SigningTokenRecord): Promise<void> {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...signingTokenKey(tokenHash), entity: 'SigningToken', [TTL_ATTRIBUTE]: record.expires_at, ...record },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

/** A live token (TTL deletion lags, so expiry is checked here too). */
export async function getSigningToken(tokenHash: string): Promise<SigningTokenRecord | undefined> {
  const result = await db().send(new GetCommand({ TableName: tableName(), Key: signingTokenKey(tokenHash), ConsistentRead: true }));
  if (!result.Item || Number(result.Item.expires_at) <= nowSeconds()) return undefined;
  return withoutKeys(result.Item) as unknown as SigningTokenRecord;
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
