/**
 * cmi5 over HTTP (docs/lrs.md, decisions 309-310): an import keeps the course structure and
 * refuses a broken one; an Admin test driver launches AUs; the fetch URL answers once; the AU's
 * auth-token writes statements held to the AU rules (403 with the reason); the LMS states
 * satisfied (block, course), waived and abandoned; a satisfied course completes the stage.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { ABANDON_AFTER_SECONDS } from '../../functions/xapi/cmi5.service.ts';
import { sweepAbandonedSessions } from '../../functions/xapi/abandon-sweep.ts';
import { nowSeconds } from '../../shared/clock.ts';
import { reloadConfig } from '../../shared/config.ts';
import { getCmi5Registration } from '../../shared/db/entities/cmi5-registration.ts';
import { getCmi5Session } from '../../shared/db/entities/cmi5-session.ts';
import { api, createUser, loginAdmin, site, type TestUser } from '../support/api.ts';
import { assign, createCourse, entryOf, getAssignment } from '../support/courses.ts';
import { zip } from '../support/module-packages.ts';
import { importPackage } from '../support/modules.ts';

const COURSE = 'https://example.com/cmi5/course';
const BLOCK = 'https://example.com/cmi5/block';
const AU1 = 'https://example.com/cmi5/au1';
const AU2 = 'https://example.com/cmi5/au2';
const CMI5 = 'https://w3id.org/xapi/cmi5/context/categories/cmi5';
const MOVEON = 'https://w3id.org/xapi/cmi5/context/categories/moveon';
const SESSION = 'https://w3id.org/xapi/cmi5/context/extensions/sessionid';
const V = { 'x-experience-api-version': '1.0.3' };

const t = (text: string) => `<title><langstring lang="en-US">${text}</langstring></title>`;
const structure = (courseId: string, units: string) =>
  `<?xml version="1.0"?><courseStructure xmlns="https://w3id.org/xapi/profiles/cmi5/v1/CourseStructure.xsd">` +
  `<course id="${courseId}">${t('cmi5 course')}</course>${units}</courseStructure>`;

let admin: string;
let moduleid: number;
let learner: TestUser;
let assignmentid: number;

beforeAll(async () => {
  // The scheduled sweep runs in this process against the test stack's table.
  process.env.DDB_ENDPOINT = inject('ddbEndpoint');
  process.env.AWS_ACCESS_KEY_ID ??= 'test';
  process.env.AWS_SECRET_ACCESS_KEY ??= 'test';
  reloadConfig();
  admin = await loginAdmin();
  const xml = structure(
    COURSE,
    `<block id="${BLOCK}">${t('Block')}` +
      `<au id="${AU1}" moveOn="Passed" masteryScore="0.8">${t('One')}<url>au1/index.html</url>` +
      `<launchParameters>level=2</launchParameters><entitlementKey>ek-1</entitlementKey></au></block>` +
      `<au id="${AU2}" moveOn="Completed" launchMethod="OwnWindow">${t('Two')}` +
      '<url>https://au.example.com/two?x=1</url></au>',
  );
  const imported = await importPackage(admin, await zip({ 'cmi5.xml': xml, 'au1/index.html': '<p>one</p>' }));
  expect(imported.result.status).toBe('complete');
  moduleid = imported.moduleid;
  await api('PUT', `/external_training_modules/${moduleid}/current`, {
    token: admin,
    body: { importid: imported.importid },
  });
  const course = await createCourse({ stages: [{ doctype: 'external_training_module', docid: moduleid }] });
  learner = await createUser();
  assignmentid = (await assign({ wikiid: course.wikiid, userid: learner.userid })).course_assignmentid;
});

async function launch(body: Record<string, unknown>) {
  const launched = await api('POST', '/admin/cmi5/launches', { token: admin, body: { moduleid, ...body } });
  expect(launched.status, launched.text).toBe(201);
  const url = new URL(launched.body.launch_url);
  return { ...launched.body, url, params: Object.fromEntries(url.searchParams) } as {
    registration: string;
    session_id: string;
    url: URL;
    params: Record<string, string>;
  };
}

async function fetchToken(fetchUrl: string) {
  const response = await fetch(fetchUrl, { method: 'POST' });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, string>;
}

/** An AU: launched, its token fetched, sending statements as cmi5 says (or not). */
async function au(body: Record<string, unknown>) {
  const launched = await launch(body);
  const token = (await fetchToken(launched.params.fetch!))['auth-token']!;
  const actor = JSON.parse(launched.params.actor!);
  const send = (verb: string, extra: Record<string, unknown> = {}, categories = [CMI5]) =>
    site('POST', '/xapi/statements', {
      headers: { ...V, authorization: `Basic ${token}`, 'content-type': 'application/json' },
      body: {
        actor,
        verb: { id: verb },
        object: { id: launched.params.activityId },
        context: {
          registration: launched.registration,
          contextActivities: { category: categories.map((id) => ({ id })) },
          extensions: { [SESSION]: launched.session_id },
        },
        ...extra,
      },
    });
  return { ...launched, token, actor, send };
}

