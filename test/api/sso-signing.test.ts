/**
 * Step-up at signing (issue 28 §4, decisions 237-238, 251) against oidc-provider in this process: an
 * SSO signer signs with a fresh step-up at the provider, spent by one signature; the signature
 * and its audit record say how (`authenticated_by`); a password is refused for them, a password
 * signer is unchanged; over-the-shoulder signing signs the person in at the provider on the
 * operator's device; an API-only client opens a one-time step-up URL in a browser without a
 * session.
 */
import { createHash, randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, loginAdmin, siteUrl, uniqueSuffix, type TestUser } from '../support/api.ts';
import { attach, createCategory, createGuide, createProcess } from '../support/compliance.ts';
import { assign, assignedTrainee, createTeam, releaseGuide } from '../support/courses.ts';
import { addStep, createGuide as publishableGuide, publish } from './guide-fixtures.ts';
import { putForThisTest } from '../support/local-db.ts';
import { Visitor } from '../support/sessions.ts';
import { startOp, throughOp, type TestOp } from '../support/oidc-op.ts';
import { IDP_CERT, IDP_ENTITY_ID, readAuthnRequest, samlResponse, type SamlRequestSeen } from '../support/saml-idp.ts';

const providerid = `sign-${uniqueSuffix()}`;
let op: TestOp;
let admin: string;

interface SsoPerson {
  sub: string;
  email: string;
  userid: number;
  token: string;
  visitor: Visitor;
}

beforeAll(async () => {
  op = await startOp(`${siteUrl()}/sso/${providerid}/callback`);
  admin = await loginAdmin();
  const created = await api('POST', '/admin/identity_providers', {
    token: admin,
    body: {
      providerid,
      kind: 'oidc',
      name: 'Signing OP',
      issuer: op.issuer,
      client_id: op.clientId,
      client_secret: op.clientSecret,
      jit: true,
    },
  });
  expect(created.status).toBe(201);
  return () => op.close();
});

/** A person of the provider, signed in once through it (their account made just in time). */
async function ssoPerson(): Promise<SsoPerson> {
  const suffix = uniqueSuffix();
  const sub = `signer-${suffix}`;
  const email = `sso.signer.${suffix}@example.com`;
  op.accounts.set(sub, { email, email_verified: true, name: `Sam ${suffix}` });
  op.signInAs(sub);
  const visitor = new Visitor();
  const start = await visitor.get(`/sso/${providerid}/login`);
  const back = await throughOp(op, start.headers.get('location')!);
  expect((await visitor.get(back.slice(siteUrl().length))).status).toBe(303);
  const token = visitor.cookies.get('stepwise_session')!;
  const me = await api('GET', '/user', { token });
  return { sub, email, userid: me.body.userid, token, visitor };
}

/** Goes through the provider from a Stepwise URL (as `sub`) and opens the callback in `visitor`. */
async function throughProvider(visitor: Visitor, path: string, sub: string) {
  const start = await visitor.get(path);
  expect(start.status).toBe(302);
  const authorize = new URL(start.headers.get('location')!);
  expect(authorize.searchParams.get('prompt')).toBe('login');
  op.signInAs(sub);
  const back = await throughOp(op, authorize.toString());
  return visitor.get(back.slice(siteUrl().length));
}

const stepUp = async (person: SsoPerson) => {
  const done = await throughProvider(person.visitor, '/sso/step_up?returnTo=%2Fsign', person.sub);
  expect(done.status).toBe(303);
};

const now = () => Math.floor(Date.now() / 1000);

type SignAttempt = (body: Record<string, unknown>) => Promise<{ status: number; body: any }>;

/** Before a step-up, an SSO signer is refused both with a password and without one (403 step_up_required). */
async function expectStepUpRequired(signWith: SignAttempt) {
  const byPassword = await signWith({ password: 'typed anyway' });
  expect(byPassword.status).toBe(403);
  expect(byPassword.body.step_up_required).toBe(true);
  const bare = await signWith({});
  expect(bare.status).toBe(403);
  expect(bare.body.step_up_required).toBe(true);
}

/** Refused before a step-up, signed after one: the signature's answer (expected `status`). */
async function signAfterStepUp(person: SsoPerson, signWith: SignAttempt, status: number) {
  await expectStepUpRequired(signWith);
  await stepUp(person);
  const signed = await signWith({});
  expect(signed.status).toBe(status);
  return signed;
}

