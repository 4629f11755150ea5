/**
 * Periodic review schedules: a named period (e.g. every 12 months) and a default reviewer, with
 * documents (guides, wiki pages) in it, each due for review one period after it was added or
 * last reviewed. A document is in at most one schedule. Adding and removing documents is one
 * transaction (all or none, at most MAX_DOCUMENT_CHANGES a request), on the audit trail of the
 * schedule and of the Admin who changed it.
 */
import { auditSubject } from '../../shared/db/audit.ts';
import { ConflictError, NotFoundError, ValidationError, type FieldProblem } from '../../shared/domain/errors.ts';
import { nextReviewDue } from '../../shared/domain/review-period.ts';
import { actorFields, auditActor, type Caller } from '../../shared/domain/caller.ts';
import { findDocument } from '../../shared/content/documents.ts';
import { appendAudit } from '../../shared/db/audit.ts';
import { nextId, nextIds } from '../../shared/db/counters.ts';
import { nowSeconds } from '../../shared/clock.ts';
import { emitDueReviews } from '../../shared/content/review-due-events.ts';
import { searchIds } from '../../shared/db/search-index.ts';
import { TransactionConditionFailed } from '../../shared/db/transactions.ts';
import { documentExistsCheck } from '../../shared/db/entities/document-check.ts';
import { getUsers } from '../../shared/db/entities/user.ts';
import {
  documentAddWrites,
  documentRemoveWrites,
  findScheduledClaims,
  getReviewDocument,
  getReviewDocuments,
  getSchedule,
  listScheduleDocuments,
  listSchedules,
  reviewTitleTokens,
  scheduleCountWrite,
  scheduleCreateWrite,
  scheduleDeleteWrite,
  type ReviewDocumentRecord,
  type ReviewScheduleRecord,
} from '../../shared/db/entities/review-schedule.ts';
import { reviewDocumentView, scheduleView } from '../../shared/views/periodic-review-views.ts';
import type { Page } from '../../shared/db/paging.ts';
import type { AddDocumentsInput, DocumentInput, ScheduleInput } from './periodic-review.schemas.ts';

/** Title words a document is found by (the first ones; the transaction budget above). */

export function titleTokens(title: string): string[] {
  return reviewTitleTokens(title);
}

export async function requireSchedule(prsid: number): Promise<ReviewScheduleRecord> {
  const schedule = await getSchedule(prsid);
  if (!schedule) throw new NotFoundError(`No periodic review schedule with prsid ${prsid}`);
  return schedule;
}

async function requireUsers(userids: number[], field: string): Promise<void> {
  const found = new Set((await getUsers([...new Set(userids)])).map((user) => user.userid));
  const missing = [...new Set(userids)].filter((userid) => !found.has(userid));
  if (missing.length > 0) throw ValidationError.field(field, 'not_found', `No user with userid ${missing.join(', ')}`);
}

export async function createSchedule(caller: Caller, input: ScheduleInput) {
  if (caller.service && input.reviewer_userid === undefined)
    throw ValidationError.field(
      'reviewer_userid',
      'missing_field',
      'A site API token names the reviewer: it is not a person and reviews nothing itself',
    );
  const reviewer = input.reviewer_userid ?? caller.userid;
  await requireUsers([reviewer], 'reviewer_userid');
  const schedule: ReviewScheduleRecord = {
    prsid: await nextId('periodic_review_schedule'),
    name: input.name,
    description: input.description ?? '',
    frequency_quantity: input.frequency_quantity,
    frequency_unit: input.frequency_unit,
    reviewer_userid: reviewer,
    ...actorFields('created_by', caller),
    created_date: nowSeconds(),
    document_count: 0,
  };
  await appendAudit(
    {
      action: 'periodic_review.schedule_created',
      ...auditActor(caller),
      subjects: [auditSubject.reviewSchedule(schedule.prsid), auditSubject.actor(caller)],
      details: { prsid: schedule.prsid, new: scheduleView(schedule) },
    },
    [scheduleCreateWrite(schedule)],
  );
  return scheduleView(schedule);
}