const verb = (name: string) =>
  ['launched', 'initialized', 'completed', 'passed', 'failed', 'terminated'].includes(name)
    ? `http://adlnet.gov/expapi/verbs/${name}`
    : `https://w3id.org/xapi/adl/verbs/${name}`;

async function verbsOf(registration: string) {
  const answer = await api('GET', `/admin/cmi5/registrations/${registration}/statements`, { token: admin });
  expect(answer.status).toBe(200);
  return answer.body.statements.map((s: { verb: { id: string }; object: { id: string } }) => [
    s.verb.id.split('/').at(-1),
    s.object.id,
  ]);
}

describe('cmi5 import', () => {
  it('refuses a course structure with a repeated id, naming it', async () => {
    const xml = structure(`${COURSE}/bad`, `<au id="${AU1}">${t('A')}<url>a.html</url></au>`.repeat(2));
    const { result } = await importPackage(admin, await zip({ 'cmi5.xml': xml, 'a.html': 'a' }));
    expect(result.status).toBe('failed');
    expect(result.error).toMatchObject({ code: 'manifest_invalid' });
    expect(result.error.message).toContain('used twice');
  });

  it('takes a bare cmi5.xml whose AUs launch absolute URLs, and refuses one with a relative AU URL', async () => {
    const absolute = structure(
      `${COURSE}/bare`,
      `<au id="${AU1}/bare">${t('A')}<url>https://au.example.com/a</url></au>`,
    );
    const bare = await importPackage(admin, Buffer.from(absolute));
    expect(bare.result.status, JSON.stringify(bare.result)).toBe('complete');
    await api('PUT', `/external_training_modules/${bare.moduleid}/current`, {
      token: admin,
      body: { importid: bare.importid },
    });
    const someone = await createUser();
    const launched = await api('POST', '/admin/cmi5/launches', {
      token: admin,
      body: { moduleid: bare.moduleid, userid: someone.userid },
    });
    expect(launched.status, launched.text).toBe(201);
    expect(launched.body.launch_url).toMatch(/^https:\/\/au\.example\.com\/a\?endpoint=/);

    const relative = structure(`${COURSE}/bare2`, `<au id="${AU1}/bare2">${t('A')}<url>a.html</url></au>`);
    const { result } = await importPackage(admin, Buffer.from(`\uFEFF${relative}`));
    expect(result.status).toBe('failed');
    expect(result.error).toMatchObject({ code: 'launch_missing' });
    expect(result.error.message).toContain('absolute URL');
  });
});