/** The step-up was spent: the next signature is 403 until another step-up, then `status`. */
async function expectSpentThenSigned(person: SsoPerson, next: SignAttempt, status: number) {
  expect((await next({})).status).toBe(403);
  await stepUp(person);
  expect((await next({})).status).toBe(status);
}

/** A trainee's open signoff request, which an SSO person (their stage's team owner) answers. */
async function openSignoffRequest() {
  const person = await ssoPerson();
  const team = await createTeam({ owner: person.userid });
  const made = await assignedTrainee({ assessment: { teamid: team.teamid } });
  const requested = await api('POST', '/stage-sign-offs/requests', {
    token: made.trainee.token,
    body: { stage_assessmentid: made.course.stages[0].stage_assessmentid },
  });
  expect(requested.status).toBe(201);
  return { person, team, made, signoff_requestid: requested.body.signoff_requestid as number };
}

/** An SSO team owner who recorded offline an intent to approve a trainee's signoff request. */
async function pendingSignIntent() {
  const { person, team, made, signoff_requestid } = await openSignoffRequest();
  const client_guid = randomUUID();
  const intent = {
    client_guid,
    type: 'signoff.sign_intent',
    device_time: now() - 60,
    data: { signoff_requestid, approved: true, comments: 'On the line' },
  };
  const recorded = await api('POST', '/user/sync', { token: person.token, body: { actions: [intent] } });
  expect(recorded.body.results[0]).toMatchObject({ status: 'pending' });
  return { person, team, made, signoff_requestid, client_guid };
}

/** An approval request of a fresh guide whose one stage (quorum `quorum`) is signed by `team`. */
async function approvalRequest(teamid: number, quorum: number) {
  const author = await createUser({ privileges: ['Author'] });
  const process = await createProcess([{ name: 'Quality', teamid, quorum }]);
  const category = await createCategory();
  await attach(category.wikiid, process.approval_processid);
  const guide = await createGuide(author.token, category.title);
  const requested = await api('POST', '/approvals/requests', {
    token: author.token,
    query: { revisionid: guide.revisionid },
    body: { doctype: 'guide', docid: guide.guideid },
  });
  expect(requested.status).toBe(201);
  return { guide, id: requested.body.approval_requestid as number };
}

const sign = (id: number, token: string, proof: Record<string, unknown>) =>
  api('POST', `/approvals/request/sign/${id}`, {
    token,
    body: { meaning: 'approve', reason: 'Checked against the change order', ...proof },
  });