export async function list(page: Page) {
  return { schedules: (await listSchedules(page)).map(scheduleView) };
}

export async function get(prsid: number, page: Page) {
  const schedule = await requireSchedule(prsid);
  const documents = await listScheduleDocuments(prsid, page);
  const now = nowSeconds();
  await emitDueReviews(documents, now);
  return { ...scheduleView(schedule), documents: documents.map((document) => reviewDocumentView(document, now)) };
}

export async function deleteSchedule(caller: Caller, prsid: number): Promise<void> {
  const schedule = await requireSchedule(prsid);
  try {
    await appendAudit(
      {
        action: 'periodic_review.schedule_deleted',
        ...auditActor(caller),
        subjects: [auditSubject.reviewSchedule(prsid), auditSubject.actor(caller)],
        details: { prsid, old: scheduleView(schedule) },
      },
      [scheduleDeleteWrite(prsid)],
    );
  } catch (error) {
    if (!(error instanceof TransactionConditionFailed) || !error.failedLabels.includes('schedule')) throw error;
    const current = error.oldItems.schedule;
    if (!current) throw new NotFoundError(`No periodic review schedule with prsid ${prsid}`);
    throw ValidationError.field(
      'prsid',
      'has_documents',
      `Schedule ${prsid} still has ${current.document_count} document(s); remove them first`,
    );
  }
}

function refuseDuplicates(documents: DocumentInput[]): void {
  const seen = new Set<string>();
  const problems: FieldProblem[] = [];
  documents.forEach((document, index) => {
    const key = `${document.doctype}#${document.docid}`;
    if (seen.has(key))
      problems.push({
        field: `documents.${index}`,
        code: 'duplicate',
        message: `${document.doctype} ${document.docid} is listed twice`,
      });
    seen.add(key);
  });
  if (problems.length > 0) throw new ValidationError(problems[0].message, problems);
}

export async function addDocuments(caller: Caller, input: AddDocumentsInput) {
  const schedule = await requireSchedule(input.prsid);
  refuseDuplicates(input.documents);
  const found = await Promise.all(input.documents.map((document) => findDocument(document.doctype, document.docid)));
  const missing: FieldProblem[] = found.flatMap((document, index) =>
    document
      ? []
      : [
          {
            field: `documents.${index}.docid`,
            code: 'not_found',
            message: `No ${input.documents[index].doctype} with id ${input.documents[index].docid}`,
          },
        ],
  );
  if (missing.length > 0) throw new ValidationError(missing.map((problem) => problem.message).join('; '), missing);
  const scheduled = await findScheduledClaims(input.documents);
  if (scheduled.length > 0) {
    const problems = scheduled.map((claim) => ({
      field: 'documents',
      code: 'already_scheduled',
      message:
        `${claim.doctype} ${claim.docid} is already in periodic review schedule ${claim.prsid} (prdid ` +
        `${claim.prdid})`,
    }));
    throw new ValidationError(problems.map((problem) => problem.message).join('; '), problems);
  }
  await requireUsers(
    input.documents.map((document) => document.reviewer_userid ?? schedule.reviewer_userid),
    'reviewer_userid',
  );

  const now = nowSeconds();
  const prdids = await nextIds('periodic_review_document', input.documents.length);
  const records: ReviewDocumentRecord[] = input.documents.map((document, index) => ({
    prdid: prdids[index],
    prsid: schedule.prsid,
    doctype: document.doctype,
    docid: document.docid,
    title: found[index]!.title,
    reviewer_userid: document.reviewer_userid ?? schedule.reviewer_userid,
    ...actorFields('added_by', caller),
    added_date: now,
    next_review_due: document.due_date ?? nextReviewDue(now, schedule),
    last_reviewid: null,
    last_reviewed_date: null,
    last_reviewed_revisionid: null,
    last_outcome: null,
    open_change_requestid: null,
    search_tokens: titleTokens(found[index]!.title),
    version: 1,
  }));
  try {
    await appendAudit(
      {
        action: 'periodic_review.documents_added',
        ...auditActor(caller),
        subjects: [auditSubject.reviewSchedule(schedule.prsid), auditSubject.actor(caller)],
        details: {
          prsid: schedule.prsid,
          documents: records.map((record) => ({
            prdid: record.prdid,
            doctype: record.doctype,
            docid: record.docid,
            reviewer_userid: record.reviewer_userid,
            next_review_due: record.next_review_due,
          })),
        },
      },
      [
        ...records.flatMap((record) => [
          ...documentAddWrites(record),
          documentExistsCheck(record.doctype, record.docid),
        ]),
        scheduleCountWrite(schedule.prsid, records.length),
      ],
    );
  } catch (error) {
    if (!(error instanceof TransactionConditionFailed)) throw error;
    if (error.failedLabels.some((label) => label.startsWith('schedule:')))
      throw new NotFoundError(`No periodic review schedule with prsid ${schedule.prsid}`);
    const taken = error.failedLabels.filter((label) => label.startsWith('claim:')).map((label) => label.slice(6));
    if (taken.length > 0)
      throw ValidationError.field(
        'documents',
        'already_scheduled',
        `Already in a periodic review schedule: ${taken.join(', ')}`,
      );
    const gone = error.failedLabels.filter((label) => label.startsWith('exists:')).map((label) => label.slice(7));
    if (gone.length > 0) throw ValidationError.field('documents', 'not_found', `No longer exists: ${gone.join(', ')}`);
    throw error;
  }
  return { prsid: schedule.prsid, documents: records.map((record) => reviewDocumentView(record, now)) };
}

