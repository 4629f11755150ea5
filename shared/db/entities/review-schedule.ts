/**
 * Periodic review schedules and their documents.
 * - Schedule: pk PR_SCHEDULE#<prsid> / sk SCHEDULE, listed through gsi1 (PR_SCHEDULES, padded
 *   prsid). It counts its documents (document_count), so a schedule with documents cannot be
 *   deleted (the delete's condition).
 * - Document in a schedule: pk PR_DOCUMENT#<prdid> / sk DOCUMENT (found by prdid alone), in its
 *   schedule through gsi1 (PR_SCHEDULE#<prsid>#DOCUMENTS, padded prdid) and in its reviewer's
 *   due list through gsi2 (PR_DUE#USER#<reviewer>, <padded due date>#<padded prdid>). A
 *   document is in at most one schedule: the claim UNIQUE#PERIODIC_REVIEW_DOC#<doctype>#<docid>
 *   (which also finds the prdid of a document) is written in the same transaction. Found by
 *   title words through the REVIEW_DOC search partition.
 */
import { tableName } from '../client.ts';
import { getItem } from '../items.ts';
import { padId } from '../keys.ts';
import { INDEXES } from '../table.ts';
import { queryPage } from '../paging.ts';
import { batchGetInOrder, batchGetParts, type BatchPart } from '../batch.ts';
import { searchTokenWrites } from '../search-index.ts';
import { searchTokens } from '../../domain/search-tokens.ts';
import { claimUnique, releaseUnique, uniqueKey } from '../uniqueness.ts';
import type { LabelledWrite } from '../transactions.ts';
import type { Doctype } from '../../domain/doctypes.ts';
import { parseStored, recordsOf, type StoredRecord } from '../stored-item.ts';
import * as z from 'zod/mini';
import { serviceAuthorSchema } from './api-token.ts';

export type ReviewOutcome = 'approved' | 'changes_requested';

/** A scheduled document is found by at most this many of its title's words. */
const MAX_TITLE_TOKENS = 6;

/** The search words a scheduled document is stored with. */
export function reviewTitleTokens(title: string): string[] {
  return searchTokens(title).slice(0, MAX_TITLE_TOKENS);
}

export const reviewScheduleItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.literal('SCHEDULE'),
  entity: z.literal('ReviewSchedule'),
  gsi1pk: z.literal('PR_SCHEDULES'),
  gsi1sk: z.string(),
  prsid: z.int().check(z.positive()),
  name: z.string(),
  description: z.string(),
  frequency_quantity: z.number(),
  frequency_unit: z.enum(['day', 'week', 'month', 'year']),
  /** Reviewer of documents added without one of their own. */
  reviewer_userid: z.int(),
  /** null for a site API token, named by created_by_token (decision 260); 0: a token's, before it. */
  created_by: z.nullable(z.int()),
  created_by_token: z.optional(serviceAuthorSchema),
  created_date: z.number(),
  document_count: z.int(),
});

export type ReviewScheduleRecord = StoredRecord<typeof reviewScheduleItemSchema>;

export const reviewDocumentItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.literal('DOCUMENT'),
  entity: z.literal('ReviewDocument'),
  gsi1pk: z.string(),
  gsi1sk: z.string(),
  gsi2pk: z.string(),
  gsi2sk: z.string(),
  prdid: z.int().check(z.positive()),
  prsid: z.int().check(z.positive()),
  doctype: z.enum(['guide', 'wiki']),
  docid: z.int().check(z.positive()),
  /** The document's title when added or last reviewed (what the search index holds). */
  title: z.string(),
  reviewer_userid: z.int(),
  added_by: z.nullable(z.int()),
  added_by_token: z.optional(serviceAuthorSchema),
  added_date: z.number(),
  next_review_due: z.number(),
  last_reviewid: z.nullable(z.int()),
  last_reviewed_date: z.nullable(z.number()),
  last_reviewed_revisionid: z.nullable(z.int()),
  last_outcome: z.nullable(z.enum(['approved', 'changes_requested'])),
  open_change_requestid: z.nullable(z.int()),
  search_tokens: z.array(z.string()),
  version: z.int(),
});

export type ReviewDocumentRecord = StoredRecord<typeof reviewDocumentItemSchema>;

export function scheduleKey(prsid: number) {
  return { pk: `PR_SCHEDULE#${prsid}`, sk: 'SCHEDULE' as const };
}

export function documentKey(prdid: number) {
  return { pk: `PR_DOCUMENT#${prdid}`, sk: 'DOCUMENT' as const };
}

export const claimValue = (doctype: Doctype, docid: number) => `${doctype}#${docid}`;

function dueIndex(document: Pick<ReviewDocumentRecord, 'reviewer_userid' | 'next_review_due' | 'prdid'>) {
  return {
    [INDEXES.gsi2.pk]: `PR_DUE#USER#${document.reviewer_userid}`,
    [INDEXES.gsi2.sk]: `${padId(document.next_review_due)}#${padId(document.prdid)}`,
  };
}