describe('signing through the identity provider', () => {
  it('signs with a fresh step-up (oidc + auth_time, audited), spent once; a password is refused', async () => {
    const person = await ssoPerson();
    const clerk: TestUser = await createUser();
    const team = await createTeam({ owner: person.userid, members: [clerk.userid] });
    const { guide, id } = await approvalRequest(team.teamid, 2);

    // A password user signs as before; the signature says so.
    const byPassword = await sign(id, clerk.token, { password: clerk.password });
    expect(byPassword.status).toBe(200);
    expect(byPassword.body.signatures[0].authenticated_by).toEqual({ method: 'password' });

    const refused = await sign(id, person.token, { password: 'anything at all' });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ step_up_required: true, step_up_url: `${siteUrl()}/sso/step_up` });
    const noStepUp = await sign(id, person.token, {});
    expect(noStepUp.status).toBe(403);
    expect(noStepUp.body.step_up_url).toBe(`${siteUrl()}/sso/step_up`);

    await stepUp(person);
    const signed = await sign(id, person.token, {});
    expect(signed.status).toBe(200);
    expect(signed.body.status).toBe('approved');
    const signature = signed.body.signatures[1];
    expect(signature).toMatchObject({ userid: person.userid, authenticated_by: { method: 'oidc', providerid } });
    expect(Math.abs(signature.authenticated_by.auth_time - now())).toBeLessThan(60);
    // Spent: the next signature needs another step-up.
    expect((await api('GET', '/user/step_up', { token: person.token })).body.fresh_until).toBeNull();

    const history = await api('GET', `/audit/documents/guide/${guide.guideid}`, {
      token: admin,
      query: { limit: 200 },
    });
    const audited = history.body.records.filter((record: { action: string }) => record.action === 'approval.signed');
    expect(
      audited.map((record: { details: { authenticated_by: unknown } }) => record.details.authenticated_by),
    ).toEqual([{ method: 'password' }, signature.authenticated_by]);
    for (const path of [`/audit/documents/guide/${guide.guideid}/verify`, `/audit/users/${person.userid}/verify`]) {
      expect((await api('GET', path, { token: admin })).body).toMatchObject({ valid: true });
    }
  });

  it('lets one step-up make one signature when two race for it', async () => {
    const person = await ssoPerson();
    const team = await createTeam({ owner: person.userid });
    const requests = await Promise.all([approvalRequest(team.teamid, 1), approvalRequest(team.teamid, 1)]);
    await stepUp(person);
    const answers = await Promise.all(requests.map(({ id }) => sign(id, person.token, {})));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 403]);
  });

  it('refuses a stale step-up (its window over, though its item is still there)', async () => {
    const person = await ssoPerson();
    const team = await createTeam({ owner: person.userid });
    const { id } = await approvalRequest(team.teamid, 1);
    await putForThisTest({
      pk: `STEPUP#${person.userid}`,
      sk: 'STEPUP',
      entity: 'StepUp',
      ttl: now() - 5,
      userid: person.userid,
      providerid,
      method: 'oidc',
      auth_time: now() - 305,
    });
    const stale = await sign(id, person.token, {});
    expect(stale.status).toBe(403);
    expect(stale.body.step_up_required).toBe(true);
  });

  it('sets a level by an SSO trainer’s signature after a step-up (the audit record says how)', async () => {
    const person = await ssoPerson();
    await api('PATCH', `/users/${person.userid}`, { token: admin, body: { privileges: ['Admin'] } });
    const trainee = await createUser();
    const guide = await createGuide(admin, (await createCategory()).title);
    const skill = await api('POST', '/qualifications/skills', {
      token: admin,
      body: { name: `Torque ${uniqueSuffix()}`, guideids: [guide.guideid] },
    });
    expect(skill.status).toBe(201);
    const path = `/qualifications/skills/${skill.body.skillid}/levels/${trainee.userid}`;
    expect((await api('PUT', path, { token: person.token, body: { level: 2, password: 'x' } })).status).toBe(403);
    await stepUp(person);
    expect((await api('PUT', path, { token: person.token, body: { level: 2 } })).status).toBe(200);
    const history = await api('GET', `/audit/users/${trainee.userid}`, { token: admin, query: { limit: 50 } });
    const set = history.body.records.find((record: { action: string }) => record.action === 'qualification.level_set');
    expect(set.details.signature.authenticated_by).toMatchObject({ method: 'oidc', providerid });
  });

  it('confirms an offline intent to sign with a step-up instead of a password', async () => {
    const { person, client_guid } = await pendingSignIntent();
    const confirm = (body: Record<string, unknown>) =>
      api('POST', `/courses/stage-sign-offs/intents/${client_guid}/confirm`, { token: person.token, body });
    expect((await confirm({ password: 'not for them' })).status).toBe(403);
    await stepUp(person);
    const signed = await confirm({});
    expect(signed.status).toBe(200);
    expect(signed.body.response).toMatchObject({
      method: 'password',
      authenticated_by: { method: 'oidc', providerid },
    });
  });

  it('signs an acknowledgement after a step-up through an app’s ticket (an account linked to the provider)', async () => {
    const { guide, trainee } = await assignedTrainee({ strictness: 'major' });
    await releaseGuide(guide.guideid, 'major');
    await api('PATCH', `/course_assignments/complete/guide/${guide.guideid}`, { token: trainee.token, body: {} });
    await addStep(admin, guide.guideid, { lines: [{ text: 'Check the seal.', bullet: 'black', level: 0 }] });
    const release = await releaseGuide(guide.guideid, 'major');
    // The Admin links the password account to the provider: from now on it signs there.
    const sub = `linked-${uniqueSuffix()}`;
    op.accounts.set(sub, { email: trainee.email, email_verified: true });
    const linked = await api('PATCH', `/users/${trainee.userid}`, {
      token: admin,
      body: { sso_userid: `${providerid}|${sub}` },
    });
    expect(linked.status).toBe(200);
    const signAck = (body: Record<string, unknown>) =>
      api('POST', `/acknowledgements/${release.releaseid}/sign`, { token: trainee.token, body });
    const byPassword = await signAck({ password: trainee.password });
    expect(byPassword.status).toBe(403);
    expect(byPassword.body.step_up_required).toBe(true);

    const ticket = await api('POST', '/user/step_up/ticket', { token: trainee.token });
    const url = new URL(ticket.body.step_up_url);
    expect((await throughProvider(new Visitor(), url.pathname + url.search, sub)).status).toBe(303);
    const signed = await signAck({});
    expect(signed.status).toBe(200);
    expect(signed.body).toMatchObject({
      state: 'signed',
      signature_authenticated_by: { method: 'oidc', providerid },
    });
    const history = await api('GET', `/audit/users/${trainee.userid}`, { token: admin, query: { limit: 200 } });
    const audited = history.body.records.find(
      (record: { action: string }) => record.action === 'acknowledgement.signed',
    );
    expect(audited.details.authenticated_by).toEqual(signed.body.signature_authenticated_by);
    expect((await api('GET', `/audit/users/${trainee.userid}/verify`, { token: admin })).body.valid).toBe(true);
  });
});

