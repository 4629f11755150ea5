/**
 * No signature is made offline (issue 30 §3, decision 225): the journal records an intent,
 * `pending` until the signer confirms online with their password; the audit chain keeps the
 * device's time and the server's.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { api, createUser, loginAdmin } from '../support/api.ts';
import { assignedTrainee, createTeam } from '../support/courses.ts';

async function openRequest() {
  const signer = await createUser();
  const team = await createTeam({ owner: signer.userid });
  const made = await assignedTrainee({ assessment: { teamid: team.teamid } });
  const stage_assessmentid = made.course.stages[0].stage_assessmentid as number;
  const requested = await api('POST', '/stage-sign-offs/requests', {
    token: made.trainee.token,
    body: { stage_assessmentid, comments: 'Ready' },
  });
  expect(requested.status).toBe(201);
  return { signer, trainee: made.trainee, request: requested.body };
}

describe('an intent to sign made offline', () => {
  it('stays pending until the signer confirms with their password; the audit keeps both times', async () => {
    const { signer, trainee, request } = await openRequest();
    const client_guid = randomUUID();
    const device_time = Math.floor(Date.now() / 1000) - 3600;
    const action = {
      client_guid,
      type: 'signoff.sign_intent',
      device_time,
      data: { signoff_requestid: request.signoff_requestid, approved: true, comments: 'Seen on the line' },
    };
    const recorded = await api('POST', '/user/sync', { token: signer.token, body: { actions: [action] } });
    expect(recorded.body.results[0]).toMatchObject({ status: 'pending', http_status: 202 });
    // Sent again: still one pending intent, and nothing signed.
    const resent = await api('POST', '/user/sync', { token: signer.token, body: { actions: [action] } });
    expect(resent.body.results[0]).toMatchObject({ status: 'pending' });
    const before = await api('GET', `/stage-sign-offs/requests/pending/${signer.userid}`, { token: signer.token });
    expect(before.body.map((each: { signoff_requestid: number }) => each.signoff_requestid)).toContain(
      request.signoff_requestid,
    );
    const listed = await api('GET', '/user/sign_intents', { token: signer.token });
    expect(listed.body.find((intent: { client_guid: string }) => intent.client_guid === client_guid)).toEqual({
      client_guid,
      kind: 'signoff',
      signoff_requestid: request.signoff_requestid,
      releaseid: null,
      approved: true,
      comments: 'Seen on the line',
      device_time,
      recorded_date: expect.any(Number),
      state: 'pending',
      confirmed_date: null,
      confirm_path: `/courses/stage-sign-offs/intents/${client_guid}/confirm`,
    });

    const confirm = (password: string) =>
      api('POST', `/courses/stage-sign-offs/intents/${client_guid}/confirm`, {
        token: signer.token,
        body: { password },
      });
    expect((await confirm('not the password')).status).toBe(422);
    const signed = await confirm(signer.password);
    expect(signed.status).toBe(200);
    expect(signed.body.response).toMatchObject({ approved: true, comments: 'Seen on the line', method: 'password' });
    expect((await confirm(signer.password)).status).toBe(409);
    const afterSync = await api('POST', '/user/sync', { token: signer.token, body: { actions: [action] } });
    expect(afterSync.body.results[0].status).toBe('already_applied');

    const admin = await loginAdmin();
    const history = await api('GET', `/audit/users/${signer.userid}`, { token: admin, query: { limit: 200 } });
    const actions = history.body.records.map((record: { action: string }) => record.action);
    expect(actions.filter((name: string) => name === 'signoff.intent_recorded')).toHaveLength(1);
    // The signature joins the trainee's chain (and the request's), with the device's time.
    const traineeHistory = await api('GET', `/audit/users/${trainee.userid}`, { token: admin, query: { limit: 200 } });
    const responded = traineeHistory.body.records.find(
      (record: { action: string }) => record.action === 'signoff.responded',
    );
    expect(responded.details).toMatchObject({ device_time, intent_client_guid: client_guid });
    expect(responded.date).toBeGreaterThan(device_time);
    for (const userid of [signer.userid, trainee.userid]) {
      const verified = await api('GET', `/audit/users/${userid}/verify`, { token: admin });
      expect(verified.body).toMatchObject({ valid: true, first_broken_seq: null });
    }
  });

  it('is refused for a request that no longer awaits an answer (a conflict), and never by someone else', async () => {
    const { signer, trainee, request } = await openRequest();
    const other = await createUser();
    const client_guid = randomUUID();
    const action = {
      client_guid,
      type: 'signoff.sign_intent',
      device_time: Math.floor(Date.now() / 1000),
      data: { signoff_requestid: request.signoff_requestid },
    };
    expect((await api('POST', '/user/sync', { token: other.token, body: { actions: [action] } })).status).toBe(200);
    // The intent is the other user's: the signer has none under this guid, and the other may not sign.
    const notMine = await api('POST', `/courses/stage-sign-offs/intents/${client_guid}/confirm`, {
      token: signer.token,
      body: { password: signer.password },
    });
    expect(notMine.status).toBe(404);
    const notSigner = await api('POST', `/courses/stage-sign-offs/intents/${client_guid}/confirm`, {
      token: other.token,
      body: { password: other.password },
    });
    expect(notSigner.status).toBe(403);
    // Cancelled by the trainee while the signer was offline.
    expect(
      (await api('DELETE', `/stage-sign-offs/requests/${request.signoff_requestid}`, { token: trainee.token })).status,
    ).toBe(204);
    const late = await api('POST', '/user/sync', {
      token: signer.token,
      body: { actions: [{ ...action, client_guid: randomUUID() }] },
    });
    expect(late.body.results[0]).toMatchObject({ status: 'conflict', conflict: { reason: 'state_changed' } });
  });
});
