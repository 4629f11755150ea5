/**
 * Notices (docs/notices.md).
 * - NoticeDue: pk NOTICEDUE#<shard 0-7> / sk `<padded fire_at>#<kind>#<subject>`: one notice waiting
 *   for its instant, written with the change that asks for it (an acknowledgement, a level with an
 *   expiry, a retraining assignment). The sweep Queries each shard for sort keys up to its clock
 *   (only what is due; no Scan, no filter) and deletes each item once handled, so the next sweep
 *   starts where this one stopped. The shard spreads writes (hash of the subject); order within a
 *   shard is by instant.
 * - NoticeSent: pk NOTICESENT#<kind>#<subject>#<due>#<recipient userid> / sk SENT: the mail of one
 *   notice to one recipient was sent. Created with attribute_not_exists before the mail goes, so a
 *   retry or a second sweep never sends it again (at most once).
 * - NoticePreferences: pk NOTICEPREF#<userid> / sk PREFS: which kinds of notice the person is mailed
 *   (absent or a kind missing: on).
 * - NoticeSettings: pk NOTICESET#SITE / sk SETTINGS: the site's leads and delays (null: defaults).
 */
import * as z from 'zod/mini';
import { tableName } from '../client.ts';
import { deleteItem, getItem, putItem } from '../items.ts';
import { padId } from '../keys.ts';
import { queryPage } from '../paging.ts';
import { batchGetInOrder } from '../batch.ts';
import { TTL_ATTRIBUTE } from '../table.ts';
import type { LabelledWrite } from '../transactions.ts';
import { recordFrom, recordsOf, type StoredRecord } from '../stored-item.ts';
import {
  NOTICE_KINDS,
  NOTICE_SETTING_DEFAULTS,
  type NoticeKind,
  type NoticeSettings,
  type QueuedNotice,
} from '../../domain/notices.ts';

const id = z.int().check(z.positive());
export const NOTICE_SHARDS = 8;
/** Sent markers outlive any due date they guard by far; DynamoDB's TTL then removes them. */
const SENT_MARKER_DAYS = 800;

export const noticeDueItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.string(),
  entity: z.literal('NoticeDue'),
  shard: z.int().check(z.minimum(0), z.maximum(NOTICE_SHARDS - 1)),
  kind: z.enum(NOTICE_KINDS),
  /** What the notice is about: ACK#<releaseid>#<userid>, LEVEL#<userid>#<skillid>, ASSIGN#<assignmentid>#<userid>. */
  subject: z.string(),
  fire_at: z.number(),
  due: z.number(),
  /** The person concerned (the one asked, the holder, the trainee). */
  userid: id,
  releaseid: z.optional(id),
  skillid: z.optional(id),
  course_assignmentid: z.optional(id),
  wikiid: z.optional(id),
});
export type NoticeDueRecord = StoredRecord<typeof noticeDueItemSchema>;
export type NoticeSubject = Omit<NoticeDueRecord, 'shard' | 'kind' | 'fire_at' | 'due'>;

export const noticeSentItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.literal('SENT'),
  entity: z.literal('NoticeSent'),
  kind: z.enum(NOTICE_KINDS),
  subject: z.string(),
  due: z.number(),
  recipient_userid: id,
  sent_date: z.number(),
  ttl: z.number(),
});

const preferenceFields = Object.fromEntries(NOTICE_KINDS.map((kind) => [kind, z.optional(z.boolean())])) as {
  [K in NoticeKind]: z.ZodMiniOptional<z.ZodMiniBoolean>;
};
export const noticePreferencesItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.literal('PREFS'),
  entity: z.literal('NoticePreferences'),
  userid: id,
  ...preferenceFields,
  modified_date: z.number(),
});
export type NoticePreferencesRecord = StoredRecord<typeof noticePreferencesItemSchema>;

const days = z.nullable(z.int().check(z.minimum(0), z.maximum(3650)));
export const noticeSettingsItemSchema = z.strictObject({
  pk: z.literal('NOTICESET#SITE'),
  sk: z.literal('SETTINGS'),
  entity: z.literal('NoticeSettings'),
  due_soon_days: days,
  escalation_days: days,
  lapse_soon_days: days,
  retraining_due_days: days,
  modified_date: z.number(),
  modified_by: z.nullable(id),
});
export type NoticeSettingsRecord = StoredRecord<typeof noticeSettingsItemSchema>;

/** A stable shard of a subject: every notice of one subject sits in one shard. */
export function shardOf(subject: string): number {
  let hash = 0;
  for (const char of subject) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return hash % NOTICE_SHARDS;
}

export const dueKey = (record: Pick<NoticeDueRecord, 'shard' | 'fire_at' | 'kind' | 'subject'>) => ({
  pk: `NOTICEDUE#${record.shard}`,
  sk: `${padId(record.fire_at)}#${record.kind}#${record.subject}`,
});

/** The queue items of these notices of one subject (put: writing them again changes nothing). */
export function noticeDueWrites(subject: NoticeSubject, notices: QueuedNotice[]): LabelledWrite[] {
  const shard = shardOf(subject.subject);
  return notices.map((notice) => {
    const record: NoticeDueRecord = { ...subject, shard, kind: notice.kind, fire_at: notice.fire_at, due: notice.due };
    return {
      label: `notice-due:${notice.kind}`,
      item: { Put: { TableName: tableName(), Item: { ...dueKey(record), entity: 'NoticeDue', ...record } } },
    };
  });
}

/** Where a page of the queue ended: the next page starts after it (items left there failed). */
export type DueCursor = string;