describe('the step-up is spent with the signature, in its transaction (decision 251)', () => {
  it('keeps the step-up when the signature is not written: the next signature needs no new one', async () => {
    const { person, team, made, signoff_requestid, client_guid } = await pendingSignIntent();
    // The trainee withdraws the request: the intent's signature can no longer be written.
    const cancelled = await api('DELETE', `/stage-sign-offs/requests/${signoff_requestid}`, {
      token: made.trainee.token,
    });
    expect(cancelled.status).toBe(204);

    await stepUp(person);
    const confirmed = await api('POST', `/courses/stage-sign-offs/intents/${client_guid}/confirm`, {
      token: person.token,
      body: {},
    });
    expect(confirmed.status).toBe(409);
    expect((await api('GET', '/user/step_up', { token: person.token })).body.fresh_until).toBeGreaterThan(now());

    // The same step-up signs the next thing, once.
    const { id } = await approvalRequest(team.teamid, 1);
    const signed = await sign(id, person.token, {});
    expect(signed.status).toBe(200);
    expect(signed.body.signatures[0].authenticated_by).toMatchObject({ method: 'oidc', providerid });
    expect((await api('GET', '/user/step_up', { token: person.token })).body.fresh_until).toBeNull();
  });

  it('one step-up, two signatures of different kinds at once: one is written, the other is 403', async () => {
    const person = await ssoPerson();
    await api('PATCH', `/users/${person.userid}`, { token: admin, body: { privileges: ['Admin'] } });
    const team = await createTeam({ owner: person.userid });
    const { id } = await approvalRequest(team.teamid, 1);
    const trainee = await createUser();
    const guide = await createGuide(admin, (await createCategory()).title);
    const skill = await api('POST', '/qualifications/skills', {
      token: admin,
      body: { name: `Crimp ${uniqueSuffix()}`, guideids: [guide.guideid] },
    });
    await stepUp(person);
    const [approval, level] = await Promise.all([
      sign(id, person.token, {}),
      api('PUT', `/qualifications/skills/${skill.body.skillid}/levels/${trainee.userid}`, {
        token: person.token,
        body: { level: 2 },
      }),
    ]);
    expect([approval.status, level.status].sort()).toEqual([200, 403]);
    const refused = approval.status === 403 ? approval : level;
    expect(refused.body).toMatchObject({ step_up_required: true, step_up_url: `${siteUrl()}/sso/step_up` });
  });
  it('a signing token bought by the caller’s own step-up spends it; the token then signs once', async () => {
    const person = await ssoPerson();
    const team = await createTeam({ owner: person.userid });
    const { id } = await approvalRequest(team.teamid, 1);
    const buy = () => api('POST', `/approvals/request/sign/${id}/token`, { token: person.token, body: {} });
    expect((await buy()).status).toBe(403);
    await stepUp(person);
    const bought = await buy();
    expect(bought.status).toBe(201);
    expect((await api('GET', '/user/step_up', { token: person.token })).body.fresh_until).toBeNull();
    const again = await buy();
    expect(again.status).toBe(403);
    expect(again.body.step_up_required).toBe(true);
    const signed = await sign(id, person.token, { signing_token: bought.body.signing_token });
    expect(signed.status).toBe(200);
    expect(signed.body.signatures[0]).toMatchObject({
      method: 'token',
      authenticated_by: { method: 'oidc', providerid },
    });
  });
});

