/**
 * What an acknowledgement request adds beyond the signature (docs/competency.md "Comprehension
 * and decline"):
 * - ComprehensionQuiz: pk ACKQUIZ#<releaseid> / sk QUIZ — the quiz a person must pass (after
 *   being asked) before signing the release; set and cleared by whoever may change the document.
 * - AcknowledgementDecline: pk ACKDECLINE#<releaseid>#<userid> / sk DECLINE#<padded date>#<declineid>
 *   — a person's decline with their comment, kept as the acknowledgement's history (append only,
 *   at most MAX_DECLINES per acknowledgement).
 */
import * as z from 'zod/mini';
import { tableName } from '../client.ts';
import { getItem } from '../items.ts';
import { padId } from '../keys.ts';
import { queryAll } from '../paging.ts';
import type { LabelledWrite } from '../transactions.ts';
import { recordFrom, recordsOf, type StoredRecord } from '../stored-item.ts';
import { serviceAuthorSchema } from './api-token.ts';

const id = z.int().check(z.positive());

/** Declines kept per acknowledgement: past it the person talks to the owner another way. */
export const MAX_DECLINES = 20;

export const comprehensionQuizItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.literal('QUIZ'),
  entity: z.literal('ComprehensionQuiz'),
  releaseid: id,
  quizid: id,
  /** Who tied it, when; null when a site API token did, named by `userid_token` (decision 260). */
  userid: z.nullable(z.int()),
  userid_token: z.optional(serviceAuthorSchema),
  date: z.number(),
});
export type ComprehensionQuizRecord = StoredRecord<typeof comprehensionQuizItemSchema>;

export const acknowledgementDeclineItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.string(),
  entity: z.literal('AcknowledgementDecline'),
  declineid: z.string().check(z.regex(/^[0-9a-f-]{36}$/)),
  releaseid: id,
  userid: id,
  doctype: z.enum(['guide', 'wiki']),
  docid: id,
  comment: z.string(),
  date: z.number(),
});
export type AcknowledgementDeclineRecord = StoredRecord<typeof acknowledgementDeclineItemSchema>;

export const quizKey = (releaseid: number) => ({ pk: `ACKQUIZ#${releaseid}`, sk: 'QUIZ' as const });
const declinePartition = (releaseid: number, userid: number) => `ACKDECLINE#${releaseid}#${userid}`;

export async function getComprehensionQuiz(releaseid: number): Promise<ComprehensionQuizRecord | undefined> {
  const item = await getItem(quizKey(releaseid), { consistent: true });
  return item ? recordFrom(comprehensionQuizItemSchema, item) : undefined;
}

/** Ties the quiz to the release (null: unties it); written with its audit record. */
export function comprehensionQuizWrite(releaseid: number, record: ComprehensionQuizRecord | null): LabelledWrite {
  return record
    ? {
        label: 'comprehension',
        item: {
          Put: { TableName: tableName(), Item: { ...quizKey(releaseid), entity: 'ComprehensionQuiz', ...record } },
        },
      }
    : { label: 'comprehension', item: { Delete: { TableName: tableName(), Key: quizKey(releaseid) } } };
}

/** A person's declines of one acknowledgement, oldest first. */
export async function declinesOf(releaseid: number, userid: number): Promise<AcknowledgementDeclineRecord[]> {
  const items = await queryAll({
    partition: declinePartition(releaseid, userid),
    sortPrefix: 'DECLINE#',
    consistent: true,
  });
  return items.map(recordsOf(acknowledgementDeclineItemSchema));
}

/** The decline, written once (its key is new). */
export function declinePut(decline: AcknowledgementDeclineRecord): LabelledWrite {
  return {
    label: 'decline',
    item: {
      Put: {
        TableName: tableName(),
        Item: {
          pk: declinePartition(decline.releaseid, decline.userid),
          sk: `DECLINE#${padId(decline.date)}#${decline.declineid}`,
          entity: 'AcknowledgementDecline',
          ...decline,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  };
}