export function dueCursorAfter(record: NoticeDueRecord): DueCursor {
  // The smallest string above the item's sort key: the next page starts right after it.
  return `${dueKey(record).sk}\u0000`;
}

/** The queue items of one shard due at or before `asOf`, soonest first (a bounded page), from `from` on. */
export async function dueNotices(
  shard: number,
  asOf: number,
  limit: number,
  from: DueCursor = '0',
): Promise<NoticeDueRecord[]> {
  const items = await queryPage(
    { partition: `NOTICEDUE#${shard}`, sortBetween: { from, to: `${padId(asOf)}#~` }, consistent: true },
    { limit, offset: 0 },
  );
  return items.map(recordsOf(noticeDueItemSchema));
}

/** The queue item leaves, in a transaction (the notice's event and mail claims). */
export function dueNoticeDelete(record: NoticeDueRecord): LabelledWrite {
  return { label: 'notice-due', item: { Delete: { TableName: tableName(), Key: dueKey(record) } } };
}

/** Puts a queue item back (its mail could not be sent after the transaction that took it). */
export async function requeueNotice(record: NoticeDueRecord): Promise<void> {
  await putItem({ ...dueKey(record), entity: 'NoticeDue', ...record });
}

/** Handled: the queue item leaves (deleting one already gone is fine). */
export async function removeDueNotice(record: NoticeDueRecord): Promise<void> {
  await deleteItem(dueKey(record));
}

export const sentKey = (notice: Pick<NoticeDueRecord, 'kind' | 'subject' | 'due'>, recipient: number) => ({
  pk: `NOTICESENT#${notice.kind}#${notice.subject}#${notice.due}#${recipient}`,
  sk: 'SENT' as const,
});

/** Gives a claim back (its mail could not be sent): the next sweep may send it. */
export async function releaseNoticeMail(
  notice: Pick<NoticeDueRecord, 'kind' | 'subject' | 'due'>,
  recipient: number,
): Promise<void> {
  await deleteItem(sentKey(notice, recipient));
}

function sentItem(notice: Pick<NoticeDueRecord, 'kind' | 'subject' | 'due'>, recipient: number, now: number) {
  return {
    ...sentKey(notice, recipient),
    entity: 'NoticeSent',
    kind: notice.kind,
    subject: notice.subject,
    due: notice.due,
    recipient_userid: recipient,
    sent_date: now,
    [TTL_ATTRIBUTE]: Math.floor(Date.now() / 1000) + SENT_MARKER_DAYS * 24 * 3600,
  };
}

/** The claim of a notice's mail to one recipient as a transaction item (absent, or the transaction fails). */
export function noticeMailClaimWrite(
  notice: Pick<NoticeDueRecord, 'kind' | 'subject' | 'due'>,
  recipient: number,
  now: number,
): LabelledWrite {
  return {
    label: `notice-sent:${recipient}`,
    item: {
      Put: {
        TableName: tableName(),
        Item: sentItem(notice, recipient, now),
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  };
}

/** Claims the mail of a notice to one recipient; false when it was sent (claimed) before. */
export async function claimNoticeMail(
  notice: Pick<NoticeDueRecord, 'kind' | 'subject' | 'due'>,
  recipient: number,
  now: number,
): Promise<boolean> {
  return putItem(sentItem(notice, recipient, now), { ifAbsent: true });
}

export const prefsKey = (userid: number) => ({ pk: `NOTICEPREF#${userid}`, sk: 'PREFS' as const });

/** Several people's preferences in one BatchGet per 100 (no item: every kind on). */
export async function getManyNoticePreferences(userids: number[]): Promise<NoticePreferencesRecord[]> {
  return (await batchGetInOrder(userids.map(prefsKey))).map(recordsOf(noticePreferencesItemSchema));
}

export async function getNoticePreferences(userid: number): Promise<NoticePreferencesRecord | undefined> {
  const item = await getItem(prefsKey(userid), { consistent: true });
  return item ? recordFrom(noticePreferencesItemSchema, item) : undefined;
}

export async function putNoticePreferences(record: NoticePreferencesRecord): Promise<void> {
  await putItem({ ...prefsKey(record.userid), entity: 'NoticePreferences', ...record });
}

export const settingsKey = { pk: 'NOTICESET#SITE', sk: 'SETTINGS' } as const;

export async function getNoticeSettingsRecord(): Promise<NoticeSettingsRecord | undefined> {
  const item = await getItem(settingsKey, { consistent: true });
  return item ? recordFrom(noticeSettingsItemSchema, item) : undefined;
}

/** The site's settings as a transaction item (written with their audit record). */
export function noticeSettingsWrite(record: NoticeSettingsRecord): LabelledWrite {
  return {
    label: 'notice-settings',
    item: { Put: { TableName: tableName(), Item: { ...settingsKey, entity: 'NoticeSettings', ...record } } },
  };
}

/** The site's notice settings in effect (stored values, else the defaults). */
export async function noticeSettings(): Promise<NoticeSettings> {
  const stored = await getNoticeSettingsRecord();
  return {
    due_soon_days: stored?.due_soon_days ?? NOTICE_SETTING_DEFAULTS.due_soon_days,
    escalation_days: stored?.escalation_days ?? NOTICE_SETTING_DEFAULTS.escalation_days,
    lapse_soon_days: stored?.lapse_soon_days ?? NOTICE_SETTING_DEFAULTS.lapse_soon_days,
    retraining_due_days: stored?.retraining_due_days ?? NOTICE_SETTING_DEFAULTS.retraining_due_days,
  };
}
