/**
 * LRS credentials (docs/lrs.md, decision 276): a key and secret an Admin makes for an xAPI
 * client, sent as HTTP Basic. pk LRSKEY#<key> / sk LRSKEY, listed through gsi1 (LRSKEYS, created
 * time then key). Only the SHA-256 of the secret (32 random bytes) is stored. Lives until an
 * Admin revokes it (the item is deleted).
 */
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { db, tableName } from '../client.ts';
import { getItem } from '../items.ts';
import { INDEXES } from '../table.ts';
import { queryAll } from '../paging.ts';
import { padId } from '../keys.ts';
import { isConditionFailed } from '../retry.ts';
import { recordFrom, recordsOf, type StoredRecord } from '../stored-item.ts';
import { LRS_SCOPES } from '../../domain/xapi/scopes.ts';

export const lrsCredentialItemSchema = z.strictObject({
  pk: z.string().check(z.regex(/^LRSKEY#[0-9a-f]{20}$/)),
  sk: z.literal('LRSKEY'),
  entity: z.literal('LrsCredential'),
  gsi1pk: z.literal('LRSKEYS'),
  gsi1sk: z.string(),
  key: z.string().check(z.regex(/^[0-9a-f]{20}$/)),
  name: z.string(),
  scopes: z.array(z.enum(LRS_SCOPES)),
  secret_hash: z.string().check(z.regex(/^[0-9a-f]{64}$/)),
  created_by: z.int(),
  created: z.number(),
});

export type LrsCredentialRecord = StoredRecord<typeof lrsCredentialItemSchema>;

export function credentialKey(key: string) {
  return { pk: `LRSKEY#${key}`, sk: 'LRSKEY' as const };
}

export async function insertLrsCredential(record: LrsCredentialRecord): Promise<void> {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...credentialKey(record.key),
        entity: 'LrsCredential',
        [INDEXES.gsi1.pk]: 'LRSKEYS',
        [INDEXES.gsi1.sk]: `${padId(record.created)}#${record.key}`,
        ...record,
      } satisfies z.input<typeof lrsCredentialItemSchema>,
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

export async function getLrsCredential(key: string): Promise<LrsCredentialRecord | undefined> {
  if (!/^[0-9a-f]{20}$/.test(key)) return undefined;
  const item = await getItem(credentialKey(key));
  return item ? recordFrom(lrsCredentialItemSchema, item) : undefined;
}

/** Every credential of the site, oldest first. */
export async function listLrsCredentials(): Promise<LrsCredentialRecord[]> {
  const items = await queryAll({ index: INDEXES.gsi1, partition: 'LRSKEYS' });
  return items.map(recordsOf(lrsCredentialItemSchema));
}

/** False when there was none to revoke. */
export async function deleteLrsCredential(key: string): Promise<boolean> {
  try {
    await db().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: credentialKey(key),
        ConditionExpression: 'attribute_exists(pk)',
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailed(error)) return false;
    throw error;
  }
}
