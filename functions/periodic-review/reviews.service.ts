/**
 * Periodic reviews: the assigned reviewer (or an Admin) reviews the document's current revision
 * and signs the review with their password (meaning "review", bound to the revision's hash).
 * "changes_requested" opens a change request for the document's owner (or adds to the open
 * one); "approved" resolves an open one. Either way the document is next due one period later.
 * The review, the document's new due date, the change request and the audit records (document
 * and reviewer chains) are one transaction, on condition that the document is still at the
 * reviewed revision.
 */
import { auditSubject } from '../../shared/db/audit.ts';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../shared/domain/errors.ts';
import { nextReviewDue } from '../../shared/domain/review-period.ts';
import type { Doctype } from '../../shared/domain/doctypes.ts';
import { auditActor, isAdmin, type Caller, type SignedInAuth } from '../../shared/domain/caller.ts';
import { canViewDocument, findDocument, requireDocument, revisionHash } from '../../shared/content/documents.ts';
import { proveSigner, refuseImpersonatedSignature } from '../../shared/accounts/e-signature.ts';
import { appendAudit } from '../../shared/db/audit.ts';
import { nextId } from '../../shared/db/counters.ts';
import { nowSeconds } from '../../shared/clock.ts';
import { emitDueReviews } from '../../shared/content/review-due-events.ts';
import { TransactionConditionFailed, type LabelledWrite } from '../../shared/db/transactions.ts';
import { documentRevisionCheck } from '../../shared/db/entities/document-check.ts';
import { getUser } from '../../shared/db/entities/user.ts';
import {
  documentReviewedWrites,
  findReviewDocument,
  getReviewDocument,
  getSchedule,
  listDueDocuments,
  type ReviewDocumentRecord,
  type ReviewOutcome,
} from '../../shared/db/entities/review-schedule.ts';
import {
  changeRequestPutWrite,
  changeRequestUpdateWrite,
  getChangeRequest,
  listChangeRequestsFor,
  listReviewsBy,
  listReviewsOf,
  reviewPutWrite,
  type ChangeRequestRecord,
  type PeriodicReviewRecord,
} from '../../shared/db/entities/periodic-review.ts';
import {
  changeRequestView,
  reviewDocumentView,
  reviewView,
  scheduleView,
} from '../../shared/views/periodic-review-views.ts';
import { titleTokens } from './schedules.service.ts';
import type { Page } from '../../shared/db/paging.ts';
import type { ChangeRequestsQuery, DueDocumentsQuery, ReviewInput } from './periodic-review.schemas.ts';

/** Reviews shown with a document's schedule (older ones: GET /periodic_review/reviews/{userid}, audit). */
const RECENT_REVIEWS = 20;

/** GET /periodic_review/{doctype}/{docid}: the document, its schedule entry and its latest reviews. */
export async function documentSchedule(caller: Caller, doctype: Doctype, docid: number) {
  const document = await requireDocument(doctype, docid);
  if (!canViewDocument(caller, document)) throw new ForbiddenError('You do not have access to this document');
  const [entry, reviews] = await Promise.all([
    findReviewDocument(doctype, docid),
    listReviewsOf(doctype, docid, { limit: RECENT_REVIEWS, offset: 0 }),
  ]);
  const schedule = entry ? await getSchedule(entry.prsid) : undefined;
  return {
    doctype,
    docid,
    title: document.title,
    url: document.url,
    current_revisionid: document.revisionid,
    schedule: schedule ? scheduleView(schedule) : null,
    document: entry ? reviewDocumentView(entry, nowSeconds()) : null,
    reviews: reviews.map(reviewView),
  };
}

/** The change request after this review (opened, added to, resolved, or none) and its write. */
async function changeAfterReview(
  entry: ReviewDocumentRecord,
  open: ChangeRequestRecord | undefined,
  review: {
    reviewid: number;
    outcome: ReviewOutcome;
    notes: string;
    revisionid: number;
    date: number;
    reviewer: number;
    owner: number;
  },
): Promise<{ change: ChangeRequestRecord | null; write: LabelledWrite | null; openAfter: number | null }> {
  if (review.outcome === 'approved') {
    if (!open) return { change: null, write: null, openAfter: null };
    const resolved: ChangeRequestRecord = {
      ...open,
      status: 'resolved',
      resolved_date: review.date,
      resolved_by_reviewid: review.reviewid,
      resolved_revisionid: review.revisionid,
    };
    return { change: resolved, write: changeRequestUpdateWrite(resolved), openAfter: null };
  }
  if (open) {
    const added: ChangeRequestRecord = { ...open, reviewids: [...open.reviewids, review.reviewid] };
    return { change: added, write: changeRequestUpdateWrite(added), openAfter: open.change_requestid };
  }
  const opened: ChangeRequestRecord = {
    change_requestid: await nextId('change_request'),
    prdid: entry.prdid,
    prsid: entry.prsid,
    doctype: entry.doctype,
    docid: entry.docid,
    title: entry.title,
    revisionid: review.revisionid,
    requested_by: review.reviewer,
    assignee_userid: review.owner,
    notes: review.notes,
    status: 'open',
    created_date: review.date,
    reviewids: [review.reviewid],
    resolved_date: null,
    resolved_by_reviewid: null,
    resolved_revisionid: null,
  };
  return { change: opened, write: changeRequestPutWrite(opened), openAfter: opened.change_requestid };
}

