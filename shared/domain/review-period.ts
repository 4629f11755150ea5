/**
 * Periodic review due dates. A schedule has a period (quantity + unit, like a course stage's
 * recurrence); a document is next due one period after it was added or last reviewed. The
 * calendar arithmetic is the one course recurrences use (stage-status.ts), so "every 12 months"
 * means the same date everywhere on the site.
 */
import { recurrenceDeadline, type FrequencyUnit } from './stage-status.ts';

export const PERIOD_UNITS = ['day', 'week', 'month', 'year'] as const satisfies readonly FrequencyUnit[];

export interface ReviewPeriod {
  frequency_quantity: number;
  frequency_unit: FrequencyUnit;
}

/** When a document reviewed (or added) at `from` is next due. */
export function nextReviewDue(from: number, period: ReviewPeriod): number {
  return recurrenceDeadline({ strictness: null, requires_signoff: false, requires_quiz: false, ...period }, from)!;
}

export type ReviewDocumentStatus = 'current' | 'overdue' | 'changes_requested';

/**
 * The state a periodic review document is in: `changes_requested` while a reviewer's change
 * request is open, otherwise `overdue` once its due date has come, otherwise `current`.
 */
export function reviewDocumentStatus(
  facts: { next_review_due: number; open_change_requestid: number | null },
  now: number,
): ReviewDocumentStatus {
  if (facts.open_change_requestid !== null) return 'changes_requested';
  return now >= facts.next_review_due ? 'overdue' : 'current';
}
