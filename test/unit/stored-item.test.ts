/** recordFrom / parseStored: a mismatch is a StoredItemError naming the item's key and the field. */
import { describe, expect, it } from 'vitest';
import { guideFromItem, guideItemSchema, guideToItem, type GuideRecord } from '../../shared/db/entities/guide.ts';
import { parseStored, recordFrom, StoredItemError } from '../../shared/db/stored-item.ts';

const guide: GuideRecord = {
  guideid: 7,
  langid: 'en',
  type: 'how-to',
  category: 'Printers',
  subject: '',
  title: 'Replace the nozzle',
  summary: '',
  introduction_raw: '',
  introduction_rendered: '',
  conclusion_raw: '',
  conclusion_rendered: '',
  difficulty: null,
  time_required_min: 0,
  time_required_max: 0,
  parts: [],
  tools: [],
  documents: [],
  prerequisites: [],
  flags: [],
  public: true,
  userid: 3,
  image: null,
  created_date: 1,
  published_date: null,
  modified_date: 1,
  revisionid: 1,
  version: 1,
  steps: [{ stepid: 11, revisionid: 1 }],
  grant_userids: [],
  grant_teamids: [],
  search_tokens: [],
};

function thrown(read: () => unknown): StoredItemError {
  try {
    read();
  } catch (error) {
    if (error instanceof StoredItemError) return error;
    throw error;
  }
  throw new Error('the read did not throw');
}

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