describe('cmi5 launch and the AU rules', () => {
  it('launches with the launch parameters, LaunchData and launched; the fetch URL answers once', async () => {
    const a = await au({ userid: learner.userid, au_id: AU1 });
    expect(a.url.pathname).toMatch(/au1\/index\.html$/);
    expect(a.params).toMatchObject({ registration: a.registration, activityId: AU1 });
    expect(a.params.endpoint).toMatch(/\/xapi\/$/);
    expect(a.actor.account.name).toBe(String(learner.userid));
    expect(await fetchToken(a.params.fetch!)).toMatchObject({ 'error-code': '1' });
    expect(await fetchToken(`${a.params.fetch!.slice(0, a.params.fetch!.lastIndexOf('.'))}.wrong`)).toMatchObject({
      'error-code': '2',
    });

    const state = new URLSearchParams({
      activityId: AU1,
      agent: JSON.stringify(a.actor),
      registration: a.registration,
      stateId: 'LMS.LaunchData',
    });
    const auth = { ...V, authorization: `Basic ${a.token}` };
    const launchData = await site('GET', `/xapi/activities/state?${state}`, { headers: auth });
    expect(launchData.status).toBe(200);
    expect(launchData.body).toMatchObject({
      launchMode: 'Normal',
      moveOn: 'Passed',
      masteryScore: 0.8,
      launchParameters: 'level=2',
      entitlementKey: { courseStructure: 'ek-1' },
      contextTemplate: { registration: a.registration, extensions: { [SESSION]: a.session_id } },
    });
    const overwrite = await site('PUT', `/xapi/activities/state?${state}`, {
      headers: { ...auth, 'content-type': 'application/json' },
      body: {},
    });
    expect(overwrite.status).toBe(403);

    // The rules, each a 403 with its reason, nothing stored.
    let answer = await a.send(verb('experienced'));
    expect([answer.status, answer.body.message]).toEqual([403, expect.stringContaining('must be initialized')]);
    expect((await a.send(verb('initialized'), {}, [])).status).toBe(403);
    expect((await a.send(verb('initialized'))).status).toBe(200);
    expect((await a.send(verb('initialized'))).status).toBe(403);
    answer = await a.send(verb('passed'), { result: { success: true } }, [CMI5, MOVEON]);
    expect([answer.status, answer.body.message]).toEqual([403, expect.stringContaining('mastery score')]);
    answer = await a.send(verb('passed'), { result: { success: true, score: { scaled: 0.9 } } }, [CMI5]);
    expect([answer.status, answer.body.message]).toEqual([403, expect.stringContaining('moveon')]);
    expect((await a.send(verb('satisfied'))).status).toBe(403);
    const other = { ...a.actor, account: { ...a.actor.account, name: 'someone-else' } };
    expect((await a.send(verb('experienced'), { actor: other })).status).toBe(403);
    answer = await a.send(verb('passed'), { result: { success: true, score: { scaled: 0.9 } } }, [CMI5, MOVEON]);
    expect(answer.status, answer.text).toBe(200);
    expect((await a.send(verb('terminated'))).status).toBe(200);
    answer = await a.send(verb('experienced'));
    expect([answer.status, answer.body.message]).toEqual([403, expect.stringContaining('terminated')]);

    // The block is satisfied; the course waits for AU2 (moveOn Completed), in the same registration.
    let registration = await api('GET', `/admin/cmi5/registrations/${a.registration}`, { token: admin });
    expect(registration.body).toMatchObject({ satisfied_blocks: [BLOCK], course_satisfied: false });
    const stage = async () =>
      entryOf((await getAssignment(assignmentid)).body, learner.userid).stage_status.status as string;
    expect(await stage()).not.toBe('completed');

    const b = await au({ userid: learner.userid, au_id: AU2, registration: a.registration });
    expect(b.url.origin).toBe('https://au.example.com');
    expect(b.url.searchParams.get('x')).toBe('1');
    expect((await b.send(verb('initialized'))).status).toBe(200);
    expect((await b.send(verb('completed'), { result: { completion: true } }, [CMI5, MOVEON])).status).toBe(200);
    answer = await b.send(verb('completed'), { result: { completion: true } }, [CMI5, MOVEON]);
    expect([answer.status, answer.body.message]).toEqual([403, expect.stringContaining('already')]);
    registration = await api('GET', `/admin/cmi5/registrations/${a.registration}`, { token: admin });
    expect(registration.body.course_satisfied).toBe(true);
    expect(await stage()).toBe('completed');
    expect(await verbsOf(a.registration)).toEqual([
      ['launched', AU1],
      ['initialized', AU1],
      ['passed', AU1],
      ['satisfied', BLOCK],
      ['terminated', AU1],
      ['launched', AU2],
      ['initialized', AU2],
      ['completed', AU2],
      ['satisfied', COURSE],
    ]);
  });

  it('judges two requests of one session sent at once one after the other: only one initialized, one terminated', async () => {
    const someone = await createUser();
    const a = await au({ userid: someone.userid, au_id: AU1 });
    const twice = async (name: string) =>
      (await Promise.all([a.send(verb(name)), a.send(verb(name))])).map((answer) => answer.status).sort();
    expect(await twice('initialized')).toEqual([200, 403]);
    expect(await twice('terminated')).toEqual([200, 403]);
    expect((await verbsOf(a.registration)).map(([name]: string[]) => name)).toEqual([
      'launched',
      'initialized',
      'terminated',
    ]);
  });

  it('waives an AU, abandons a session once, and sweeps open sessions; Browse mode judges nothing', async () => {
    const someone = await createUser();
    const first = await launch({ userid: someone.userid, au_id: AU2, launch_mode: 'Browse' });
    const waived = await api('POST', `/admin/cmi5/registrations/${first.registration}/waive`, {
      token: admin,
      body: { au_id: AU1, reason: 'Tested Out' },
    });
    expect(waived.status, waived.text).toBe(200);
    expect(waived.body).toMatchObject({ satisfied_blocks: [BLOCK], course_satisfied: false });
    // The records name their writers (who launched, who waived); the wire's AU status does not.
    const adminUserid = (await api('GET', '/user', { token: admin })).body.userid as number;
    const stored = await getCmi5Registration(first.registration);
    expect(stored).toMatchObject({ userid: someone.userid, created_by: adminUserid });
    expect(stored!.aus[AU1]).toMatchObject({ waived: true, waived_by: adminUserid });
    expect(waived.body.aus.find((status: { au_id: string }) => status.au_id === AU1)).not.toHaveProperty('waived_by');
    expect(
      (
        await api('POST', `/admin/cmi5/registrations/${first.registration}/waive`, {
          token: admin,
          body: { au_id: AU1, reason: 'Tested Out' },
        })
      ).status,
    ).toBe(409);

    const browse = await au({
      userid: someone.userid,
      au_id: AU2,
      registration: first.registration,
      launch_mode: 'Browse',
    });
    expect((await browse.send(verb('initialized'))).status).toBe(200);
    const refused = await browse.send(verb('completed'), { result: { completion: true } }, [CMI5, MOVEON]);
    expect([refused.status, refused.body.message]).toEqual([403, expect.stringContaining('Browse')]);

    const abandoned = await api('POST', `/admin/cmi5/sessions/${browse.session_id}/abandon`, { token: admin });
    expect(abandoned.status).toBe(204);
    expect((await api('POST', `/admin/cmi5/sessions/${browse.session_id}/abandon`, { token: admin })).status).toBe(409);
    expect((await browse.send(verb('experienced'))).status).toBe(403);
    expect(await getCmi5Session(browse.session_id)).toMatchObject({
      state: 'abandoned',
      created_by: adminUserid,
      abandoned_by: adminUserid,
    });

    const swept = await api('POST', '/admin/cmi5/sessions/abandon_stale', {
      token: admin,
      body: { older_than_seconds: 0 },
    });
    expect(swept.status).toBe(200);
    expect(swept.body.abandoned).toContain(first.session_id);
    expect((await getCmi5Session(first.session_id))?.abandoned_by).toBe(adminUserid);
    const verbs = await verbsOf(first.registration);
    expect(verbs).toContainEqual(['waived', AU1]);
    expect(verbs).toContainEqual(['satisfied', BLOCK]);
    expect(verbs.filter(([name]: string[]) => name === 'abandoned')).toHaveLength(2);
    expect((await api('GET', `/admin/cmi5/registrations/${randomUUID()}`, { token: admin })).status).toBe(404);
  });

  it('the scheduled sweep (what the Lambda and the local timer run) abandons only what is open past its time', async () => {
    const someone = await createUser();
    const open = await launch({ userid: someone.userid, au_id: AU2 });
    // Not yet stale: the sweep at the real clock leaves it.
    await sweepAbandonedSessions(nowSeconds());
    expect(await verbsOf(open.registration)).toEqual([['launched', AU2]]);
    expect(await sweepAbandonedSessions(nowSeconds() + ABANDON_AFTER_SECONDS + 60)).toBeGreaterThanOrEqual(1);
    expect(await verbsOf(open.registration)).toContainEqual(['abandoned', AU2]);
    // No person asked: the session names no one who abandoned it.
    const session = await getCmi5Session(open.session_id);
    expect(session?.state).toBe('abandoned');
    expect(session).not.toHaveProperty('abandoned_by');
    expect((await api('POST', `/admin/cmi5/sessions/${open.session_id}/abandon`, { token: admin })).status).toBe(409);
  });
});
