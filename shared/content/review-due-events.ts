/**
 * periodic_review.due is time-driven: nothing is written when a due date passes. It is emitted
 * the first time a document is listed past its due date (the reviewer's due list, the schedule's
 * documents), once per document and due date: a marker created with attribute_not_exists in the
 * event's transaction (emitOnce). Known markers are read first (one BatchGet a page).
 */
import { emitOnce, emittedMarkers } from '../db/entities/outbox.ts';
import type { ReviewDocumentRecord } from '../db/entities/review-schedule.ts';
import { domainEvent } from '../domain/events/catalogue.ts';
import { documentEntity } from '../domain/events/content-events.ts';

const markerOf = (document: ReviewDocumentRecord) =>
  `periodic_review.due#${document.prdid}#${document.next_review_due}`;

export async function emitDueReviews(documents: ReviewDocumentRecord[], now: number): Promise<void> {
  const due = documents.filter((document) => document.next_review_due <= now);
  if (due.length === 0) return;
  const known = await emittedMarkers(due.map(markerOf));
  for (const document of due) {
    if (known.has(markerOf(document))) continue;
    await emitOnce(
      markerOf(document),
      domainEvent('periodic_review.due', documentEntity(document.doctype, document.docid), {
        prdid: document.prdid,
        doctype: document.doctype,
        docid: document.docid,
        reviewer_userid: document.reviewer_userid,
        due_date: document.next_review_due,
      }),
    );
  }
}
