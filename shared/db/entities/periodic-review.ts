/**
 * Periodic reviews and the change requests they raise.
 * - Review: pk PR_REVIEW#<reviewid> / sk REVIEW; by reviewer through gsi1
 *   (PR_REVIEWS#USER#<userid>, padded id) and by document through gsi2
 *   (PR_REVIEWS#<DOCTYPE>#<docid>, padded id). Written once, never changed: it is a signed record.
 * - Change request: pk PR_CHANGE#<id> / sk CHANGE_REQUEST; by assignee (the document's owner)
 *   through gsi1 (PR_CHANGES#USER#<userid>, <status>#<padded id>), so open ones are a prefix.
 *   A document has at most one open change request (its id is on the schedule document).
 */
import { tableName } from '../client.ts';
import { getItem } from '../items.ts';
import { padId } from '../keys.ts';
import { recordsOf, type StoredRecord } from '../stored-item.ts';
import { INDEXES } from '../table.ts';
import { queryPage } from '../paging.ts';
import type { LabelledWrite } from '../transactions.ts';
import type { Doctype } from '../../domain/doctypes.ts';
import * as z from 'zod/mini';
import { authenticatedBySchema } from '../../domain/signature-auth.ts';

export type ChangeRequestStatus = 'open' | 'resolved';

export const periodicReviewItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.literal('REVIEW'),
  entity: z.literal('PeriodicReview'),
  gsi1pk: z.string(),
  gsi1sk: z.string(),
  gsi2pk: z.string(),
  gsi2sk: z.string(),
  reviewid: z.int().check(z.positive()),
  prdid: z.int().check(z.positive()),
  prsid: z.int().check(z.positive()),
  doctype: z.enum(['guide', 'wiki']),
  docid: z.int().check(z.positive()),
  title: z.string(),
  revisionid: z.int(),
  revision_hash: z.string(),
  outcome: z.enum(['approved', 'changes_requested']),
  notes: z.string(),
  reviewer_userid: z.int(),
  /** The reviewer's name as printed at signing time. */
  printed_name: z.string(),
  date: z.number(),
  method: z.literal('password'),
  /** How the reviewer proved themselves (decision 237; none on older reviews: password). */
  authenticated_by: z.optional(authenticatedBySchema),
  next_review_due: z.number(),
  /** The change request this review raised, added to, or resolved. */
  change_requestid: z.nullable(z.int()),
});

export type PeriodicReviewRecord = StoredRecord<typeof periodicReviewItemSchema>;

/** A ChangeRequest, put whole on create and on every change. */
export const changeRequestItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.literal('CHANGE_REQUEST'),
  entity: z.literal('ChangeRequest'),
  gsi1pk: z.string(),
  gsi1sk: z.string(),
  change_requestid: z.int().check(z.positive()),
  prdid: z.int().check(z.positive()),
  prsid: z.int().check(z.positive()),
  doctype: z.enum(['guide', 'wiki']),
  docid: z.int().check(z.positive()),
  title: z.string(),
  /** The revision the change was asked for. */
  revisionid: z.int(),
  requested_by: z.int(),
  assignee_userid: z.int(),
  notes: z.string(),
  status: z.enum(['open', 'resolved']),
  created_date: z.number(),
  /** Every review that asked for this change (the first one opened it). */
  reviewids: z.array(z.int()),
  resolved_date: z.nullable(z.number()),
  resolved_by_reviewid: z.nullable(z.int()),
  resolved_revisionid: z.nullable(z.int()),
});

export type ChangeRequestRecord = StoredRecord<typeof changeRequestItemSchema>;

export function reviewKey(reviewid: number) {
  return { pk: `PR_REVIEW#${reviewid}`, sk: 'REVIEW' } as const;
}

export function changeKey(id: number) {
  return { pk: `PR_CHANGE#${id}`, sk: 'CHANGE_REQUEST' } as const;
}

const asReview = recordsOf(periodicReviewItemSchema);
const asChange = recordsOf(changeRequestItemSchema);

export function reviewPutWrite(review: PeriodicReviewRecord): LabelledWrite {
  return {
    label: 'review',
    item: {
      Put: {
        TableName: tableName(),
        Item: {
          ...reviewKey(review.reviewid),
          entity: 'PeriodicReview',
          [INDEXES.gsi1.pk]: `PR_REVIEWS#USER#${review.reviewer_userid}`,
          [INDEXES.gsi1.sk]: padId(review.reviewid),
          [INDEXES.gsi2.pk]: `PR_REVIEWS#${review.doctype.toUpperCase()}#${review.docid}`,
          [INDEXES.gsi2.sk]: padId(review.reviewid),
          ...review,
        } satisfies z.input<typeof periodicReviewItemSchema>,
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  };
}

/** Reviews a user made, newest first. */
export async function listReviewsBy(
  userid: number,
  page: { limit: number; offset: number },
): Promise<PeriodicReviewRecord[]> {
  return (await queryPage({ index: INDEXES.gsi1, partition: `PR_REVIEWS#USER#${userid}`, descending: true }, page)).map(
    asReview,
  );
}

/** Reviews of a document, newest first (they outlive its schedule). */
export async function listReviewsOf(
  doctype: Doctype,
  docid: number,
  page: { limit: number; offset: number },
): Promise<PeriodicReviewRecord[]> {
  return (
    await queryPage(
      { index: INDEXES.gsi2, partition: `PR_REVIEWS#${doctype.toUpperCase()}#${docid}`, descending: true },
      page,
    )
  ).map(asReview);
}

function changeIndex(change: ChangeRequestRecord) {
  return {
    [INDEXES.gsi1.pk]: `PR_CHANGES#USER#${change.assignee_userid}`,
    [INDEXES.gsi1.sk]: `${change.status}#${padId(change.change_requestid)}`,
  };
}

function changeItem(change: ChangeRequestRecord): z.input<typeof changeRequestItemSchema> {
  return { ...changeKey(change.change_requestid), entity: 'ChangeRequest', ...changeIndex(change), ...change };
}

export function changeRequestPutWrite(change: ChangeRequestRecord): LabelledWrite {
  return {
    label: 'change-request',
    item: {
      Put: {
        TableName: tableName(),
        Item: changeItem(change),
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  };
}

/** Replaces a change request that is still open (label `change-request`). */
export function changeRequestUpdateWrite(change: ChangeRequestRecord): LabelledWrite {
  return {
    label: 'change-request',
    item: {
      Put: {
        TableName: tableName(),
        Item: changeItem(change),
        ConditionExpression: 'attribute_exists(pk) AND #status = :open',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':open': 'open' },
      },
    },
  };
}

export async function getChangeRequest(id: number): Promise<ChangeRequestRecord | undefined> {
  const item = await getItem(changeKey(id), { consistent: true });
  return item ? asChange(item) : undefined;
}

/** Change requests assigned to a user, newest first; `status` narrows to open or resolved ones. */
export async function listChangeRequestsFor(
  userid: number,
  status: ChangeRequestStatus | undefined,
  page: { limit: number; offset: number },
): Promise<ChangeRequestRecord[]> {
  const query = {
    index: INDEXES.gsi1,
    partition: `PR_CHANGES#USER#${userid}`,
    descending: true,
    ...(status ? { sortPrefix: `${status}#` } : {}),
  };
  return (await queryPage(query, page)).map(asChange);
}
