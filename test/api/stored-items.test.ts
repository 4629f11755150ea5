/**
 * Reads are checked against the entity's declaration (decisions 202, 206): a stored item of the
 * wrong shape answers 500 with a fixed message, never a view built from it; items older versions
 * wrote without attributes added since still read as they always did.
 */
import { describe, expect, it } from 'vitest';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { api, createUser } from '../support/api.ts';
import { anAuthor, createWiki, wikiPath } from '../support/wikis.ts';
import { changeForThisTest, localDb } from '../support/local-db.ts';
import { createGuide } from './guide-fixtures.ts';

const DECLARATION_MISMATCH = 'A stored record does not match its declaration';

describe('stored items read through their declaration', () => {
  // Tampered items are ones only this test reads (a fresh user's view history): a shared list
  // answering 500 would fail other files running against the same stack.
  it("a view stored with a document type the app never writes makes the viewer's history 500, the fixed message only", async () => {
    const [author, viewer] = await Promise.all([anAuthor(), createUser()]);
    const page = await createWiki({}, author.token);
    expect((await api('GET', wikiPath(page), { token: viewer.token })).status).toBe(200);
    const before = await api('GET', `/user_view_history/user/${viewer.userid}`, { token: viewer.token });
    expect(before.status).toBe(200);
    expect(before.body).toHaveLength(1);
    const stored = await localDb().send(
      new QueryCommand({
        TableName: 'stepwise',
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': `VIEWS#USER#${viewer.userid}` },
      }),
    );
    const [view] = stored.Items ?? [];
    await changeForThisTest({ pk: view.pk, sk: view.sk }, { doc_type: 'PAGE' });
    const after = await api('GET', `/user_view_history/user/${viewer.userid}`, { token: viewer.token });
    expect(after.status).toBe(500);
    expect(after.body).toEqual({ message: DECLARATION_MISMATCH });
  });

  it('a release written before approvals (no status, release date or request) lists as released', async () => {
    const writer = await createUser({ privileges: ['Author'] });
    const guide = await createGuide(writer.token);
    const made = await api('POST', '/guides/releases', {
      token: writer.token,
      body: { guideid: guide.guideid, release_type: 'minor', notes: 'old' },
    });
    expect(made.status).toBe(201);
    await changeForThisTest(
      { pk: `RELEASE#${made.body.releaseid}`, sk: 'RELEASE' },
      { status: undefined, release_date: undefined, approval_requestid: undefined },
    );
    const listed = await api('GET', `/guides/${guide.guideid}/releases`, { token: writer.token });
    expect(listed.status).toBe(200);
    expect(listed.body.releases[0]).toMatchObject({
      releaseid: made.body.releaseid,
      status: 'released',
      version: '0.1',
    });
    expect(listed.body.releases[0].release_date).toBe(listed.body.releases[0].date);
  });
});
