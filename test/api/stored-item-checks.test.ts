/**
 * A stored item that departs from its entity's declaration is refused at the read (decision
 * 202): the answer is the documented 500 naming the mismatch, never a TypeError from deep
 * inside a view. The item is corrupted straight in the local stack's table.
 */
import { describe, expect, it } from 'vitest';
import { api, createUser } from '../support/api.ts';
import { changeForThisTest } from '../support/local-db.ts';
import { createGuide } from './guide-fixtures.ts';

/**
 * SETs one attribute of a guide item to a value its declaration does not allow (for this test
 * only). The guide also leaves the guide indexes meanwhile: other files share the stack, and a
 * list or a search rebuild of every guide must not meet it; a read by key still does.
 */
async function corruptGuide(guideid: number, field: string, value: unknown): Promise<void> {
  const unindexed = { gsi1pk: undefined, gsi1sk: undefined, gsi2pk: undefined, gsi2sk: undefined };
  await changeForThisTest({ pk: `GUIDE#${guideid}`, sk: 'GUIDE' }, { ...unindexed, [field]: value });
}

describe('a stored item that does not match its declaration', () => {
  it('is answered 500 with the declaration message, not a TypeError, and a sound guide still reads', async () => {
    const author = await createUser({ privileges: ['Author'] });
    const sound = await createGuide(author.token);
    const broken = await createGuide(author.token);
    // `steps` as a map: a view mapping over it would throw a TypeError.
    await corruptGuide(broken.guideid, 'steps', { stepid: 'one' });

    const answer = await api('GET', `/guides/${broken.guideid}`, { token: author.token });
    expect(answer.status).toBe(500);
    expect(answer.body).toEqual({ message: 'A stored record does not match its declaration' });

    expect((await api('GET', `/guides/${sound.guideid}`, { token: author.token })).status).toBe(200);
  });

  it('refuses an attribute the guide never writes (the schema is exact)', async () => {
    const author = await createUser({ privileges: ['Author'] });
    const guide = await createGuide(author.token);
    await corruptGuide(guide.guideid, 'is_admin', true);

    const answer = await api('GET', `/guides/${guide.guideid}`, { token: author.token });
    expect(answer.status).toBe(500);
    expect(answer.body.message).toBe('A stored record does not match its declaration');
  });
});
