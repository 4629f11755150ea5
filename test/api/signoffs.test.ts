import { describe, expect, it } from 'vitest';
import { api, createUser, loginAdmin, type TestUser } from '../support/api.ts';
import { assignedTrainee, createTeam, entryOf, getAssignment } from '../support/courses.ts';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { localDb } from '../support/local-db.ts';

/** A course whose one guide stage is assessed by a team with two signers; a trainee assigned to it. */
async function assessedStage() {
  const signer = await createUser();
  const other = await createUser();
  const team = await createTeam({ owner: signer.userid, members: [other.userid] });
  const made = await assignedTrainee({ assessment: { teamid: team.teamid } });
  return { ...made, team, signer, other, assessmentid: made.course.stages[0].stage_assessmentid as number };
}

async function stageStatus(assignmentid: number, userid: number) {
  return entryOf((await getAssignment(assignmentid)).body, userid).stage_status;
}

const requestSignoff = (trainee: TestUser, stage_assessmentid: number, prefix = '') =>
  api('POST', `${prefix}/stage-sign-offs/requests`, {
    token: trainee.token,
    body: { stage_assessmentid, comments: 'Ready' },
  });

describe('the signoff flow (both prefixes)', () => {
  it('request → pending for signers → response → unacknowledged → acknowledge: the stage completes then', async () => {
    const { guide, trainee, assignment, team, signer, other, assessmentid, course } = await assessedStage();
    const id = assignment.course_assignmentid;
    const outsider = await createUser();

    const signers = await api('POST', `/courses/stage-sign-offs/${assessmentid}/signers`, { token: trainee.token });
    expect(signers.status).toBe(200);
    expect(signers.body.map((user: { userid: number }) => user.userid).sort()).toEqual(
      [signer.userid, other.userid].sort(),
    );

    expect((await requestSignoff(outsider, assessmentid)).status).toBe(403);
    const requested = await requestSignoff(trainee, assessmentid, '/courses');
    expect(requested.status).toBe(201);
    const request = requested.body;
    expect(request).toMatchObject({
      stage_assessmentid: assessmentid,
      wikiid: course.wikiid,
      course_stageid: course.stages[0].course_stageid,
      doctype: 'guide',
      docid: guide.guideid,
      doc_revisionid: guide.revisionid,
      userid: trainee.userid,
      teamid: team.teamid,
      state: 'requested',
      comments: 'Ready',
      response: null,
      acknowledged_date: null,
    });
    expect(request.signoff_requestid).toBeGreaterThan(0);
    // The document is not started yet: that comes first in the rule.
    expect(await stageStatus(id, trainee.userid)).toEqual({ status: 'pending', reason: 'not_started' });

    // Pending for each member of the team (not for the trainee, not for outsiders).
    for (const member of [signer, other]) {
      const pending = await api('GET', `/stage-sign-offs/requests/pending/${member.userid}`, { token: member.token });
      expect(pending.body.map((r: { signoff_requestid: number }) => r.signoff_requestid)).toContain(
        request.signoff_requestid,
      );
    }
    const prefixed = await api('GET', `/courses/stage-sign-offs/requests/pending/${signer.userid}`, {
      token: signer.token,
    });
    expect(prefixed.body.map((r: { signoff_requestid: number }) => r.signoff_requestid)).toContain(
      request.signoff_requestid,
    );
    expect(
      (await api('GET', `/stage-sign-offs/requests/pending/${outsider.userid}`, { token: outsider.token })).body,
    ).toEqual([]);
    expect(
      (await api('GET', `/stage-sign-offs/requests/pending/${signer.userid}`, { token: outsider.token })).status,
    ).toBe(403);

    // The trainee finishes the document: still not complete while the signoff is open.
    await api('PATCH', `/course_assignments/complete/guide/${guide.guideid}`, { token: trainee.token, body: {} });
    expect(await stageStatus(id, trainee.userid)).toEqual({ status: 'blocked', reason: 'requested_signoff' });

    // Only a member of the team answers, never the trainee.
    expect(
      (
        await api('PATCH', '/stage-sign-offs/responses', {
          token: trainee.token,
          body: { signoff_requestid: request.signoff_requestid },
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await api('PATCH', '/stage-sign-offs/responses', {
          token: outsider.token,
          body: { signoff_requestid: request.signoff_requestid },
        })
      ).status,
    ).toBe(403);
    const answered = await api('PATCH', '/courses/stage-sign-offs/responses', {
      token: other.token,
      body: { signoff_requestid: request.signoff_requestid, approved: true, comments: 'Good job' },
    });
    expect(answered.status).toBe(200);
    expect(answered.body).toMatchObject({
      state: 'responded',
      response: { approved: true, comments: 'Good job', responder_userid: other.userid, method: 'signer' },
    });
    const again = await api('PATCH', '/stage-sign-offs/responses', {
      token: signer.token,
      body: { signoff_requestid: request.signoff_requestid },
    });
    expect(again.status).toBe(409);
    expect(again.body.state).toBe('responded');
    expect(
      (await api('GET', `/stage-sign-offs/requests/pending/${signer.userid}`, { token: signer.token })).body.map(
        (r: { signoff_requestid: number }) => r.signoff_requestid,
      ),
    ).not.toContain(request.signoff_requestid);

    // Answered but not acknowledged: still blocked; listed as unacknowledged.
    expect(await stageStatus(id, trainee.userid)).toEqual({ status: 'blocked', reason: 'requested_signoff' });
    const unacknowledged = await api('GET', `/courses/stage-sign-offs/responses/unacknowledged/${trainee.userid}`, {
      token: trainee.token,
    });
    expect(unacknowledged.body.map((r: { signoff_requestid: number }) => r.signoff_requestid)).toEqual([
      request.signoff_requestid,
    ]);
    expect(
      (await api('GET', `/stage-sign-offs/responses/unacknowledged/${trainee.userid}`, { token: outsider.token }))
        .status,
    ).toBe(403);

    expect(
      (
        await api('PATCH', `/stage-sign-offs/responses/${request.signoff_requestid}/acknowledge`, {
          token: other.token,
        })
      ).status,
    ).toBe(403);
    const acknowledged = await api(
      'PATCH',
      `/courses/stage-sign-offs/responses/${request.signoff_requestid}/acknowledge`,
      { token: trainee.token },
    );
    expect(acknowledged.status).toBe(200);
    expect(acknowledged.body.state).toBe('acknowledged');
    expect(acknowledged.body.acknowledged_date).toBeGreaterThan(0);
    expect(await stageStatus(id, trainee.userid)).toEqual({ status: 'completed', reason: 'signoff_approved' });
    expect(
      (await api('GET', `/stage-sign-offs/responses/unacknowledged/${trainee.userid}`, { token: trainee.token })).body,
    ).toEqual([]);
    expect(
      (
        await api('PATCH', `/stage-sign-offs/responses/${request.signoff_requestid}/acknowledge`, {
          token: trainee.token,
        })
      ).status,
    ).toBe(409);

    // Every step is in the trainee's audit trail with the document revision.
    const audit = await api('GET', `/audit/users/${trainee.userid}`, {
      token: await loginAdmin(),
      query: { limit: 200 },
    });
    const signoffEvents = audit.body.records.filter(
      (record: { details: { signoff_requestid?: number } }) =>
        record.details.signoff_requestid === request.signoff_requestid,
    );
    expect(signoffEvents.map((record: { action: string }) => record.action)).toEqual([
      'signoff.requested',
      'signoff.responded',
      'signoff.acknowledged',
    ]);
    expect(signoffEvents[1]).toMatchObject({
      actor_userid: other.userid,
      details: { requested_revisionid: guide.revisionid, docid: guide.guideid, doctype: 'guide' },
    });
    expect(signoffEvents.every((record: { date: number }) => record.date > 0)).toBe(true);
    const documentTrail = await api('GET', `/audit/documents/guide/${guide.guideid}`, {
      token: await loginAdmin(),
      query: { limit: 200 },
    });
    expect(documentTrail.body.records.map((record: { action: string }) => record.action)).toEqual(
      expect.arrayContaining(['signoff.requested', 'signoff.responded', 'signoff.acknowledged']),
    );
  });

  it('acknowledging an approval completes a stage whose document was never finished', async () => {
    const { trainee, assignment, signer, assessmentid } = await assessedStage();
    const request = (await requestSignoff(trainee, assessmentid)).body;
    expect(await stageStatus(assignment.course_assignmentid, trainee.userid)).toEqual({
      status: 'pending',
      reason: 'not_started',
    });
    await api('PATCH', '/stage-sign-offs/responses', {
      token: signer.token,
      body: { signoff_requestid: request.signoff_requestid },
    });
    expect(await stageStatus(assignment.course_assignmentid, trainee.userid)).toEqual({
      status: 'pending',
      reason: 'not_started',
    });
    await api('PATCH', `/stage-sign-offs/responses/${request.signoff_requestid}/acknowledge`, { token: trainee.token });
    const entry = entryOf((await getAssignment(assignment.course_assignmentid)).body, trainee.userid);
    expect(entry.stage_status).toEqual({ status: 'completed', reason: 'signoff_approved' });
    expect(entry.last_completion.end_date).toBeGreaterThan(0);
  });

  it('one open request at a time (409); cancel lets the trainee request again; a rejection needs a new request', async () => {
    const { guide, trainee, assignment, signer, assessmentid } = await assessedStage();
    await api('PATCH', `/course_assignments/complete/guide/${guide.guideid}`, { token: trainee.token, body: {} });
    const first = (await requestSignoff(trainee, assessmentid)).body;
    const duplicate = await requestSignoff(trainee, assessmentid, '/courses');
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.signoff_requestid).toBe(first.signoff_requestid);
    expect(
      (await api('DELETE', `/stage-sign-offs/requests/${first.signoff_requestid}`, { token: signer.token })).status,
    ).toBe(403);
    expect(
      (await api('DELETE', `/stage-sign-offs/requests/${first.signoff_requestid}`, { token: trainee.token })).status,
    ).toBe(204);
    expect(
      (await api('DELETE', `/stage-sign-offs/requests/${first.signoff_requestid}`, { token: trainee.token })).status,
    ).toBe(409);
    expect(await stageStatus(assignment.course_assignmentid, trainee.userid)).toEqual({
      status: 'started',
      reason: 'incomplete_assessment',
    });
    expect(
      (await api('GET', `/stage-sign-offs/requests/pending/${signer.userid}`, { token: signer.token })).body.map(
        (r: { signoff_requestid: number }) => r.signoff_requestid,
      ),
    ).not.toContain(first.signoff_requestid);

    const second = await requestSignoff(trainee, assessmentid);
    expect(second.status).toBe(201);
    await api('PATCH', '/stage-sign-offs/responses', {
      token: signer.token,
      body: { signoff_requestid: second.body.signoff_requestid, approved: false, comments: 'Not yet' },
    });
    await api('PATCH', `/stage-sign-offs/responses/${second.body.signoff_requestid}/acknowledge`, {
      token: trainee.token,
    });
    expect(await stageStatus(assignment.course_assignmentid, trainee.userid)).toEqual({
      status: 'started',
      reason: 'incomplete_assessment',
    });
    expect((await requestSignoff(trainee, assessmentid)).status).toBe(201);
  });

  it('404s: unknown assessment, request; 401 without a token', async () => {
    const user = await createUser();
    expect((await requestSignoff(user, 99999999)).status).toBe(404);
    expect((await api('POST', '/stage-sign-offs/99999999/signers', { token: user.token })).status).toBe(404);
    expect(
      (await api('PATCH', '/stage-sign-offs/responses', { token: user.token, body: { signoff_requestid: 99999999 } }))
        .status,
    ).toBe(404);
    expect((await api('PATCH', '/stage-sign-offs/responses/99999999/acknowledge', { token: user.token })).status).toBe(
      404,
    );
    expect((await api('POST', '/stage-sign-offs/requests', { body: { stage_assessmentid: 1 } })).status).toBe(401);
  });
});

describe('over-the-shoulder: initializeViaPassword + finalize', () => {
  it('the trainee signed in, the signer confirms with their password: a single-use token records the response', async () => {
    const { trainee, assignment, signer, assessmentid } = await assessedStage();
    const request = (await requestSignoff(trainee, assessmentid)).body;
    const path = `/courses/stage-sign-offs/responses/${request.signoff_requestid}`;
    const init = await api('POST', `${path}/initializeViaPassword`, {
      token: trainee.token,
      body: { login: signer.email, password: signer.password },
    });
    expect(init.status).toBe(201);
    expect(init.body).toMatchObject({
      signoff_requestid: request.signoff_requestid,
      signer_userid: signer.userid,
      expires_in: 300,
      finalize: { method: 'PATCH', path: `${path}/finalize` },
    });
    expect(init.body.token).toMatch(/^[0-9a-f]{64}$/);

    const outsider = await createUser();
    expect(
      (await api('PATCH', `${path}/finalize`, { token: outsider.token, body: { token: init.body.token } })).status,
    ).toBe(403);
    // The outsider's attempt used the token up: single use, even for a wrong caller.
    const used = await api('PATCH', `${path}/finalize`, { token: trainee.token, body: { token: init.body.token } });
    expect(used.status).toBe(403);

    const second = await api('POST', `${path}/initializeViaPassword`, {
      token: trainee.token,
      body: { email: signer.email, password: signer.password },
    });
    const finalized = await api('PATCH', `${path}/finalize`, {
      token: trainee.token,
      body: { token: second.body.token, approved: true, comments: 'Watched it done' },
    });
    expect(finalized.status).toBe(200);
    expect(finalized.body).toMatchObject({
      state: 'responded',
      response: { approved: true, responder_userid: signer.userid, method: 'password', comments: 'Watched it done' },
    });
    expect(
      (await api('PATCH', `${path}/finalize`, { token: trainee.token, body: { token: second.body.token } })).status,
    ).toBe(403);
    await api('PATCH', `${path}/acknowledge`, { token: trainee.token });
    expect(await stageStatus(assignment.course_assignmentid, trainee.userid)).toEqual({
      status: 'completed',
      reason: 'signoff_approved',
    });

    const audit = await api('GET', `/audit/users/${trainee.userid}`, {
      token: await loginAdmin(),
      query: { limit: 200 },
    });
    const confirmed = audit.body.records.filter(
      (record: { action: string }) => record.action === 'signoff.password_confirmed',
    );
    expect(confirmed.length).toBe(2);
    expect(confirmed[0].details).toMatchObject({
      signoff_requestid: request.signoff_requestid,
      confirmed_userid: signer.userid,
      signer_userid: signer.userid,
    });
  });

  it('the signer signed in, the trainee confirms; anyone else is refused (403); a wrong password is 422', async () => {
    const { trainee, signer, assessmentid } = await assessedStage();
    const outsider = await createUser();
    const request = (await requestSignoff(trainee, assessmentid)).body;
    const path = `/courses/stage-sign-offs/responses/${request.signoff_requestid}`;
    const bySigner = await api('POST', `${path}/initializeViaPassword`, {
      token: signer.token,
      body: { login: trainee.unique_username, password: trainee.password },
    });
    expect(bySigner.status).toBe(201);
    expect(bySigner.body.signer_userid).toBe(signer.userid);
    const strangers = await api('POST', `${path}/initializeViaPassword`, {
      token: outsider.token,
      body: { login: signer.email, password: signer.password },
    });
    expect(strangers.status).toBe(403);
    const notASigner = await api('POST', `${path}/initializeViaPassword`, {
      token: trainee.token,
      body: { login: outsider.email, password: outsider.password },
    });
    expect(notASigner.status).toBe(403);
    const wrong = await api('POST', `${path}/initializeViaPassword`, {
      token: trainee.token,
      body: { login: signer.email, password: 'not it' },
    });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors[0]).toMatchObject({ field: 'password', code: 'invalid_login' });
    expect(
      (await api('POST', `${path}/initializeViaPassword`, { token: trainee.token, body: { password: 'x' } })).status,
    ).toBe(422);
  });

  it('failed passwords count toward the login throttle (429), shared with POST /user/token', async () => {
    const { trainee, signer, assessmentid } = await assessedStage();
    const request = (await requestSignoff(trainee, assessmentid)).body;
    const path = `/courses/stage-sign-offs/responses/${request.signoff_requestid}/initializeViaPassword`;
    let last = 0;
    for (let attempt = 0; attempt < 6; attempt++) {
      last = (
        await api('POST', path, { token: trainee.token, body: { login: signer.email, password: `wrong ${attempt}` } })
      ).status;
      if (last === 429) break;
    }
    expect(last).toBe(429);
    const login = await api('POST', '/user/token', { body: { email: signer.email, password: signer.password } });
    expect(login.status).toBe(429);
    expect(
      (await api('POST', path, { token: trainee.token, body: { login: signer.email, password: signer.password } }))
        .status,
    ).toBe(429);
  });
});

