/** Pure parts of the training rows: sorted references, row summaries, the signoff fact. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { sortedRefWrites, type SortedPlacement } from '../../shared/db/sorted-refs.ts';
import { summarizeOutcomes, userRowPlacement } from '../../shared/training/rows.ts';
import { signoffFact, type StageOutcome } from '../../shared/training/stage-facts.ts';
import { STAGE_STATE_PAIRS } from '../../shared/domain/stage-status.ts';
import type { CourseStageRecord } from '../../shared/db/entities/course.ts';
import type { CompletionRecord } from '../../shared/db/entities/training-record.ts';
import type { TrainingRowRecord } from '../../shared/db/entities/training-row.ts';

process.env.TABLE_NAME ??= 'stepwise';

type Key = string;

/** The reference keys a placement stands for. */
function keysOf(collection: string, id: string, placement: SortedPlacement | null): Set<Key> {
  return new Set(
    Object.entries(placement?.values ?? {}).map(([order, value]) => `${collection}#BY#${order}|${value}#${id}`),
  );
}

function apply(start: Set<Key>, writes: ReturnType<typeof sortedRefWrites>): Set<Key> {
  const result = new Set(start);
  for (const { item } of writes) {
    if (item.Delete) result.delete(`${item.Delete.Key!.pk}|${item.Delete.Key!.sk}`);
    if (item.Put) result.add(`${item.Put.Item!.pk}|${item.Put.Item!.sk}`);
  }
  return result;
}

const placement = fc.option(
  fc.record({
    values: fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd'), fc.constantFrom('1', '2', '3', '~')),
    attributes: fc.record({ status: fc.constantFrom('not_started', 'completed') }),
  }),
  { nil: null },
);

describe('sortedRefWrites', () => {
  it('moves a record from its old references to exactly its new ones, touching each item once', () => {
    fc.assert(
      fc.property(placement, placement, (before, after) => {
        const writes = sortedRefWrites('C', '000000000007', before, after);
        expect(apply(keysOf('C', '000000000007', before), writes)).toEqual(keysOf('C', '000000000007', after));
        const touched = writes.map(({ item }) =>
          item.Delete ? `${item.Delete.Key!.pk}|${item.Delete.Key!.sk}` : `${item.Put!.Item!.pk}|${item.Put!.Item!.sk}`,
        );
        expect(new Set(touched).size).toBe(touched.length);
      }),
    );
  });

  it('writes nothing when nothing changed, and rewrites references whose filter attributes changed', () => {
    const same: SortedPlacement = { values: { a: '1', b: '2' }, attributes: { status: 'completed' } };
    expect(sortedRefWrites('C', '1', same, same)).toEqual([]);
    const writes = sortedRefWrites('C', '1', same, { ...same, attributes: { status: 'not_started' } });
    expect(writes.map(({ item }) => Object.keys(item)[0])).toEqual(['Put', 'Put']);
  });
});

const stage = (course_stageid: number, quantity: number | null = null): CourseStageRecord => ({
  course_stageid,
  doctype: 'guide',
  docid: course_stageid,
  orderby: course_stageid,
  strictness: null,
  frequency_quantity: quantity,
  frequency_unit: quantity ? 'day' : null,
  title: `Stage ${course_stageid}`,
  stage_assessmentid: null,
  assessment_teamid: null,
});

const completion = (end: number | null): CompletionRecord => ({
  course_assignment_stage_completionid: 1,
  userid: 1,
  doctype: 'guide',
  docid: 1,
  course_stage_doc_revisionid: 1,
  manager_override_userid: null,
  init_date: (end ?? 1_000) - 100,
  end_date: end,
  work_log_entryid: null,
  release_major: null,
  release_minor: null,
  invalidated_at: null,
  invalidated_by: null,
  version: 1,
});

const outcomeArb = fc.record({
  pair: fc.constantFrom(...STAGE_STATE_PAIRS),
  end: fc.option(fc.integer({ min: 1_000_000, max: 2_000_000 }), { nil: null }),
  quantity: fc.option(fc.integer({ min: 1, max: 30 }), { nil: null }),
});

describe('summarizeOutcomes', () => {
  it('counts, status and dates agree with the stage outcomes', () => {
    fc.assert(
      fc.property(fc.array(outcomeArb, { maxLength: 8 }), (raw) => {
        const outcomes: StageOutcome[] = raw.map((entry, index) => ({
          stage: stage(index + 1, entry.quantity),
          state: entry.pair,
          completion: entry.end === null ? null : completion(entry.end),
        }));
        const row = summarizeOutcomes(outcomes);
        const completed = outcomes.filter((outcome) => outcome.state.status === 'completed');
        expect(row.total_stages).toBe(outcomes.length);
        expect(row.completed_stages).toBe(completed.length);
        expect(row.status === 'completed').toBe(outcomes.length > 0 && completed.length === outcomes.length);
        expect(row.status === 'not_started').toBe(
          outcomes.every((outcome) => outcome.state.status === 'pending') &&
            !(outcomes.length > 0 && completed.length === outcomes.length),
        );
        expect(row.course_completion_date !== null).toBe(row.status === 'completed');
        const recurring = completed.filter(
          (outcome) => outcome.stage.frequency_quantity && outcome.completion?.end_date,
        );
        expect(row.recurrent_date !== null).toBe(recurring.length > 0);
        if (recurring.length > 0)
          expect(row.recurrent_date).toBe(
            Math.min(
              ...recurring.map((outcome) => outcome.completion!.end_date! + outcome.stage.frequency_quantity! * 86400),
            ),
          );
      }),
    );
  });
});

describe('userRowPlacement', () => {
  it('orders statuses not started < in progress < completed and puts missing dates last', () => {
    const base = {
      username: 'Ann',
      total_stages: 2,
      completed_stages: 0,
      assignment_date: 5,
      due_date: null,
      course_completion_date: null,
      recurrent_date: null,
    } as unknown as TrainingRowRecord;
    const values = (status: string) => userRowPlacement({ ...base, status } as TrainingRowRecord).values.status;
    expect([values('completed'), values('not_started'), values('in_progress')].sort()).toEqual([
      values('not_started'),
      values('in_progress'),
      values('completed'),
    ]);
    const dated = userRowPlacement({ ...base, due_date: 99 } as TrainingRowRecord).values.due_date;
    expect(dated < userRowPlacement(base).values.due_date).toBe(true);
  });
});

describe('signoffFact', () => {
  const record = (
    state: 'requested' | 'responded' | 'acknowledged' | 'cancelled',
    approved: boolean | null = null,
    acknowledged_date: number | null = null,
  ) => ({
    userid: 1,
    stage_assessmentid: 1,
    signoff_requestid: 1,
    state,
    approved,
    acknowledged_date,
  });
  it.each([
    ['no request', undefined, null, 'none'],
    ['requested', record('requested'), null, 'requested'],
    ['answered', record('responded', true), null, 'responded'],
    ['cancelled', record('cancelled'), null, 'none'],
    ['approved, same attempt', record('acknowledged', true, 2_000), completion(1_500), 'acknowledged'],
    ['rejected, same attempt', record('acknowledged', false, 2_000), completion(1_500), 'rejected'],
    ['approved, a later attempt', record('acknowledged', true, 2_000), completion(3_000), 'none'],
  ] as const)('%s', (_, signoff, last, expected) => {
    expect(signoffFact(signoff as never, last)).toBe(expected);
  });
});
