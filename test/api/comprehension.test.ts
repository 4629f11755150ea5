/**
 * Comprehension and decline (docs/competency.md "Comprehension and decline", decision 304) over
 * HTTP: a quiz tied to a release holds the signature until the signer passed it (server side);
 * a decline keeps its comment as the acknowledgement's history, emits `acknowledgement.declined`
 * and mails the document's owner; each refusal.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { api, createUser, loginAdmin, type TestUser } from '../support/api.ts';
import { releaseGuide } from '../support/courses.ts';
import { localDb } from '../support/local-db.ts';
import { createGuide } from './guide-fixtures.ts';
import { ALL_RIGHT, ALL_WRONG, importQuiz } from './quiz-fixtures.ts';

function mailsTo(email: string): Array<{ to: string; kind: string; text: string }> {
  const folder = inject('outboxDir');
  return readdirSync(folder)
    .map((file) => JSON.parse(readFileSync(join(folder, file), 'utf8')))
    .filter((message) => message.to === email);
}

const sign = (who: TestUser, releaseid: number) =>
  api('POST', `/acknowledgements/${releaseid}/sign`, { token: who.token, body: { password: who.password } });

describe('comprehension and decline', () => {
  it('the signature waits for a pass; a decline reaches the owner and stays in the history', async () => {
    const owner = await createUser({ privileges: ['Admin'] });
    const [signer, decliner, stranger] = await Promise.all([createUser(), createUser(), createUser()]);
    const guide = await createGuide(owner.token);
    const skill = await api('POST', '/qualifications/skills', {
      token: owner.token,
      body: { name: `Comprehension ${guide.guideid}`, guideids: [guide.guideid] },
    });
    await releaseGuide(guide.guideid, 'major');
    for (const person of [signer, decliner]) {
      const level = await api('PUT', `/qualifications/skills/${skill.body.skillid}/levels/${person.userid}`, {
        token: owner.token,
        body: { level: 1, password: owner.password },
      });
      expect(level.status).toBe(200);
    }
    // 2.0 asks both holders of the skill.
    const { releaseid } = await releaseGuide(guide.guideid, 'major');
    const quiz = await importQuiz({}, owner.token);
    const path = `/acknowledgements/${releaseid}/comprehension`;

    expect((await api('PUT', path, { token: stranger.token, body: { quizid: quiz.quizid } })).status).toBe(403);
    const unknown = await api('PUT', path, { token: owner.token, body: { quizid: 99999999 } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors[0]).toMatchObject({ field: 'quizid', code: 'not_found' });
    const tied = await api('PUT', path, { token: owner.token, body: { quizid: quiz.quizid } });
    expect(tied.status).toBe(200);
    // Who tied it is stored (not shown): a person by userid, a site API token by itself (decision 260).
    const tiedBy = async () =>
      (await localDb().send(new GetCommand({ TableName: 'stepwise', Key: { pk: `ACKQUIZ#${releaseid}`, sk: 'QUIZ' } })))
        .Item;
    expect(await tiedBy()).toMatchObject({ quizid: quiz.quizid, userid: owner.userid });
    const admin = await loginAdmin();
    const minted = await api('POST', '/admin/api_tokens', {
      token: admin,
      body: { name: 'Quiz bot', scopes: ['full'] },
    });
    const byToken = await api('PUT', path, {
      headers: { authorization: `api ${minted.body.token}` },
      body: { quizid: quiz.quizid },
    });
    expect(byToken.status, byToken.text).toBe(200);
    expect(await tiedBy()).toMatchObject({
      userid: null,
      userid_token: { tokenid: minted.body.tokenid, name: 'Quiz bot' },
    });
    expect((await api('GET', path, { token: signer.token })).body).toEqual({
      releaseid,
      quizid: quiz.quizid,
      passed: false,
    });
    expect((await api('GET', path, { token: stranger.token })).status).toBe(403);

    // Refused until passed: a failing submission does not count.
    const refused = await sign(signer, releaseid);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ comprehension_quizid: quiz.quizid });
    const submit = (response_json: unknown) =>
      api('POST', '/quizzes/sessions/submit', { token: signer.token, body: { quizid: quiz.quizid, response_json } });
    expect((await submit(ALL_WRONG)).status).toBe(200);
    expect((await sign(signer, releaseid)).status).toBe(403);
    expect((await submit(ALL_RIGHT)).status).toBe(200);
    expect((await api('GET', path, { token: signer.token })).body.passed).toBe(true);
    expect((await sign(signer, releaseid)).status).toBe(200);

    // Decline: a comment is required; it is kept, emitted and mailed to the guide's owner.
    const declinePath = `/acknowledgements/${releaseid}/decline`;
    const blank = await api('POST', declinePath, { token: decliner.token, body: { comment: '   ' } });
    expect(blank.status).toBe(422);
    const comment = 'Step 4 names a 10 mm socket but the bolt is 13 mm: which is right?';
    const declined = await api('POST', declinePath, { token: decliner.token, body: { comment } });
    expect(declined.status).toBe(201);
    expect(declined.body).toMatchObject({ releaseid, userid: decliner.userid, comment });
    expect((await api('POST', declinePath, { token: stranger.token, body: { comment } })).status).toBe(404);
    expect((await api('POST', declinePath, { token: signer.token, body: { comment } })).status).toBe(409);

    const history = `/acknowledgements/${releaseid}/declines`;
    expect((await api('GET', history, { token: decliner.token })).body).toEqual([declined.body]);
    expect((await api('GET', history, { token: owner.token, query: { userid: decliner.userid } })).body).toEqual([
      declined.body,
    ]);
    expect((await api('GET', history, { token: stranger.token, query: { userid: decliner.userid } })).status).toBe(403);
    // Still pending and still held by the quiz.
    const pending = await api('GET', `/acknowledgements/${releaseid}`, { token: decliner.token });
    expect(pending.body.acknowledgement.state).toBe('pending');
    expect((await sign(decliner, releaseid)).status).toBe(403);

    const mail = mailsTo(owner.email).filter((message) => message.kind === 'acknowledgement-declined');
    expect(mail).toHaveLength(1);
    expect(mail[0].text).toContain(comment);
    const events = await localDb().send(
      new QueryCommand({
        TableName: 'stepwise',
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': `OUTBOX#ACK#${releaseid}#${decliner.userid}` },
      }),
    );
    expect((events.Items ?? []).map((item) => item.name)).toEqual(['acknowledgement.declined']);
    for (const chain of [`users/${decliner.userid}`, `documents/guide/${guide.guideid}`]) {
      const verified = await api('GET', `/audit/${chain}/verify`, { token: owner.token });
      expect(verified.body).toMatchObject({ valid: true, first_broken_seq: null });
    }
  });
});
