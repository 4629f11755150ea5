/** recordFrom / parseStored: a mismatch is a StoredItemError naming the item's key and the field. */
import { describe, expect, it } from 'vitest';
import { guideFromItem, guideItemSchema, guideToItem } from '../../shared/db/entities/guide.ts';
import { withoutKeys } from '../../shared/db/keys.ts';
import { parseStored, recordFrom, StoredItemError } from '../../shared/db/stored-item.ts';
import { guideRecord } from '../support/guide-record.ts';

const guide = guideRecord({
  guideid: 7,
  title: 'Replace the nozzle',
  userid: 3,
  steps: [{ stepid: 11, revisionid: 1 }],
});

function thrown(read: () => unknown): StoredItemError {
  try {
    read();
  } catch (error) {
    if (error instanceof StoredItemError) return error;
    throw error;
  }
  throw new Error('the read did not throw');
}

describe('withoutKeys', () => {
  it('drops the eight key attributes and keeps every other field in its order', () => {
    const item = {
      pk: 'A',
      title: 't',
      sk: 'B',
      gsi1pk: 1,
      gsi1sk: 2,
      gsi2pk: 3,
      gsi2sk: 4,
      entity: 'x',
      ttl: 5,
      n: 0,
    };
    const fields = withoutKeys(item);
    expect(Object.keys(fields)).toEqual(['title', 'n']);
    expect(fields).toEqual({ title: 't', n: 0 });
    expect(item.pk).toBe('A');
  });
});

describe('recordFrom', () => {
  it('hands out the record of a sound item, keys stripped', () => {
    expect(guideFromItem(guideToItem(guide))).toEqual(guide);
  });

  it('names the key and the field of a wrong type', () => {
    const item = { ...guideToItem(guide), steps: [{ stepid: 'one', revisionid: 1 }] };
    const error = thrown(() => recordFrom(guideItemSchema, item));
    expect(error.key).toEqual({ pk: 'GUIDE#7', sk: 'GUIDE' });
    expect(error.message).toContain('GUIDE#7 / GUIDE');
    expect(error.message).toContain('steps.0.stepid: expected number, got string');
  });

  it('names a missing field and an attribute never written', () => {
    const { title, ...untitled } = guideToItem(guide);
    expect(thrown(() => parseStored(guideItemSchema, untitled)).message).toContain('title: expected string');
    const extra = { ...guideToItem(guide), is_admin: true };
    expect(thrown(() => parseStored(guideItemSchema, extra)).message).toContain('attributes it never writes: is_admin');
  });
});
