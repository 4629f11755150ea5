/**
 * An acknowledgement signed offline is only an intent (issue 30 §3, decision 252): the journal's
 * `acknowledgement.sign_intent` is recorded once, `pending`, until the signer confirms online
 * through the sign route's own code; the audit keeps the device's time and the server's.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { api, createUser, loginAdmin } from '../support/api.ts';
import { assignedTrainee, releaseGuide } from '../support/courses.ts';
import { addStep } from './guide-fixtures.ts';

/** A trainee who completed 1.0 of a guide, then asked to acknowledge its release 2.0. */
async function askedToAcknowledge() {
  const admin = await loginAdmin();
  const { guide, trainee } = await assignedTrainee({ strictness: 'major' });
  await releaseGuide(guide.guideid, 'major');
  const done = await api('PATCH', `/course_assignments/complete/guide/${guide.guideid}`, {
    token: trainee.token,
    body: {},
  });
  expect(done.status).toBe(200);
  await addStep(admin, guide.guideid, { lines: [{ text: 'Wear gloves.', bullet: 'black', level: 0 }] });
  const release = await releaseGuide(guide.guideid, 'major');
  return { admin, guide, trainee, release };
}

const intentOf = (releaseid: number, device_time = Math.floor(Date.now() / 1000) - 3600) => ({
  client_guid: randomUUID(),
  type: 'acknowledgement.sign_intent',
  device_time,
  data: { releaseid },
});

const sync = (token: string, actions: unknown[]) => api('POST', '/user/sync', { token, body: { actions } });

const stateOf = async (token: string, releaseid: number) =>
  (await api('GET', `/acknowledgements/${releaseid}`, { token })).body.acknowledgement.state;

