/**
 * API token: pk TOKEN#<sha256 of the token> / sk TOKEN, expiring by TTL. The plain token is
 * never stored. A user's tokens are listed through gsi1 (USER#<id>#TOKENS) to revoke them all.
 */
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../client.ts';
import type { LabelledWrite } from '../transactions.ts';
import { getItem } from '../items.ts';
import { INDEXES, TTL_ATTRIBUTE } from '../table.ts';
import { queryAll } from '../paging.ts';
import { nowSeconds } from '../../clock.ts';
import { batchGetInOrder } from '../batch.ts';
import { userKey } from './user.ts';
import { recordFrom, recordsOf, type StoredRecord } from '../stored-item.ts';
import * as z from 'zod/mini';

/** A Token item as tokenInsert writes it (a credential: docs/export-format.md). */
export const tokenItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.literal('TOKEN'),
  entity: z.literal('Token'),
  gsi1pk: z.string().check(z.regex(/^USER#\d+#TOKENS$/)),
  gsi1sk: z.string(),
  ttl: z.number(),
  token_hash: z.string().check(z.regex(/^[0-9a-f]{64}$/)),
  userid: z.int().check(z.positive()),
  created: z.number(),
  expires: z.number(),
  /** The Admin who minted it by impersonation, if any. */
  impersonator_userid: z.nullable(z.int()),
  /**
   * With impersonator_userid: the minter's credential stamp when it was minted
   * (shared/accounts/credential-stamp.ts, decision 168). The token works only while the minter is
   * an Admin with that stamp, so demoting them or changing their password ends it.
   */
  impersonator_credential: z.optional(z.string()),
});

export type TokenRecord = StoredRecord<typeof tokenItemSchema>;

export function tokenKey(tokenHash: string) {
  return { pk: `TOKEN#${tokenHash}`, sk: 'TOKEN' as const };
}

function tokenInsert(token: TokenRecord) {
  return {
    TableName: tableName(),
    Item: {
      ...tokenKey(token.token_hash),
      entity: 'Token',
      [INDEXES.gsi1.pk]: `USER#${token.userid}#TOKENS`,
      [INDEXES.gsi1.sk]: String(token.created),
      [TTL_ATTRIBUTE]: token.expires,
      ...token,
    } satisfies z.input<typeof tokenItemSchema>,
    ConditionExpression: 'attribute_not_exists(pk)',
  };
}

export async function putToken(token: TokenRecord): Promise<void> {
  await db().send(new PutCommand(tokenInsert(token)));
}

/** The same insert, labelled `token`, for a transaction (an impersonation and its audit record). */
export function tokenInsertWrite(token: TokenRecord): LabelledWrite {
  return { label: 'token', item: { Put: tokenInsert(token) } };
}

function isLive(token: TokenRecord | undefined): token is TokenRecord {
  return token !== undefined && token.expires > nowSeconds();
}

/** The live token with this hash; expired ones count as absent even before TTL removes them. */
export async function getLiveToken(tokenHash: string): Promise<TokenRecord | undefined> {
  const item = await getItem(tokenKey(tokenHash));
  const token = item ? recordFrom(tokenItemSchema, item) : undefined;
  return isLive(token) ? token : undefined;
}

/**
 * The token and its user's item in one round trip (a token names its userid, so both keys are
 * known up front). The user item is returned only if the token is live and really is theirs.
 */
export async function getLiveTokenWithUser(
  tokenHash: string,
  userid: number,
): Promise<{ token: TokenRecord; userItem: Record<string, unknown> } | undefined> {
  const items = await batchGetInOrder([tokenKey(tokenHash), userKey(userid)]);
  const tokenItem = items.find((item) => String(item.pk).startsWith('TOKEN#'));
  const token = tokenItem ? recordFrom(tokenItemSchema, tokenItem) : undefined;
  const userItem = items.find((item) => String(item.pk).startsWith('USER#'));
  if (!isLive(token) || token.userid !== userid || !userItem) return undefined;
  return { token, userItem };
}

export async function deleteToken(tokenHash: string): Promise<void> {
  await db().send(new DeleteCommand({ TableName: tableName(), Key: tokenKey(tokenHash) }));
}

/** Ends every session of a user, but the one with hash `keep` (the session making the change). */
export async function deleteAllTokensOf(userid: number, keep?: string): Promise<void> {
  const items = await queryAll({ index: INDEXES.gsi1, partition: `USER#${userid}#TOKENS` });
  const tokens = items.map(recordsOf(tokenItemSchema));
  await Promise.all(tokens.filter((token) => token.token_hash !== keep).map((token) => deleteToken(token.token_hash)));
}