const asSchedule = recordsOf(reviewScheduleItemSchema);
const asDocument = recordsOf(reviewDocumentItemSchema);

// ---- schedules ----

export function scheduleCreateWrite(schedule: ReviewScheduleRecord): LabelledWrite {
  return {
    label: 'schedule',
    item: {
      Put: {
        TableName: tableName(),
        Item: {
          ...scheduleKey(schedule.prsid),
          entity: 'ReviewSchedule',
          [INDEXES.gsi1.pk]: 'PR_SCHEDULES',
          [INDEXES.gsi1.sk]: padId(schedule.prsid),
          ...schedule,
        } satisfies z.input<typeof reviewScheduleItemSchema>,
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  };
}

/** Deletes a schedule that has no documents (label `schedule`; the old item tells why it failed). */
export function scheduleDeleteWrite(prsid: number): LabelledWrite {
  return {
    label: 'schedule',
    item: {
      Delete: {
        TableName: tableName(),
        Key: scheduleKey(prsid),
        ConditionExpression: 'attribute_exists(pk) AND document_count = :none',
        ExpressionAttributeValues: { ':none': 0 },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    },
  };
}

/** Adds `delta` to a schedule's document count; the schedule must exist (label `schedule:<prsid>`). */
export function scheduleCountWrite(prsid: number, delta: number): LabelledWrite {
  return {
    label: `schedule:${prsid}`,
    item: {
      Update: {
        TableName: tableName(),
        Key: scheduleKey(prsid),
        UpdateExpression: 'ADD document_count :delta',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':delta': delta },
      },
    },
  };
}

export async function getSchedule(prsid: number): Promise<ReviewScheduleRecord | undefined> {
  const item = await getItem(scheduleKey(prsid), { consistent: true });
  return item ? asSchedule(item) : undefined;
}

export async function getSchedules(prsids: number[]): Promise<ReviewScheduleRecord[]> {
  const [schedules] = await batchGetParts(schedulesPart(prsids));
  return schedules;
}

/** Schedules by prsid as a share of a BatchGet (each once, unknown ones left out), in the order asked. */
export function schedulesPart(prsids: number[]): BatchPart<ReviewScheduleRecord[]> {
  // batchGetParts decodes the items found in the order of the part's keys.
  return { keys: [...new Set(prsids)].map(scheduleKey), decode: (items) => items.map(asSchedule) };
}

export async function listSchedules(page: { limit: number; offset: number }): Promise<ReviewScheduleRecord[]> {
  return (await queryPage({ index: INDEXES.gsi1, partition: 'PR_SCHEDULES' }, page)).map(asSchedule);
}

// ---- documents ----

/** A document joins a schedule: its item, its claim (label `claim:<doctype>#<docid>`), its search words. */
export function documentAddWrites(document: ReviewDocumentRecord): LabelledWrite[] {
  return [
    {
      label: `document:${document.prdid}`,
      item: {
        Put: {
          TableName: tableName(),
          Item: {
            ...documentKey(document.prdid),
            entity: 'ReviewDocument',
            [INDEXES.gsi1.pk]: `PR_SCHEDULE#${document.prsid}#DOCUMENTS`,
            [INDEXES.gsi1.sk]: padId(document.prdid),
            ...dueIndex(document),
            ...document,
          } satisfies z.input<typeof reviewDocumentItemSchema>,
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    },
    {
      ...claimUnique('PERIODIC_REVIEW_DOC', claimValue(document.doctype, document.docid), {
        prdid: document.prdid,
        prsid: document.prsid,
      }),
      label: `claim:${claimValue(document.doctype, document.docid)}`,
    },
    ...searchTokenWrites('REVIEW_DOC', document.prdid, [], document.search_tokens).map((write) => ({
      ...write,
      label: `${write.label}:${document.prdid}`,
    })),
  ];
}

/** A document leaves its schedule (its reviews and change requests stay on record). */
export function documentRemoveWrites(document: ReviewDocumentRecord): LabelledWrite[] {
  return [
    {
      label: `document:${document.prdid}`,
      item: {
        Delete: {
          TableName: tableName(),
          Key: documentKey(document.prdid),
          ConditionExpression: 'attribute_exists(pk)',
        },
      },
    },
    {
      ...releaseUnique('PERIODIC_REVIEW_DOC', claimValue(document.doctype, document.docid)),
      label: `release:${document.prdid}`,
    },
    ...searchTokenWrites('REVIEW_DOC', document.prdid, document.search_tokens, []).map((write) => ({
      ...write,
      label: `${write.label}:${document.prdid}`,
    })),
  ];
}

/**
 * Records a review on a document read at `before.version` (label `document`): its last review,
 * next due date (moving it in the reviewer's due list), open change request, title and words.
 * Label `review-document` fails when another review came first.
 */
export function documentReviewedWrites(before: ReviewDocumentRecord, after: ReviewDocumentRecord): LabelledWrite[] {
  const due = dueIndex(after);
  return [
    {
      label: 'review-document',
      item: {
        Update: {
          TableName: tableName(),
          Key: documentKey(after.prdid),
          UpdateExpression:
            'SET title = :title, next_review_due = :due, last_reviewid = :reviewid, last_reviewed_date = ' +
            ':date, last_reviewed_revisionid = :revisionid, last_outcome = :outcome, open_change_requestid ' +
            '= :change, search_tokens = :tokens, version = :next, #g2sk = :g2sk',
          ConditionExpression: 'attribute_exists(pk) AND version = :expected',
          ExpressionAttributeNames: { '#g2sk': INDEXES.gsi2.sk },
          ExpressionAttributeValues: {
            ':title': after.title,
            ':due': after.next_review_due,
            ':reviewid': after.last_reviewid,
            ':date': after.last_reviewed_date,
            ':revisionid': after.last_reviewed_revisionid,
            ':outcome': after.last_outcome,
            ':change': after.open_change_requestid,
            ':tokens': after.search_tokens,
            ':next': before.version + 1,
            ':expected': before.version,
            ':g2sk': due[INDEXES.gsi2.sk],
          },
        },
      },
    },
    ...searchTokenWrites('REVIEW_DOC', after.prdid, before.search_tokens, after.search_tokens),
  ];
}

export async function getReviewDocument(prdid: number): Promise<ReviewDocumentRecord | undefined> {
  const item = await getItem(documentKey(prdid), { consistent: true });
  return item ? asDocument(item) : undefined;
}

export async function getReviewDocuments(prdids: number[]): Promise<ReviewDocumentRecord[]> {
  return (await batchGetInOrder([...new Set(prdids)].map(documentKey))).map(asDocument);
}

/** The schedule entry of a document, if it is in one. */
export async function findReviewDocument(doctype: Doctype, docid: number): Promise<ReviewDocumentRecord | undefined> {
  const claim = await getItem(uniqueKey('PERIODIC_REVIEW_DOC', claimValue(doctype, docid)), { consistent: true });
  return claim ? getReviewDocument(Number(claim.prdid)) : undefined;
}

/** A document's claim on its place in a schedule: which schedule, and its entry there. */
export interface ScheduleClaim {
  doctype: Doctype;
  docid: number;
  prsid: number;
  prdid: number;
}

/** What a claim item holds beside its key (uniqueness.ts writes it; entity-schemas.ts declares it whole). */
const claimItemSchema = z.object({
  pk: z.string(),
  prdid: z.int().check(z.positive()),
  prsid: z.int().check(z.positive()),
});

/**
 * The claims of several documents as a share of a BatchGet, in the order asked: a document in no
 * schedule has no claim item, so it is simply left out. Its keys are one per document, always.
 */
export function scheduledClaimsPart(documents: Array<{ doctype: Doctype; docid: number }>): BatchPart<ScheduleClaim[]> {
  const keyed = documents.map((document) => ({
    document,
    key: uniqueKey('PERIODIC_REVIEW_DOC', claimValue(document.doctype, document.docid)),
  }));
  return {
    keys: keyed.map(({ key }) => key),
    decode(items) {
      const byPk = new Map(items.map((item) => [String(item.pk), item]));
      return keyed.flatMap(({ document, key }) => {
        const item = byPk.get(key.pk);
        if (!item) return [];
        const { prsid, prdid } = parseStored(claimItemSchema, item);
        return [{ doctype: document.doctype, docid: document.docid, prsid, prdid }];
      });
    },
  };
}

/** The claims of several documents (which are already in a schedule), in the order asked for. */
export async function findScheduledClaims(
  documents: Array<{ doctype: Doctype; docid: number }>,
): Promise<ScheduleClaim[]> {
  const [claims] = await batchGetParts(scheduledClaimsPart(documents));
  return claims;
}

export async function listScheduleDocuments(
  prsid: number,
  page: { limit: number; offset: number },
): Promise<ReviewDocumentRecord[]> {
  return (await queryPage({ index: INDEXES.gsi1, partition: `PR_SCHEDULE#${prsid}#DOCUMENTS` }, page)).map(asDocument);
}

/** A reviewer's documents, soonest due first; with `dueBefore`, only those due by then. */
export async function listDueDocuments(
  reviewerid: number,
  page: { limit: number; offset: number },
  dueBefore?: number,
): Promise<ReviewDocumentRecord[]> {
  const query = {
    index: INDEXES.gsi2,
    partition: `PR_DUE#USER#${reviewerid}`,
    ...(dueBefore !== undefined
      ? { sortBetween: { from: padId(0), to: `${padId(Math.max(0, dueBefore))}#\uffff` } }
      : {}),
  };
  return (await queryPage(query, page)).map(asDocument);
}