/** Removes documents (from one schedule or several) in one transaction. */
export async function removeDocuments(caller: Caller, prdids: number[]): Promise<void> {
  const unique = [...new Set(prdids)];
  const documents = await getReviewDocuments(unique);
  const missing = unique.filter((prdid) => !documents.some((document) => document.prdid === prdid));
  if (missing.length > 0)
    throw ValidationError.field('prdids', 'not_found', `No periodic review document with prdid ${missing.join(', ')}`);
  await removeFound(caller, documents);
}

export async function removeDocument(caller: Caller, prdid: number): Promise<void> {
  const document = await getReviewDocument(prdid);
  if (!document) throw new NotFoundError(`No periodic review document with prdid ${prdid}`);
  await removeFound(caller, [document]);
}

async function removeFound(caller: Caller, documents: ReviewDocumentRecord[]): Promise<void> {
  const perSchedule = new Map<number, number>();
  for (const document of documents) perSchedule.set(document.prsid, (perSchedule.get(document.prsid) ?? 0) + 1);
  try {
    await appendAudit(
      {
        action: 'periodic_review.documents_removed',
        ...auditActor(caller),
        subjects: [...[...perSchedule.keys()].map(auditSubject.reviewSchedule), auditSubject.actor(caller)],
        details: {
          documents: documents.map((document) => ({
            prdid: document.prdid,
            prsid: document.prsid,
            doctype: document.doctype,
            docid: document.docid,
          })),
        },
      },
      [
        ...documents.flatMap(documentRemoveWrites),
        ...[...perSchedule].map(([prsid, count]) => scheduleCountWrite(prsid, -count)),
      ],
    );
  } catch (error) {
    if (
      error instanceof TransactionConditionFailed &&
      error.failedLabels.some((label) => label.startsWith('document:'))
    ) {
      throw new ConflictError('A document was removed by someone else meanwhile; nothing was changed');
    }
    throw error;
  }
}

/** Documents in any schedule whose title has a word starting with the term. */
export async function search(term: string, page: Page) {
  const prdids = await searchIds('REVIEW_DOC', term, page.limit, page.offset);
  const documents = await getReviewDocuments(prdids);
  const now = nowSeconds();
  return { documents: documents.map((document) => reviewDocumentView(document, now)) };
}