export async function review(auth: SignedInAuth, input: ReviewInput, sourceIp: string) {
  const caller = auth.user;
  const entry = await getReviewDocument(input.prdid);
  if (!entry) throw new NotFoundError(`No periodic review document with prdid ${input.prdid}`);
  refuseImpersonatedSignature(auth);
  if (entry.reviewer_userid !== caller.userid && !isAdmin(caller))
    throw new ForbiddenError("Only the document's reviewer or an Admin may review it");
  const document = await findDocument(entry.doctype, entry.docid);
  if (!document)
    throw ValidationError.field(
      'prdid',
      'document_missing',
      `The ${entry.doctype} ${entry.docid} of this schedule entry no longer exists`,
    );
  if (!canViewDocument(caller, document)) throw new ForbiddenError('You do not have access to this document');
  if (input.revisionid !== document.revisionid) {
    throw new ConflictError(
      `Revision ${input.revisionid} is not the current one; the body is the document's current review state`,
      await documentSchedule(caller, entry.doctype, entry.docid),
    );
  }
  const notes = input.notes?.trim() ?? '';
  if (input.outcome === 'changes_requested' && !notes)
    throw ValidationError.field('notes', 'missing_field', 'Say what must change when requesting changes');
  const { signer, authenticated_by, spend } = await proveSigner(await getUser(caller.userid), {
    password: input.password,
    sourceIp,
  });

  const [schedule, hash, open] = await Promise.all([
    getSchedule(entry.prsid),
    revisionHash(entry.doctype, entry.docid, document.revisionid),
    entry.open_change_requestid !== null ? getChangeRequest(entry.open_change_requestid) : Promise.resolve(undefined),
  ]);
  if (!schedule || !hash)
    throw new Error(
      `Schedule ${entry.prsid} or the snapshot of ${entry.doctype} ${entry.docid} revision ` +
        `${document.revisionid} is missing`,
    );
  const now = nowSeconds();
  const reviewid = await nextId('periodic_review');
  const { change, write, openAfter } = await changeAfterReview(entry, open?.status === 'open' ? open : undefined, {
    reviewid,
    outcome: input.outcome,
    notes,
    revisionid: document.revisionid,
    date: now,
    reviewer: caller.userid,
    owner: document.owner_userid,
  });
  const record: PeriodicReviewRecord = {
    reviewid,
    prdid: entry.prdid,
    prsid: entry.prsid,
    doctype: entry.doctype,
    docid: entry.docid,
    title: document.title,
    revisionid: document.revisionid,
    revision_hash: hash,
    outcome: input.outcome,
    notes,
    reviewer_userid: caller.userid,
    printed_name: signer.username,
    date: now,
    method: 'password',
    authenticated_by,
    next_review_due: nextReviewDue(now, schedule),
    change_requestid: change?.change_requestid ?? null,
  };
  const after: ReviewDocumentRecord = {
    ...entry,
    title: document.title,
    search_tokens: titleTokens(document.title),
    next_review_due: record.next_review_due,
    last_reviewid: reviewid,
    last_reviewed_date: now,
    last_reviewed_revisionid: document.revisionid,
    last_outcome: input.outcome,
    open_change_requestid: openAfter,
  };
  try {
    await appendAudit(
      {
        action: 'periodic_review.reviewed',
        ...auditActor(caller),
        subjects: [auditSubject.document(entry.doctype, entry.docid), auditSubject.user(caller.userid)],
        details: {
          reviewid,
          prdid: entry.prdid,
          prsid: entry.prsid,
          meaning: 'review',
          outcome: input.outcome,
          notes,
          printed_name: record.printed_name,
          revisionid: record.revisionid,
          revision_hash: hash,
          method: 'password',
          authenticated_by,
          next_review_due: { old: entry.next_review_due, new: record.next_review_due },
          change_request: change
            ? { change_requestid: change.change_requestid, old_status: open?.status ?? null, new_status: change.status }
            : null,
        },
      },
      [
        reviewPutWrite(record),
        ...documentReviewedWrites(entry, after),
        ...(write ? [write] : []),
        documentRevisionCheck(entry.doctype, entry.docid, document.revisionid),
        ...spend,
      ],
    );
  } catch (error) {
    if (!(error instanceof TransactionConditionFailed)) throw error;
    if (error.failedLabels.includes('document')) {
      throw new ConflictError(
        'The document changed while it was reviewed; the body is its current review state',
        await documentSchedule(caller, entry.doctype, entry.docid),
      );
    }
    if (error.failedLabels.includes('review-document') || error.failedLabels.includes('change-request')) {
      if (!(await getReviewDocument(entry.prdid)))
        throw new NotFoundError(`No periodic review document with prdid ${entry.prdid}`);
      throw new ConflictError(
        'Another review of this document was recorded meanwhile; the body is its current review state',
        await documentSchedule(caller, entry.doctype, entry.docid),
      );
    }
    throw error;
  }
  return reviewView(record);
}

/** The user's own lists are for the user and Admins. */
async function requireListOwner(caller: Caller, userid: number): Promise<void> {
  if (!(await getUser(userid))) throw new NotFoundError(`No user with userid ${userid}`);
  if (userid !== caller.userid && !isAdmin(caller)) throw new ForbiddenError('Only the user and Admins see these');
}

export async function reviewsBy(caller: Caller, userid: number, page: Page) {
  await requireListOwner(caller, userid);
  return { reviews: (await listReviewsBy(userid, page)).map(reviewView) };
}

export async function documentsFor(caller: Caller, userid: number, query: DueDocumentsQuery) {
  await requireListOwner(caller, userid);
  const documents = await listDueDocuments(userid, query, query.due_before);
  const now = nowSeconds();
  await emitDueReviews(documents, now);
  return { documents: documents.map((document) => reviewDocumentView(document, now)) };
}

export async function changeRequestsFor(caller: Caller, userid: number, query: ChangeRequestsQuery) {
  await requireListOwner(caller, userid);
  const changes = await listChangeRequestsFor(userid, query.status === 'all' ? undefined : query.status, query);
  return { change_requests: changes.map(changeRequestView) };
}