describe('a request a site API token cancels (decision 260)', () => {
  it('is stored with cancelled_by null and the token named, never userid 0; the trainee may request again', async () => {
    const admin = await loginAdmin();
    const minted = await api('POST', '/admin/api_tokens', {
      token: admin,
      body: { name: `Cancel bot ${Date.now()}`, scopes: ['full'] },
    });
    expect(minted.status).toBe(201);
    const { guide, trainee, assessmentid } = await assessedStage();
    await api('PATCH', `/course_assignments/complete/guide/${guide.guideid}`, { token: trainee.token, body: {} });
    const request = (await requestSignoff(trainee, assessmentid)).body;
    const cancelled = await api('DELETE', `/stage-sign-offs/requests/${request.signoff_requestid}`, {
      headers: { authorization: `api ${minted.body.token}` },
    });
    expect(cancelled.status).toBe(204);
    const stored = await localDb().send(
      new GetCommand({ TableName: 'stepwise', Key: { pk: `SIGNOFF#${request.signoff_requestid}`, sk: 'SIGNOFF' } }),
    );
    expect(stored.Item).toMatchObject({
      state: 'cancelled',
      cancelled_by: null,
      cancelled_by_token: { tokenid: minted.body.tokenid, name: minted.body.name },
    });
    expect((await requestSignoff(trainee, assessmentid)).status).toBe(201);
  });
});