describe('an intent to acknowledge made offline', () => {
  it('is recorded once, pending until the signer confirms; the signature is the sign route’s', async () => {
    const { admin, trainee, release } = await askedToAcknowledge();
    const action = intentOf(release.releaseid);
    const first = await sync(trainee.token, [action]);
    expect(first.body.results[0]).toMatchObject({ status: 'pending', http_status: 202 });
    expect(first.body.results[0].conflict).toBeUndefined();
    expect((await sync(trainee.token, [action])).body.results[0]).toMatchObject({ status: 'pending' });
    expect(await stateOf(trainee.token, release.releaseid)).toBe('pending');
    // A device that lost its journal finds what it has to confirm, and where.
    const intents = (state?: string) =>
      api('GET', '/user/sign_intents', { token: trainee.token, query: state ? { state } : {} });
    const pendingIntents = await intents();
    expect(pendingIntents.status).toBe(200);
    expect(pendingIntents.body).toEqual([
      expect.objectContaining({
        client_guid: action.client_guid,
        kind: 'acknowledgement',
        releaseid: release.releaseid,
        device_time: action.device_time,
        state: 'pending',
        confirm_path: `/acknowledgements/intents/${action.client_guid}/confirm`,
      }),
    ]);

    const confirm = (body: Record<string, string>) =>
      api('POST', `/acknowledgements/intents/${action.client_guid}/confirm`, { token: trainee.token, body });
    // The signoff kind's confirm does not take an acknowledgement's intent.
    const wrongKind = await api('POST', `/courses/stage-sign-offs/intents/${action.client_guid}/confirm`, {
      token: trainee.token,
      body: { password: trainee.password },
    });
    expect(wrongKind.status).toBe(404);
    expect((await confirm({ password: 'not the password' })).status).toBe(422);
    expect(await stateOf(trainee.token, release.releaseid)).toBe('pending');
    const signed = await confirm({ password: trainee.password });
    expect(signed.status).toBe(200);
    expect(signed.body).toMatchObject({ releaseid: release.releaseid, state: 'signed' });
    expect((await confirm({ password: trainee.password })).status).toBe(409);
    expect((await sync(trainee.token, [action])).body.results[0].status).toBe('already_applied');
    expect((await intents()).body).toEqual([]);
    expect((await intents('confirmed')).body).toEqual([
      expect.objectContaining({
        client_guid: action.client_guid,
        state: 'confirmed',
        confirmed_date: expect.any(Number),
      }),
    ]);
    expect((await intents('all')).body).toHaveLength(1);
    expect((await intents('signed')).status).toBe(422);

    // The sign route sent with the intent's guid answers that same signature, nothing new.
    const online = await api('POST', `/acknowledgements/${release.releaseid}/sign`, {
      token: trainee.token,
      body: { password: trainee.password, client_guid: action.client_guid },
    });
    expect(online.status).toBe(200);
    expect(online.body.signed_date).toBe(signed.body.signed_date);
    const found = await api('GET', '/acknowledgements', {
      token: trainee.token,
      query: { client_guid: action.client_guid },
    });
    expect(found.body).toEqual([expect.objectContaining({ releaseid: release.releaseid, state: 'signed' })]);

    const history = await api('GET', `/audit/users/${trainee.userid}`, { token: admin, query: { limit: 200 } });
    const records = history.body.records as { action: string; date: number; details: Record<string, unknown> }[];
    const recorded = records.filter((record) => record.action === 'acknowledgement.intent_recorded');
    expect(recorded).toHaveLength(1);
    expect(recorded[0].details).toMatchObject({ device_time: action.device_time, releaseid: release.releaseid });
    const signatures = records.filter(
      (record) => record.action === 'acknowledgement.signed' && record.details.releaseid === release.releaseid,
    );
    expect(signatures).toHaveLength(1);
    expect(signatures[0].details).toMatchObject({
      device_time: action.device_time,
      intent_client_guid: action.client_guid,
    });
    expect(signatures[0].date).toBeGreaterThan(action.device_time);
    const verified = await api('GET', `/audit/users/${trainee.userid}/verify`, { token: admin });
    expect(verified.body).toMatchObject({ valid: true, first_broken_seq: null });
  });

  it('is a conflict for a release signed online meanwhile, not asked, or gone; nothing is recorded', async () => {
    const { trainee, release } = await askedToAcknowledge();
    const online = await api('POST', `/acknowledgements/${release.releaseid}/sign`, {
      token: trainee.token,
      body: { password: trainee.password },
    });
    expect(online.status).toBe(200);
    const stranger = await createUser();
    const [signedMeanwhile, notAsked, gone, noRelease] = (
      await Promise.all([
        sync(trainee.token, [intentOf(release.releaseid)]),
        sync(stranger.token, [intentOf(release.releaseid)]),
        sync(trainee.token, [intentOf(99_999_999)]),
        sync(trainee.token, [{ ...intentOf(1), data: {} }]),
      ])
    ).map((response) => response.body.results[0]);
    expect(signedMeanwhile).toMatchObject({
      status: 'conflict',
      http_status: 409,
      conflict: { reason: 'state_changed', current: { releaseid: release.releaseid, state: 'signed' } },
    });
    expect(notAsked).toMatchObject({ status: 'conflict', http_status: 404, conflict: { reason: 'not_found' } });
    expect(gone).toMatchObject({ status: 'conflict', conflict: { reason: 'not_found' } });
    expect(noRelease).toMatchObject({ status: 'rejected', http_status: 422, conflict: { reason: 'invalid' } });
    // Nothing was recorded for them: a confirm finds no intent.
    const confirm = await api('POST', `/acknowledgements/intents/${signedMeanwhile.client_guid}/confirm`, {
      token: trainee.token,
      body: { password: trainee.password },
    });
    expect(confirm.status).toBe(404);
  });

  it('signed online first under its own guid: confirming answers that signature, once', async () => {
    const { trainee, release } = await askedToAcknowledge();
    const action = intentOf(release.releaseid);
    expect((await sync(trainee.token, [action])).body.results[0].status).toBe('pending');
    const online = await api('POST', `/acknowledgements/${release.releaseid}/sign`, {
      token: trainee.token,
      body: { password: trainee.password, client_guid: action.client_guid },
    });
    expect(online.status).toBe(200);
    expect(online.body.state).toBe('signed');
    const confirm = () =>
      api('POST', `/acknowledgements/intents/${action.client_guid}/confirm`, {
        token: trainee.token,
        body: { password: trainee.password },
      });
    const confirmed = await confirm();
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.signed_date).toBe(online.body.signed_date);
    expect((await confirm()).status).toBe(409);
    expect((await sync(trainee.token, [action])).body.results[0].status).toBe('already_applied');
  });

  it('still stands when a newer release was asked meanwhile, and says so (new_release)', async () => {
    const { admin, guide, trainee, release } = await askedToAcknowledge();
    await addStep(admin, guide.guideid, { lines: [{ text: 'Check the seal.', bullet: 'black', level: 0 }] });
    const newer = await releaseGuide(guide.guideid, 'major');
    const action = intentOf(release.releaseid);
    const result = (await sync(trainee.token, [action])).body.results[0];
    expect(result).toMatchObject({
      status: 'pending',
      conflict: { reason: 'new_release', current: { releaseid: newer.releaseid, state: 'pending' } },
    });
    const signed = await api('POST', `/acknowledgements/intents/${action.client_guid}/confirm`, {
      token: trainee.token,
      body: { password: trainee.password },
    });
    expect(signed.body).toMatchObject({ releaseid: release.releaseid, state: 'signed' });
    expect(await stateOf(trainee.token, newer.releaseid)).toBe('pending');
  });
});
