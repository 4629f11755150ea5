/**
 * Periodic review: schedules with their documents (claim and search words included), every
 * signed review and every change request, through the periodic-review entities' own builders.
 *
 * Read as an Admin: GET /periodic_review (schedules), /periodic_review/{prsid} (a schedule's
 * documents, paged), and per user (ids from the users crawler, plus every reviewer named on a
 * schedule or document) /periodic_review/reviews/{userid} and /periodic_review/requests/{userid}.
 * The audit records the reviews appended stay behind (API 2.0 does not hand them out).
 */
import { itemsOfWrites, type CrawlContext, type ResourceCrawler } from '../crawl.ts';
import { isDenied } from './training-common.ts';
import {
  documentAddWrites,
  reviewTitleTokens,
  scheduleCreateWrite,
  type ReviewDocumentRecord,
  type ReviewScheduleRecord,
} from '../../../../shared/db/entities/review-schedule.ts';
import {
  changeRequestPutWrite,
  reviewPutWrite,
  type ChangeRequestRecord,
  type PeriodicReviewRecord,
} from '../../../../shared/db/entities/periodic-review.ts';
import type {
  ChangeRequestView,
  ReviewDocumentView,
  ReviewView,
  ScheduleView,
} from '../../../../shared/views/periodic-review-views.ts';

/** Stored attributes API 2.0 does not hand out, and what the crawler writes instead. */
export const PERIODIC_REVIEW_UNEXPOSED = {
  ReviewDocument: { version: 'internal optimistic-lock counter: starts again at 1' },
} as const;

const PAGE = 200;

export function documentRecordOf(view: ReviewDocumentView): ReviewDocumentRecord {
  return {
    prdid: view.prdid,
    prsid: view.prsid,
    doctype: view.doctype,
    docid: view.docid,
    title: view.title,
    reviewer_userid: view.reviewer_userid,
    added_by: view.added_by,
    added_date: view.added_date,
    next_review_due: view.next_review_due,
    last_reviewid: view.last_review?.reviewid ?? null,
    last_reviewed_date: view.last_review?.date ?? null,
    last_reviewed_revisionid: view.last_review?.revisionid ?? null,
    last_outcome: view.last_review?.outcome ?? null,
    open_change_requestid: view.open_change_requestid,
    search_tokens: reviewTitleTokens(view.title),
    version: 1,
  };
}

export function reviewRecordOf(view: ReviewView): PeriodicReviewRecord {
  return {
    reviewid: view.reviewid,
    prdid: view.prdid,
    prsid: view.prsid,
    doctype: view.doctype,
    docid: view.docid,
    title: view.title,
    revisionid: view.revisionid,
    revision_hash: view.revision_hash,
    outcome: view.outcome,
    notes: view.notes,
    reviewer_userid: view.signature.userid,
    printed_name: view.signature.printed_name,
    date: view.date,
    method: view.signature.method as PeriodicReviewRecord['method'],
    authenticated_by: view.signature.authenticated_by,
    next_review_due: view.next_review_due,
    change_requestid: view.change_requestid,
  };
}

async function all<T>(context: CrawlContext, path: string, key: string, query?: Record<string, string>) {
  const found: T[] = [];
  for await (const page of context.api.pages<T>(path, {
    pageSize: PAGE,
    query,
    itemsOf: (body) => (body as Record<string, T[]>)[key]!,
  })) {
    found.push(...page);
  }
  return found;
}

/** Each schedule with its documents; the reviewers they name. */
async function crawlSchedules(context: CrawlContext): Promise<Set<number>> {
  const reviewers = new Set<number>();
  for (const schedule of await all<ScheduleView>(context, '/periodic_review', 'schedules')) {
    context.sink.idSeen('periodic_review_schedule', schedule.prsid);
    reviewers.add(schedule.reviewer_userid);
    const documents = await all<ReviewDocumentView>(context, `/periodic_review/${schedule.prsid}`, 'documents');
    for (const document of documents) {
      context.sink.idSeen('periodic_review_document', document.prdid);
      reviewers.add(document.reviewer_userid);
    }
    const unit = `review_schedule:${schedule.prsid}`;
    if (context.isDone(unit)) continue;
    const record: ReviewScheduleRecord = { ...schedule };
    await context.sink.items(
      itemsOfWrites([
        scheduleCreateWrite(record),
        ...documents.flatMap((view) => documentAddWrites(documentRecordOf(view))),
      ]),
    );
    await context.completed(unit);
  }
  return reviewers;
}

/** The reviews a user signed and the change requests assigned to them. */
async function crawlUser(context: CrawlContext, userid: number): Promise<void> {
  const reviews = await all<ReviewView>(context, `/periodic_review/reviews/${userid}`, 'reviews');
  const changes = await all<ChangeRequestView>(context, `/periodic_review/requests/${userid}`, 'change_requests', {
    status: 'all',
  });
  for (const review of reviews) context.sink.idSeen('periodic_review', review.reviewid);
  for (const change of changes) context.sink.idSeen('change_request', change.change_requestid);
  const unit = `periodic_reviews:user:${userid}`;
  if (context.isDone(unit)) return;
  await context.sink.items(
    itemsOfWrites([
      ...reviews.map((view) => reviewPutWrite(reviewRecordOf(view))),
      ...changes.map((view) => changeRequestPutWrite(view as ChangeRequestRecord)),
    ]),
  );
  await context.completed(unit);
}

export const periodicReviewCrawler: ResourceCrawler = {
  name: 'periodic-review',
  after: ['users', 'guides', 'wikis'],
  async crawl(context) {
    try {
      const reviewers = await crawlSchedules(context);
      const users = new Set([...context.known.all('user'), ...reviewers]);
      for (const userid of [...users].sort((a, b) => a - b)) await crawlUser(context, userid);
    } catch (error) {
      if (!isDenied(error)) throw error;
      context.report.unexposed('periodic review', 'the source refused it to this account');
      return;
    }
    context.report.unexposed('periodic review audit records', 'the signed audit trail is not shown');
  },
};
