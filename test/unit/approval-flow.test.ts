import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { propertyRuns } from '../support/property.ts';
import {
  afterSignature,
  approvalsIn,
  stageProgress,
  type ApprovalState,
  type StageRule,
  type StageSignature,
} from '../../shared/domain/approval-flow.ts';

const twoOfThreeThenOne: StageRule[] = [
  { name: 'Quality', teamid: 10, quorum: 2 },
  { name: 'Site lead', teamid: 20, quorum: 1 },
];
const start: ApprovalState = { status: 'pending', current_stage: 1 };
const approve = (stage: number, userid: number): StageSignature => ({ stage, userid, meaning: 'approve' });

describe('afterSignature', () => {
  it('waits for the quorum, then moves to the next stage, then approves after the last one', () => {
    const first = afterSignature(twoOfThreeThenOne, start, [], approve(1, 1));
    expect(first).toEqual({ status: 'pending', current_stage: 1 });
    const second = afterSignature(twoOfThreeThenOne, first, [approve(1, 1)], approve(1, 2));
    expect(second).toEqual({ status: 'pending', current_stage: 2 });
    const last = afterSignature(twoOfThreeThenOne, second, [approve(1, 1), approve(1, 2)], approve(2, 3));
    expect(last).toEqual({ status: 'approved', current_stage: null });
  });

  it('ends the request at the first rejection, whatever the quorum', () => {
    const rejected = afterSignature(twoOfThreeThenOne, start, [approve(1, 1)], {
      stage: 1,
      userid: 2,
      meaning: 'reject',
    });
    expect(rejected).toEqual({ status: 'rejected', current_stage: null });
  });

  it('refuses signatures for an ended request or another stage', () => {
    expect(() =>
      afterSignature(twoOfThreeThenOne, { status: 'approved', current_stage: null }, [], approve(1, 1)),
    ).toThrow();
    expect(() => afterSignature(twoOfThreeThenOne, start, [], approve(2, 1))).toThrow();
  });

  it('property: with only approvals, a request is approved after exactly the sum of the quorums', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 10 }), (quorums) => {
        const stages = quorums.map((quorum, index) => ({ name: `S${index}`, teamid: index, quorum }));
        let state: ApprovalState = start;
        const signatures: StageSignature[] = [];
        let count = 0;
        while (state.status === 'pending') {
          const signature = approve(state.current_stage!, ++count);
          state = afterSignature(stages, state, signatures, signature);
          signatures.push(signature);
        }
        expect(state.status).toBe('approved');
        expect(count).toBe(quorums.reduce((a, b) => a + b, 0));
      }),
      { numRuns: propertyRuns(50) },
    );
  });
});

describe('stageProgress', () => {
  it('shows approved, pending and waiting stages of a request in progress', () => {
    const signatures = [approve(1, 1), approve(1, 2)];
    expect(stageProgress(twoOfThreeThenOne, { status: 'pending', current_stage: 2 }, signatures)).toEqual([
      'approved',
      'pending',
    ]);
    expect(stageProgress(twoOfThreeThenOne, start, [])).toEqual(['pending', 'waiting']);
    expect(approvalsIn(signatures, 1)).toBe(2);
  });

  it('shows where a request was rejected and that later stages never ran', () => {
    const signatures: StageSignature[] = [approve(1, 1), { stage: 1, userid: 2, meaning: 'reject' }];
    expect(stageProgress(twoOfThreeThenOne, { status: 'rejected', current_stage: null }, signatures)).toEqual([
      'rejected',
      'skipped',
    ]);
  });
});