describe('step-up on the other signing routes', () => {
  it('a periodic review by an SSO reviewer needs a fresh step-up, spent by the review', async () => {
    const person = await ssoPerson();
    const author = await createUser({ privileges: ['Author'] });
    const schedule = await api('POST', '/periodic_review', {
      token: admin,
      body: {
        name: `Annual review ${uniqueSuffix()}`,
        frequency_quantity: 12,
        frequency_unit: 'month',
        reviewer_userid: person.userid,
      },
    });
    expect(schedule.status).toBe(201);
    const review = async () => {
      const guide = await createGuide(author.token, (await createCategory()).title);
      const added = await api('POST', '/periodic_review/documents', {
        token: admin,
        body: { prsid: schedule.body.prsid, documents: [{ doctype: 'guide', docid: guide.guideid }] },
      });
      expect(added.status).toBe(201);
      return (body: Record<string, unknown>) =>
        api('POST', '/periodic_review/review', {
          token: person.token,
          body: { prdid: added.body.documents[0].prdid, revisionid: guide.revisionid, outcome: 'approved', ...body },
        });
    };
    const reviewed = await signAfterStepUp(person, await review(), 201);
    expect(reviewed.body.signature).toMatchObject({
      userid: person.userid,
      authenticated_by: { method: 'oidc', providerid },
    });
    // Spent: another document's review needs another step-up.
    await expectSpentThenSigned(person, await review(), 201);
  });

  it('a work-log override by an SSO supervisor needs a fresh step-up, and records how it was made', async () => {
    const person = await ssoPerson();
    await api('PATCH', `/users/${person.userid}`, { token: admin, body: { privileges: ['Admin'] } });
    const guide = await publishableGuide(admin);
    await publish(admin, guide);
    const skill = await api('POST', '/qualifications/skills', {
      token: admin,
      body: { name: `Override skill ${uniqueSuffix()}`, guideids: [guide.guideid], recertification_days: 90 },
    });
    expect(skill.status).toBe(201);
    const gate = await api('PUT', `/qualifications/gating/guides/${guide.guideid}`, {
      token: admin,
      body: { gate_mode: 'warn', min_level: 3 },
    });
    expect(gate.status).toBe(200);
    await releaseGuide(guide.guideid, 'major');
    const operator = await createUser();
    const started = await api('POST', '/work_log', {
      token: operator.token,
      body: { guideid: guide.guideid, workorderid: 'WO-step-up' },
    });
    expect(started.status).toBe(201);
    const path = `/work_log/${started.body.entryid}/qualification/override`;
    const override = (body: Record<string, unknown>) =>
      api('POST', path, { token: person.token, body: { comment: 'Supervised on the line', ...body } });

    const signed = await signAfterStepUp(person, override, 200);
    expect(signed.body.override).toMatchObject({
      userid: person.userid,
      meaning: 'override',
      authenticated_by: { method: 'oidc', providerid },
    });
    expect((await api('GET', '/user/step_up', { token: person.token })).body.fresh_until).toBeNull();
    const history = await api('GET', `/audit/users/${operator.userid}`, { token: admin, query: { limit: 50 } });
    const audited = history.body.records.find(
      (record: { action: string }) => record.action === 'work_log.qualification_overridden',
    );
    expect(audited.details.authenticated_by).toEqual(signed.body.override.authenticated_by);
  });
  it('a countersignature by an SSO supervisor needs a fresh step-up, spent by that countersignature', async () => {
    const { guide, course, trainee } = await assignedTrainee({ strictness: 'major' });
    const second = await createUser();
    await assign({ wikiid: course.wikiid, userid: second.userid });
    await releaseGuide(guide.guideid, 'major');
    for (const person of [trainee, second])
      await api('PATCH', `/course_assignments/complete/guide/${guide.guideid}`, { token: person.token, body: {} });
    await addStep(admin, guide.guideid, { lines: [{ text: 'Check the seal.', bullet: 'black', level: 0 }] });
    const release = await releaseGuide(guide.guideid, 'major');
    const step = (await api('GET', `/guides/${guide.guideid}`, { token: admin })).body.steps.at(-1);
    const marked = await api('PUT', `/acknowledgements/${release.releaseid}/countersign-steps`, {
      token: admin,
      body: { stepids: [step.stepid] },
    });
    expect(marked.status).toBe(200);
    for (const person of [trainee, second]) {
      const signed = await api('POST', `/acknowledgements/${release.releaseid}/sign`, {
        token: person.token,
        body: { password: person.password },
      });
      expect(signed.body.state).toBe('awaiting_countersignature');
    }
    const supervisor = await ssoPerson();
    await api('PATCH', `/users/${supervisor.userid}`, { token: admin, body: { privileges: ['Admin'] } });
    const countersign = (userid: number) => (body: Record<string, unknown>) =>
      api('POST', `/acknowledgements/${release.releaseid}/countersign/${userid}`, { token: supervisor.token, body });

    const done = await signAfterStepUp(supervisor, countersign(trainee.userid), 200);
    expect(done.body).toMatchObject({
      state: 'signed',
      countersignature: { userid: supervisor.userid, authenticated_by: { method: 'oidc', providerid } },
    });
    // Spent: the next person's countersignature needs another step-up.
    await expectSpentThenSigned(supervisor, countersign(second.userid), 200);
  });
});

