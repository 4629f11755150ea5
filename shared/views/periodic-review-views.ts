/**
 * Wire shapes of periodic review (the real bodies are not documented; docs/wire-fidelity.md §3.24): a
 * zod schema per shape, published as the routes' responses in OpenAPI, and the functions that
 * build them, typed by those schemas so the two cannot drift apart.
 */
import * as z from 'zod/mini';
import { authenticatedBySchema, BY_PASSWORD } from '../domain/signature-auth.ts';
import { PERIOD_UNITS, reviewDocumentStatus } from '../domain/review-period.ts';
import { DOCTYPES } from '../domain/doctypes.ts';
import { actorUserid } from '../domain/caller.ts';
import { actingTokenSchema, actingTokenView } from './common-schemas.ts';
import type { ReviewDocumentRecord, ReviewScheduleRecord } from '../db/entities/review-schedule.ts';
import type { ChangeRequestRecord, PeriodicReviewRecord } from '../db/entities/periodic-review.ts';

const id = z.int();
const nullableId = z.nullable(z.int());
const doctype = z.enum(DOCTYPES);
const outcome = z.enum(['approved', 'changes_requested']);

export const scheduleSchema = z.object({
  prsid: id,
  name: z.string(),
  description: z.string(),
  frequency_quantity: z.int(),
  frequency_unit: z.enum(PERIOD_UNITS),
  reviewer_userid: id,
  /** null when a site API token created it (`created_by_token` names it; decision 260). */
  created_by: z.nullable(id),
  created_by_token: z.optional(actingTokenSchema),
  created_date: z.int(),
  document_count: z.int(),
});

export const reviewDocumentSchema = z.object({
  prdid: id,
  prsid: id,
  doctype,
  docid: id,
  title: z.string(),
  reviewer_userid: id,
  added_by: z.nullable(id),
  added_by_token: z.optional(actingTokenSchema),
  added_date: z.int(),
  next_review_due: z.int(),
  status: z.enum(['current', 'overdue', 'changes_requested']),
  last_review: z.nullable(z.object({ reviewid: id, date: z.int(), revisionid: id, outcome })),
  open_change_requestid: nullableId,
});

export const signatureSchema = z.object({
  userid: id,
  printed_name: z.string(),
  meaning: z.enum(['approve', 'reject', 'review']),
  signed_at: z.int(),
  revisionid: id,
  revision_hash: z.string(),
  method: z.enum(['password', 'token']),
  /** How the signer proved themselves: password, or a step-up at their identity provider (decision 237). */
  authenticated_by: authenticatedBySchema,
});

export const reviewSchema = z.object({
  reviewid: id,
  prdid: id,
  prsid: id,
  doctype,
  docid: id,
  title: z.string(),
  revisionid: id,
  revision_hash: z.string(),
  outcome,
  notes: z.string(),
  date: z.int(),
  next_review_due: z.int(),
  change_requestid: nullableId,
  signature: signatureSchema,
});

export const changeRequestSchema = z.object({
  change_requestid: id,
  prdid: id,
  prsid: id,
  doctype,
  docid: id,
  title: z.string(),
  revisionid: id,
  requested_by: id,
  assignee_userid: id,
  notes: z.string(),
  status: z.enum(['open', 'resolved']),
  created_date: z.int(),
  reviewids: z.array(id),
  resolved_date: z.nullable(z.int()),
  resolved_by_reviewid: nullableId,
  resolved_revisionid: nullableId,
});

export const scheduleWithDocumentsSchema = z.object({
  ...scheduleSchema.shape,
  documents: z.array(reviewDocumentSchema),
});

export const documentScheduleSchema = z.object({
  doctype,
  docid: id,
  title: z.string(),
  url: z.string(),
  current_revisionid: id,
  schedule: z.nullable(scheduleSchema),
  document: z.nullable(reviewDocumentSchema),
  reviews: z.array(reviewSchema),
});

export type ScheduleView = z.infer<typeof scheduleSchema>;
export type ReviewDocumentView = z.infer<typeof reviewDocumentSchema>;
export type ReviewView = z.infer<typeof reviewSchema>;
export type ChangeRequestView = z.infer<typeof changeRequestSchema>;

export function scheduleView(schedule: ReviewScheduleRecord): ScheduleView {
  return {
    prsid: schedule.prsid,
    name: schedule.name,
    description: schedule.description,
    frequency_quantity: schedule.frequency_quantity,
    frequency_unit: schedule.frequency_unit,
    reviewer_userid: schedule.reviewer_userid,
    created_by: actorUserid(schedule.created_by),
    ...actingTokenView('created_by', schedule.created_by_token),
    created_date: schedule.created_date,
    document_count: Number(schedule.document_count),
  };
}

export function reviewDocumentView(document: ReviewDocumentRecord, now: number): ReviewDocumentView {
  return {
    prdid: document.prdid,
    prsid: document.prsid,
    doctype: document.doctype,
    docid: document.docid,
    title: document.title,
    reviewer_userid: document.reviewer_userid,
    added_by: actorUserid(document.added_by),
    ...actingTokenView('added_by', document.added_by_token),
    added_date: document.added_date,
    next_review_due: document.next_review_due,
    status: reviewDocumentStatus(document, now),
    last_review:
      document.last_reviewid === null
        ? null
        : {
            reviewid: document.last_reviewid,
            date: document.last_reviewed_date!,
            revisionid: document.last_reviewed_revisionid!,
            outcome: document.last_outcome!,
          },
    open_change_requestid: document.open_change_requestid,
  };
}

export function reviewView(review: PeriodicReviewRecord): ReviewView {
  return {
    reviewid: review.reviewid,
    prdid: review.prdid,
    prsid: review.prsid,
    doctype: review.doctype,
    docid: review.docid,
    title: review.title,
    revisionid: review.revisionid,
    revision_hash: review.revision_hash,
    outcome: review.outcome,
    notes: review.notes,
    date: review.date,
    next_review_due: review.next_review_due,
    change_requestid: review.change_requestid,
    signature: {
      userid: review.reviewer_userid,
      printed_name: review.printed_name,
      meaning: 'review',
      signed_at: review.date,
      revisionid: review.revisionid,
      revision_hash: review.revision_hash,
      method: review.method,
      authenticated_by: review.authenticated_by ?? BY_PASSWORD,
    },
  };
}

export function changeRequestView(change: ChangeRequestRecord): ChangeRequestView {
  return {
    change_requestid: change.change_requestid,
    prdid: change.prdid,
    prsid: change.prsid,
    doctype: change.doctype,
    docid: change.docid,
    title: change.title,
    revisionid: change.revisionid,
    requested_by: change.requested_by,
    assignee_userid: change.assignee_userid,
    notes: change.notes,
    status: change.status,
    created_date: change.created_date,
    reviewids: change.reviewids,
    resolved_date: change.resolved_date,
    resolved_by_reviewid: change.resolved_by_reviewid,
    resolved_revisionid: change.resolved_revisionid,
  };
}
