/**
 * Intents to sign made offline (issue 30 §3, decision 225): pk USER#<signer> / sk
 * SIGNINTENT#<client_guid>. No signature is made offline: the device records that its user means
 * to answer a signoff request, with the device's time; the signature itself is made online when
 * the signer enters their password and confirms (21 CFR 11.200: every signature an act of the
 * signer's own credentials). Until then the intent is `pending`.
 * An intent names one of `signoff_requestid` (a signoff request's answer) or `releaseid` (the
 * acknowledgement of a release, decision 252); each kind's confirm route takes only its own.
 */
import * as z from 'zod/mini';
import { tableName } from '../client.ts';
import { getItem } from '../items.ts';
import { queryPage, type Page } from '../paging.ts';
import { recordFrom, recordsOf, type StoredRecord } from '../stored-item.ts';
import type { LabelledWrite } from '../transactions.ts';

export const signIntentItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.string(),
  entity: z.literal('SignIntent'),
  client_guid: z.string(),
  userid: z.int(),
  /** What the intent answers: a signoff request, or (decision 252) an acknowledgement of a release. */
  signoff_requestid: z.optional(z.int()),
  releaseid: z.optional(z.int()),
  approved: z.boolean(),
  comments: z.string(),
  /** When the device recorded the intent (its clock) and when the server received it. */
  device_time: z.int(),
  recorded_date: z.int(),
  fingerprint: z.string(),
  state: z.enum(['pending', 'confirmed']),
  confirmed_date: z.nullable(z.int()),
});

export type SignIntentRecord = StoredRecord<typeof signIntentItemSchema>;

export function signIntentKey(userid: number, guid: string) {
  return { pk: `USER#${userid}`, sk: `SIGNINTENT#${guid}` };
}

/** Records an intent once (label `sign-intent`: the guid is taken). */
export function signIntentPut(intent: SignIntentRecord): LabelledWrite {
  return {
    label: 'sign-intent',
    item: {
      Put: {
        TableName: tableName(),
        Item: { ...signIntentKey(intent.userid, intent.client_guid), entity: 'SignIntent', ...intent },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  };
}

export async function getSignIntent(userid: number, guid: string): Promise<SignIntentRecord | undefined> {
  const item = await getItem(signIntentKey(userid, guid), { consistent: true });
  return item ? recordFrom(signIntentItemSchema, item) : undefined;
}

/** Confirms a pending intent in the signature's transaction (label `sign-intent`: no longer pending). */
export function signIntentConfirmWrite(userid: number, guid: string, date: number): LabelledWrite {
  return {
    label: 'sign-intent',
    item: {
      Update: {
        TableName: tableName(),
        Key: signIntentKey(userid, guid),
        UpdateExpression: 'SET #state = :confirmed, confirmed_date = :date',
        ConditionExpression: '#state = :pending',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':confirmed': 'confirmed', ':pending': 'pending', ':date': date },
      },
    },
  };
}

/** A signer's intents, pending or confirmed (both when `state` is undefined), in client_guid order. */
export async function signIntentsOf(
  userid: number,
  state: SignIntentRecord['state'] | undefined,
  page: Page,
): Promise<SignIntentRecord[]> {
  const items = await queryPage(
    {
      partition: `USER#${userid}`,
      sortPrefix: 'SIGNINTENT#',
      filter: state
        ? {
            FilterExpression: '#state = :state',
            ExpressionAttributeNames: { '#state': 'state' },
            ExpressionAttributeValues: { ':state': state },
          }
        : undefined,
    },
    page,
  );
  return items.map(recordsOf(signIntentItemSchema));
}