describe('over the shoulder, through the identity provider', () => {
  it('signs an approval on the operator’s device: the token comes back in the fragment, the session stays', async () => {
    const person = await ssoPerson();
    const operator = await createUser();
    const team = await createTeam({ owner: person.userid });
    const { id } = await approvalRequest(team.teamid, 1);

    const byPassword = await api('POST', `/approvals/request/sign/${id}/token`, {
      token: operator.token,
      body: { login: person.email, password: 'their password' },
    });
    // The same 422 as any wrong password (the answer says nothing of the account), naming the page.
    expect(byPassword.status).toBe(422);
    expect(byPassword.body.message).toContain(`${siteUrl()}/sso/sign_for?approval_requestid=${id}`);
    const nobody = await api('POST', `/approvals/request/sign/${id}/token`, {
      token: operator.token,
      body: { login: `nobody-${person.userid}@example.com`, password: 'their password' },
    });
    expect(nobody.status).toBe(422);
    expect(nobody.body).toEqual(byPassword.body);

    const device = new Visitor();
    await device.signIn(operator.email, operator.password);
    const session = device.cookies.get('stepwise_session');
    // Someone who may not sign it signs in at the provider: refused, no token.
    const outsider = await ssoPerson();
    const wrong = await throughProvider(
      device,
      `/sso/sign_for?approval_requestid=${id}&providerid=${providerid}&returnTo=%2Fa`,
      outsider.sub,
    );
    expect(wrong.status).toBe(403);

    const done = await throughProvider(
      device,
      `/sso/sign_for?approval_requestid=${id}&providerid=${providerid}&returnTo=%2Fa`,
      person.sub,
    );
    expect(done.status).toBe(303);
    expect(device.cookies.get('stepwise_session')).toBe(session);
    const location = new URL(done.headers.get('location')!, siteUrl());
    expect(location.pathname).toBe('/a');
    const fragment = new URLSearchParams(location.hash.slice(1));
    expect(fragment.get('signer_userid')).toBe(String(person.userid));

    const signed = await sign(id, operator.token, { signing_token: fragment.get('signing_token') });
    expect(signed.status).toBe(200);
    expect(signed.body.signatures[0]).toMatchObject({
      userid: person.userid,
      method: 'token',
      entered_by_userid: operator.userid,
      authenticated_by: { method: 'oidc', providerid },
    });
  });

  it('signs a signoff on the trainee’s device with the finalize token the callback gives', async () => {
    const { person, made, signoff_requestid: id } = await openSignoffRequest();
    const byPassword = await api('POST', `/courses/stage-sign-offs/responses/${id}/initializeViaPassword`, {
      token: made.trainee.token,
      body: { login: person.email, password: 'their password' },
    });
    expect(byPassword.status).toBe(422);
    expect(byPassword.body.message).toContain(`${siteUrl()}/sso/sign_for?signoff_requestid=${id}`);

    const device = new Visitor();
    await device.signIn(made.trainee.email, made.trainee.password);
    const done = await throughProvider(
      device,
      `/sso/sign_for?signoff_requestid=${id}&providerid=${providerid}`,
      person.sub,
    );
    expect(done.status).toBe(303);
    const fragment = new URLSearchParams(new URL(done.headers.get('location')!, siteUrl()).hash.slice(1));
    const finalized = await api('PATCH', `/courses/stage-sign-offs/responses/${id}/finalize`, {
      token: made.trainee.token,
      body: { token: fragment.get('token'), approved: true },
    });
    expect(finalized.status).toBe(200);
    expect(finalized.body.response).toMatchObject({
      responder_userid: person.userid,
      method: 'password',
      authenticated_by: { method: 'oidc', providerid },
    });
  });
});

