/**
 * Site API token (a service principal, decision 227): pk APITOKEN#<tokenid> / sk APITOKEN,
 * listed through gsi1 (APITOKENS, created time then tokenid). The token itself
 * (`swk_<tokenid>_<secret>`) names its record; only its SHA-256 is stored. No TTL: it lives until
 * an Admin revokes it (the item is deleted).
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../client.ts';
import { getItem } from '../items.ts';
import { INDEXES } from '../table.ts';
import { queryAll } from '../paging.ts';
import { padId } from '../keys.ts';
import type { LabelledWrite } from '../transactions.ts';
import { isConditionFailed } from '../retry.ts';
import { recordFrom, recordsOf } from '../stored-item.ts';
import { API_SCOPES } from '../../domain/caller.ts';
import * as z from 'zod/mini';

/** A stored ApiToken item as apiTokenInsertWrite writes it (last_used set by touchApiToken). */
export const apiTokenItemSchema = z.strictObject({
  pk: z.string().check(z.regex(/^APITOKEN#[0-9a-f]{16}$/)),
  sk: z.literal('APITOKEN'),
  entity: z.literal('ApiToken'),
  gsi1pk: z.literal('APITOKENS'),
  gsi1sk: z.string(),
  tokenid: z.string().check(z.regex(/^[0-9a-f]{16}$/)),
  name: z.string(),
  scopes: z.array(z.enum(API_SCOPES)),
  token_hash: z.string().check(z.regex(/^[0-9a-f]{64}$/)),
  created_by: z.int(),
  created: z.number(),
  /** Epoch seconds of the last request it authenticated, to the minute; absent until first use. */
  last_used: z.optional(z.number()),
});

export type ApiTokenRecord = Omit<z.output<typeof apiTokenItemSchema>, 'pk' | 'sk' | 'entity' | 'gsi1pk' | 'gsi1sk'>;

/** The last-used time is written at most once per this many seconds per token. */
export const LAST_USED_RESOLUTION_SECONDS = 60;

export function apiTokenKey(tokenid: string) {
  return { pk: `APITOKEN#${tokenid}`, sk: 'APITOKEN' as const };
}

/** The insert, labelled `api-token`, for the transaction that also records it in the audit trail. */
export function apiTokenInsertWrite(token: ApiTokenRecord): LabelledWrite {
  return {
    label: 'api-token',
    item: {
      Put: {
        TableName: tableName(),
        Item: {
          ...apiTokenKey(token.tokenid),
          entity: 'ApiToken',
          [INDEXES.gsi1.pk]: 'APITOKENS',
          [INDEXES.gsi1.sk]: `${padId(token.created)}#${token.tokenid}`,
          ...token,
        } satisfies z.input<typeof apiTokenItemSchema>,
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  };
}

/** The delete, labelled `api-token`, only while the token exists (a second revoke finds none). */
export function apiTokenDeleteWrite(tokenid: string): LabelledWrite {
  return {
    label: 'api-token',
    item: {
      Delete: { TableName: tableName(), Key: apiTokenKey(tokenid), ConditionExpression: 'attribute_exists(pk)' },
    },
  };
}

export async function getApiToken(tokenid: string): Promise<ApiTokenRecord | undefined> {
  const item = await getItem(apiTokenKey(tokenid));
  return item ? recordFrom(apiTokenItemSchema, item) : undefined;
}

/** Every token of the site, oldest first (a site has a handful). */
export async function listApiTokens(): Promise<ApiTokenRecord[]> {
  const items = await queryAll({ index: INDEXES.gsi1, partition: 'APITOKENS' });
  return items.map(recordsOf(apiTokenItemSchema));
}

/**
 * Records a use at `now`, unless one within the last minute is already recorded (the condition
 * makes concurrent requests write once). A lost race or a token revoked meanwhile leaves the item
 * as it is; any other failure is the caller's to swallow (api-token-auth.ts: bookkeeping never
 * fails a request, e.g. in a group granted reads only).
 */
export async function touchApiToken(tokenid: string, now: number): Promise<void> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: apiTokenKey(tokenid),
        UpdateExpression: 'SET last_used = :now',
        ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(last_used) OR last_used <= :cutoff)',
        ExpressionAttributeValues: { ':now': now, ':cutoff': now - LAST_USED_RESOLUTION_SECONDS },
      }),
    );
  } catch (error) {
    if (!isConditionFailed(error)) throw error;
  }
}

/** The token a record names as its writer (ServiceAuthor, decision 244), as records store it. */
export const serviceAuthorSchema = z.strictObject({
  tokenid: z.string().check(z.regex(/^[0-9a-f]{16}$/)),
  name: z.string(),
});
