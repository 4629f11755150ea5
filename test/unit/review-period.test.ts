import { describe, expect, it } from 'vitest';
import { nextReviewDue, reviewDocumentStatus } from '../../shared/domain/review-period.ts';

const at = (iso: string) => Date.parse(iso) / 1000;

describe('nextReviewDue', () => {
  it('adds days and weeks as fixed spans and months and years on the calendar (UTC)', () => {
    expect(nextReviewDue(at('2026-01-15T10:00:00Z'), { frequency_quantity: 10, frequency_unit: 'day' })).toBe(
      at('2026-01-25T10:00:00Z'),
    );
    expect(nextReviewDue(at('2026-01-15T10:00:00Z'), { frequency_quantity: 2, frequency_unit: 'week' })).toBe(
      at('2026-01-29T10:00:00Z'),
    );
    expect(nextReviewDue(at('2026-01-15T10:00:00Z'), { frequency_quantity: 12, frequency_unit: 'month' })).toBe(
      at('2027-01-15T10:00:00Z'),
    );
    expect(nextReviewDue(at('2028-02-29T00:00:00Z'), { frequency_quantity: 1, frequency_unit: 'year' })).toBe(
      at('2029-03-01T00:00:00Z'),
    );
  });
});

describe('reviewDocumentStatus', () => {
  it('is changes_requested while a change request is open, else overdue from the due date on', () => {
    expect(reviewDocumentStatus({ next_review_due: 100, open_change_requestid: 7 }, 50)).toBe('changes_requested');
    expect(reviewDocumentStatus({ next_review_due: 100, open_change_requestid: null }, 99)).toBe('current');
    expect(reviewDocumentStatus({ next_review_due: 100, open_change_requestid: null }, 100)).toBe('overdue');
  });
});