describe('the step-up URL of an API-only client', () => {
  it('works once in a browser without a session, for that account only, and not past its expiry', async () => {
    const person = await ssoPerson();
    const issued = await api('POST', '/user/step_up/ticket', { token: person.token });
    expect(issued.status).toBe(201);
    const url = new URL(issued.body.step_up_url);
    expect(url.pathname).toBe('/sso/step_up');
    expect(issued.body.expires_at - now()).toBeLessThanOrEqual(120);
    const browser = new Visitor();
    expect((await throughProvider(browser, url.pathname + url.search, person.sub)).status).toBe(303);
    expect(browser.cookies.has('stepwise_session')).toBe(false);
    expect((await api('GET', '/user/step_up', { token: person.token })).body.method).toBe('oidc');
    expect((await new Visitor().get(url.pathname + url.search)).status).toBe(401);

    const expired = `expired-${uniqueSuffix()}`;
    await putForThisTest({
      pk: `STEPUPTICKET#${createHash('sha256').update(expired).digest('hex')}`,
      sk: 'STEPUPTICKET',
      entity: 'StepUpTicket',
      ttl: now() - 1,
      userid: person.userid,
      expires_at: now() - 1,
    });
    expect((await new Visitor().get(`/sso/step_up?ticket=${expired}`)).status).toBe(401);

    const passwordUser = await createUser();
    expect((await api('POST', '/user/step_up/ticket', { token: passwordUser.token })).status).toBe(403);
  });
});

describe('through a SAML provider', () => {
  it('signs with a ForceAuthn step-up (saml), and over the shoulder through sign_for', async () => {
    const samlid = `saml-sign-${uniqueSuffix()}`;
    const created = await api('POST', '/admin/identity_providers', {
      token: admin,
      body: {
        providerid: samlid,
        kind: 'saml',
        name: 'Signing IdP',
        idp_entity_id: IDP_ENTITY_ID,
        idp_sso_url: 'https://idp.example.test/sso',
        idp_certificates: [IDP_CERT],
        jit: true,
      },
    });
    expect(created.status).toBe(201);
    const nameId = `emp-${uniqueSuffix()}`;
    const respond = (visitor: Visitor, request: SamlRequestSeen) =>
      visitor.post(`/sso/${samlid}/acs`, {
        RelayState: request.relayState,
        SAMLResponse: samlResponse({
          inResponseTo: request.id,
          acs: request.acs,
          audience: created.body.sp_entity_id,
          nameId,
          attributes: { email: [`${nameId}@example.com`] },
        }),
      });
    const visitor = new Visitor();
    const login = await visitor.get(`/sso/${samlid}/login`);
    expect((await respond(visitor, readAuthnRequest(login.headers.get('location')!))).status).toBe(303);
    const token = visitor.cookies.get('stepwise_session')!;
    const userid = (await api('GET', '/user', { token })).body.userid as number;
    const operator = await createUser();
    const team = await createTeam({ owner: userid });
    const first = await approvalRequest(team.teamid, 1);
    const second = await approvalRequest(team.teamid, 1);

    const stepUp = readAuthnRequest((await visitor.get('/sso/step_up')).headers.get('location')!);
    expect(stepUp.forceAuthn).toBe(true);
    expect((await respond(visitor, stepUp)).status).toBe(303);
    const signed = await sign(first.id, token, {});
    expect(signed.status).toBe(200);
    expect(signed.body.signatures[0].authenticated_by).toMatchObject({ method: 'saml', providerid: samlid });

    const device = new Visitor();
    await device.signIn(operator.email, operator.password);
    const start = await device.get(`/sso/sign_for?approval_requestid=${second.id}&providerid=${samlid}`);
    const request = readAuthnRequest(start.headers.get('location')!);
    expect(request.forceAuthn).toBe(true);
    const done = await respond(device, request);
    expect(done.status).toBe(303);
    const fragment = new URLSearchParams(new URL(done.headers.get('location')!, siteUrl()).hash.slice(1));
    const bySaml = await sign(second.id, operator.token, { signing_token: fragment.get('signing_token') });
    expect(bySaml.status).toBe(200);
    expect(bySaml.body.signatures[0]).toMatchObject({
      userid,
      authenticated_by: { method: 'saml', providerid: samlid },
    });
  });
});
