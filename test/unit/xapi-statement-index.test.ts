/**
 * A statement's index items (decision 327): its partitions three to an item, by kind (the table's
 * key: ALL, VERB, REG, CRED; gsi1: related agents; gsi2: related activities), and the seq
 * neighbours a `more` cursor starts from.
 */
import { describe, expect, it } from 'vitest';
import { indexItems, indexPartition, seqAfter, seqBefore, seqOf } from '../../shared/db/entities/xapi-statement.ts';

const ID = '0f8fad5b-d9cb-469f-a165-70867728950e';

describe('statement index items', () => {
  it('carry the table kinds, the related agents and the related activities side by side', () => {
    const seq = seqOf(1_764_300_000_000, 7, ID);
    const partitions = [
      indexPartition('ALL'),
      indexPartition('RAGENT', 'mbox:mailto:a@example.com'),
      indexPartition('RAGENT', 'account:https://lrs.example.com/xapi|key'),
      indexPartition('RAGENT', 'mbox:mailto:a@example.com'),
      indexPartition('VERB', 'http://adlnet.gov/expapi/verbs/experienced'),
      indexPartition('RACT', 'http://example.com/a'),
      indexPartition('REG', '6a1b2c3d-0000-4000-8000-000000000000'),
    ];
    const items = indexItems(partitions, seq, ID);
    expect(items).toHaveLength(3);
    expect(items.map((item) => item.pk)).toEqual(
      [partitions[0], partitions[4], partitions[6]].map((p) => p!.partition),
    );
    expect(items.map((item) => item.gsi1pk)).toEqual([partitions[1]!.partition, partitions[2]!.partition, undefined]);
    expect(items.map((item) => item.gsi2pk)).toEqual([partitions[5]!.partition, undefined, undefined]);
    for (const item of items) expect(item).toMatchObject({ sk: seq, statement_id: ID });
    expect(items[0]).toMatchObject({ gsi1sk: seq, gsi2sk: seq });
  });

  it('gives an item with nothing left for the table key a partition of its own that no query reads', () => {
    const partitions = ['a', 'b', 'c'].map((name) => indexPartition('RAGENT', `mbox:mailto:${name}@example.com`));
    const items = indexItems([indexPartition('ALL'), ...partitions], seqOf(1, 0, ID), ID);
    expect(items).toHaveLength(3);
    expect(items[0]!.pk).toBe('XIDX#ALL');
    expect(items[1]!.pk).toMatch(/^XIDX#X#[0-9a-f]{64}$/);
    expect(items[2]!.pk).not.toBe(items[1]!.pk);
  });

  it('names the seqs next to a seq, with no stored seq between', () => {
    const seq = seqOf(1_764_300_000_000, 3, ID);
    const later = seqOf(1_764_300_000_000, 4, ID);
    const earlier = seqOf(1_764_300_000_000, 2, 'ffffffff-ffff-4fff-bfff-ffffffffffff');
    expect(seqAfter(seq) > seq && seqAfter(seq) < later).toBe(true);
    expect(seqBefore(seq) < seq && seqBefore(seq) > earlier).toBe(true);
    const sameTime = seqOf(1_764_300_000_000, 3, '0f8fad5b-d9cb-469f-a165-70867728950d');
    expect(seqBefore(seq) > sameTime).toBe(true);
  });
});
