/**
 * The building blocks of the route fuzz preparations (test/fuzz/fuzz-preparations.ts): objects
 * made through the API as the fuzz Admin, either fresh for one request or, for what requests
 * may share without using it up, once per test file (`once`). Every step that fails throws an
 * error naming it, so a broken preparation never passes for a fuzz finding.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { inject } from 'vitest';
import { api, uniqueSuffix } from '../support/api.ts';
import { scorm12Package, zip } from '../support/module-packages.ts';
import { importPackage } from '../support/modules.ts';
import { servePackage, type PackageServer } from '../support/package-server.ts';
import { startReceiver, type Receiver } from '../support/webhook-receiver.ts';
import type { FuzzWorld } from './fuzz-fixtures.ts';

/** The body of a 2xx answer, or an error that names the preparation step. */
export async function made(
  what: string,
  method: string,
  path: string,
  token: string,
  body?: unknown,
  query?: Record<string, string | number>,
): Promise<any> {
  const response = await api(method, path, { token, body, query });
  if (response.status >= 300) throw new Error(`fuzz preparation ${what}: ${response.status} ${response.text}`);
  return response.body;
}

// ---- shared, made once ------------------------------------------------------------------------

/** Made once per test file (one fuzz world per file), by name. */
const shared = new Map<string, Promise<unknown>>();
export function once<T>(name: string, make: () => Promise<T>): Promise<T> {
  if (!shared.has(name)) shared.set(name, make());
  return shared.get(name) as Promise<T>;
}

const servers: Array<PackageServer | Receiver> = [];

/** How long a preparation waits for the pipeline (image processing, a module import): the CI machine is shared. */
const WAIT_MS = 60_000;

/** Closes the HTTP servers the fuzz state started. */
export async function closeFuzzServers(): Promise<void> {
  await Promise.all(servers.map((server) => server.close()));
}

export async function png(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: '#e9c46a' } })
    .png()
    .toBuffer();
}

/** A processed 800×600 image in the fuzz Admin's library (edits and copies read it, never change it). */
export function processedImage(world: FuzzWorld): Promise<number> {
  return once('image', async () => {
    const response = await api('POST', '/user/media/uploads', {
      token: world.admin.token,
      query: { file: 'fuzz.png' },
      rawBody: await png(800, 600),
      headers: { 'content-type': 'application/octet-stream' },
    });
    if (response.status >= 300) throw new Error(`fuzz preparation image: ${response.status} ${response.text}`);
    const id = response.body.id as number;
    for (const until = Date.now() + WAIT_MS; Date.now() < until; ) {
      const item = await made('image status', 'GET', `/user/media/GuideImage/${id}`, world.admin.token);
      if (item.status === 'ready') return id;
      if (item.status === 'failed') throw new Error('fuzz preparation image: processing failed');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`fuzz preparation image: ${id} still processing`);
  });
}

export function packageServer(): Promise<PackageServer> {
  return once('package server', async () => {
    const server = await servePackage(await scorm12Package(`Fuzz module ${uniqueSuffix()}`));
    servers.push(server);
    return server;
  });
}

/** A module with one finished import (the pointers current/draft may name it any number of times). */
export function finishedModule(world: FuzzWorld): Promise<{ id: number; importid: number }> {
  return once('module', async () => {
    const created = await made('module import', 'POST', '/external_training_modules/imports', world.admin.token, {});
    const path = `/external_training_modules/imports/${created.importid}`;
    await made('module import start', 'POST', `${path}/start/byUrl`, world.admin.token, {
      url: (await packageServer()).url,
    });
    for (const until = Date.now() + WAIT_MS; Date.now() < until; ) {
      const progress = await made('module import progress', 'GET', `${path}/progress`, world.admin.token);
      if (progress.status === 'complete') return { id: created.moduleid, importid: created.importid };
      if (!['created', 'running'].includes(progress.status))
        throw new Error(`fuzz preparation module import: ${JSON.stringify(progress)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('fuzz preparation module import: still running');
  });
}

export function webhookReceiver(): Promise<Receiver> {
  return once('webhook receiver', async () => {
    const receiver = await startReceiver();
    servers.push(receiver);
    return receiver;
  });
}

// ---- building blocks ------------------------------------------------------------------------

export interface FreshUser {
  userid: number;
  email: string;
  password: string;
  token: string;
}

/** A throwaway user (with a token when `signIn`): its password may be fuzzed. */
export async function freshUser(world: FuzzWorld, signIn = false): Promise<FreshUser> {
  const suffix = uniqueSuffix();
  const email = `fuzz.fresh.${suffix}@example.com`;
  const password = `pw-${suffix}-Fuzz`;
  const user = await made('user', 'POST', '/users', world.admin.token, {
    email,
    username: `Fuzz fresh ${suffix}`,
    password,
    unique_username: `fuzz_fresh_${suffix}`,
  });
  const token = signIn ? (await made('login', 'POST', '/user/token', '', { email, password })).authToken : '';
  return { userid: user.userid, email, password, token };
}

export async function ownTeam(world: FuzzWorld, owner: number, members: number[] = []): Promise<number> {
  const team = await made('team', 'POST', '/teams', world.admin.token, {
    name: `Fuzz own team ${uniqueSuffix()}`,
    owner,
    members,
  });
  return team.teamid;
}

export async function ownCategory(world: FuzzWorld): Promise<{ wikiid: number; title: string }> {
  const title = `Fuzz own category ${uniqueSuffix()}`;
  const page = await made('category', 'POST', '/wikis', world.admin.token, {
    namespace: 'CATEGORY',
    title,
    contents: 'Fuzzed.',
  });
  return { wikiid: page.wikiid, title };
}

export async function ownGuide(
  world: FuzzWorld,
  category = world.category,
): Promise<{ guideid: number; revisionid: number }> {
  const guide = await made('guide', 'POST', '/guides', world.admin.token, {
    category,
    type: 'how-to',
    title: `Fuzz own guide ${uniqueSuffix()}`,
    public: true,
  });
  return { guideid: guide.guideid, revisionid: guide.revisionid };
}

/** A skill over a guide of its own (never the world's guide: a skill there would gate its work). */
export async function ownSkill(world: FuzzWorld): Promise<number> {
  const guide = await ownGuide(world);
  const skill = await made('skill', 'POST', '/qualifications/skills', world.admin.token, {
    name: `Fuzz skill ${uniqueSuffix()}`,
    guideids: [guide.guideid],
  });
  return skill.skillid;
}

/**
 * A work-log entry of the plain user flagged by a `warn` gate: a guide of its own in a skill they
 * hold no level in, gated `warn` (the Admin overrides it as the supervisor).
 */
export async function flaggedEntry(world: FuzzWorld): Promise<number> {
  const guide = await ownGuide(world);
  await made('skill', 'POST', '/qualifications/skills', world.admin.token, {
    name: `Fuzz gated skill ${uniqueSuffix()}`,
    guideids: [guide.guideid],
  });
  await made('gate', 'PUT', `/qualifications/gating/guides/${guide.guideid}`, world.admin.token, {
    gate_mode: 'warn',
    min_level: 3,
  });
  const flagged = await made('flagged entry', 'POST', '/work_log', world.user.token, {
    guideid: guide.guideid,
    workorderid: `WO-fuzz-${uniqueSuffix()}`,
  });
  return flagged.entryid;
}

/** A release of a guide of its own whose audience is the plain user: it asks them to acknowledge it. */
export async function releaseToAcknowledge(world: FuzzWorld): Promise<number> {
  const guide = await ownGuide(world);
  await made(
    'acknowledgement audience',
    'PUT',
    `/acknowledgements/settings/guides/${guide.guideid}`,
    world.admin.token,
    {
      audience_userids: [world.user.userid],
    },
  );
  const release = await made('release', 'POST', '/guides/releases', world.admin.token, {
    guideid: guide.guideid,
    release_type: 'major',
  });
  return release.releaseid;
}

/**
 * The plain user's signature of a release with a step marked for a countersignature (a guide of
 * its own with one step): the Admin countersigns it as the supervisor.
 */
export async function signatureToCountersign(world: FuzzWorld): Promise<{ releaseid: number; userid: number }> {
  const guide = await ownGuide(world);
  const withStep = await made('step', 'POST', `/guides/${guide.guideid}/steps`, world.admin.token, {
    orderby: 1,
    lines: [{ text: 'Fuzz step.', bullet: 'black', level: 0 }],
  });
  const stepid = withStep.steps.at(-1).stepid;
  await made('audience', 'PUT', `/acknowledgements/settings/guides/${guide.guideid}`, world.admin.token, {
    audience_userids: [world.user.userid],
  });
  const release = await made('release', 'POST', '/guides/releases', world.admin.token, {
    guideid: guide.guideid,
    release_type: 'major',
  });
  await made('marks', 'PUT', `/acknowledgements/${release.releaseid}/countersign-steps`, world.admin.token, {
    stepids: [stepid],
  });
  await made('signature', 'POST', `/acknowledgements/${release.releaseid}/sign`, world.user.token, {
    password: world.user.password,
  });
  return { releaseid: release.releaseid, userid: world.user.userid };
}

/** A course of its own (no stages). */
export async function ownCourse(world: FuzzWorld): Promise<number> {
  const course = await made('course', 'POST', '/courses', world.admin.token, {
    title: `Fuzz course ${uniqueSuffix()}`,
    contents: 'Fuzzed.',
    stages: [],
  });
  return course.wikiid;
}

/** A WIKI page of its own, with two revisions (the first one to revert to). */
export async function ownPage(world: FuzzWorld) {
  const title = `Fuzz own page ${uniqueSuffix()}`;
  const page = await made('page', 'POST', '/wikis', world.admin.token, { namespace: 'WIKI', title, contents: 'One.' });
  const path = `/wikis/WIKI/${encodeURIComponent(title)}`;
  await made('page edit', 'PATCH', path, world.admin.token, { contents: 'Two.' }, { revisionid: page.revisionid });
  return { title, firstRevision: page.revisionid as number };
}

/**
 * A course with one stage on a guide of its own (assessed by `assessmentTeam`), assigned to
 * `trainees`. The guide is per request too: the trainees (the fuzz Admin and plain user) collect
 * an assignment per request, and a document shared by all of them would make each start,
 * complete or signoff touch every one of those stages (a 60-run hunt slowed to minutes a route).
 */
export async function assignedStage(world: FuzzWorld, trainees: number[], assessmentTeam?: number) {
  const guide = await ownGuide(world);
  const course = await made('course', 'POST', '/courses', world.admin.token, {
    title: `Fuzz own course ${uniqueSuffix()}`,
    contents: 'Fuzzed.',
    stages: [
      { doctype: 'guide', docid: guide.guideid, ...(assessmentTeam ? { assessment: { teamid: assessmentTeam } } : {}) },
    ],
  });
  for (const userid of trainees)
    await made('assignment', 'POST', '/course_assignments', world.admin.token, { wikiid: course.wikiid, userid });
  return { guide, wikiid: course.wikiid as number, stage_assessmentid: course.stages[0].stage_assessmentid as number };
}

/**
 * A signoff team: the fuzz Admin and a throwaway signer (whose password over-the-shoulder
 * requests type). One per route (`purpose`): five wrong passwords typed by one route's
 * mutations would hold the signer back for the next route that needs the right one.
 */
export const signoffTeam = (world: FuzzWorld, purpose: string) =>
  once(`signoff team ${purpose}`, async () => {
    const signer = await freshUser(world);
    return { signer, teamid: await ownTeam(world, world.admin.userid, [signer.userid]) };
  });

/**
 * A stage assessed by the signoff team, assigned to the fuzz plain user (the trainee); with
 * `request`, the trainee's open signoff request.
 */
export async function assessment(world: FuzzWorld, request: boolean, purpose = 'any') {
  const { signer, teamid: team } = await signoffTeam(world, purpose);
  const stage = await assignedStage(world, [world.user.userid], team);
  if (!request) return { signer, stage_assessmentid: stage.stage_assessmentid, signoff_requestid: 0 };
  const opened = await made('signoff request', 'POST', '/stage-sign-offs/requests', world.user.token, {
    stage_assessmentid: stage.stage_assessmentid,
  });
  return {
    signer,
    stage_assessmentid: stage.stage_assessmentid,
    signoff_requestid: opened.signoff_requestid as number,
  };
}

/** A category governed by a one-stage process whose team is one throwaway signer (one per `purpose`, as above). */
export const governedCategory = (world: FuzzWorld, purpose: string) =>
  once(`governed category ${purpose}`, async () => {
    const signer = await freshUser(world, true);
    const team = await ownTeam(world, signer.userid);
    const process = await made('approval process', 'POST', '/approvals/process', world.admin.token, {
      name: `Fuzz own process ${uniqueSuffix()}`,
      stages: [{ teamid: team, quorum: 1 }],
    });
    const category = await ownCategory(world);
    const path = `/approvals/${category.wikiid}/${process.approval_processid}`;
    await made('attach process', 'PUT', path, world.admin.token);
    return { signer, category: category.title };
  });

/** A guide of its own in the governed category; with `withRequest`, an open approval request for it. */
export async function governedGuide(world: FuzzWorld, withRequest: boolean, purpose: string) {
  const { signer, category } = await governedCategory(world, purpose);
  const guide = await ownGuide(world, category);
  if (!withRequest) return { signer, guide, approval_requestid: 0 };
  const request = await made(
    'approval request',
    'POST',
    '/approvals/requests',
    world.admin.token,
    { doctype: 'guide', docid: guide.guideid },
    { revisionid: guide.revisionid },
  );
  return { signer, guide, approval_requestid: request.approval_requestid as number };
}

/** A work-log entry of `owner` in the given state. */
export async function entry(world: FuzzWorld, state: 'started' | 'paused' | 'suspended', owner = world.admin.token) {
  const started = await made('work log entry', 'POST', '/work_log', owner, {
    guideid: world.guideid,
    workorderid: `WO-fuzz-${uniqueSuffix()}`,
  });
  if (state === 'paused') await made('pause', 'POST', `/work_log/${started.entryid}/pause`, owner);
  if (state === 'suspended') await made('suspend', 'POST', `/work_log/${started.entryid}/suspend`, owner);
  return started.entryid as number;
}

/** An approval process of the fuzz Admin's team (renamed and attached any number of times). */
export const adminProcess = (world: FuzzWorld): Promise<number> =>
  once('admin process', async () => {
    const process = await made('approval process', 'POST', '/approvals/process', world.admin.token, {
      name: `Fuzz own process ${uniqueSuffix()}`,
      stages: [{ teamid: await ownTeam(world, world.admin.userid), quorum: 1 }],
    });
    return process.approval_processid;
  });

/** A review schedule (of `reviewer`, or the Admin); documents are added per request. */
export const reviewSchedule = (world: FuzzWorld, reviewer?: FreshUser): Promise<number> =>
  once(`review schedule ${reviewer?.userid ?? 'admin'}`, async () => {
    const schedule = await made('review schedule', 'POST', '/periodic_review', world.admin.token, {
      name: `Fuzz own schedule ${uniqueSuffix()}`,
      frequency_quantity: 12,
      frequency_unit: 'month',
      ...(reviewer ? { reviewer_userid: reviewer.userid } : {}),
    });
    return schedule.prsid;
  });

export const reviewer = (world: FuzzWorld) => once('reviewer', () => freshUser(world, true));

/** A guide release whose notes may change any number of times. */
export const sharedRelease = (world: FuzzWorld): Promise<number> =>
  once('release', async () => {
    const guide = await ownGuide(world);
    const release = await made('release', 'POST', '/guides/releases', world.admin.token, {
      guideid: guide.guideid,
      release_type: 'major',
    });
    return release.releaseid;
  });

/** A webhook on the receiver (PATCH and test leave it usable). */
export const sharedWebhook = (world: FuzzWorld): Promise<number> =>
  once('webhook', async () => {
    const hook = await made('webhook', 'POST', '/webhooks', world.admin.token, {
      url: (await webhookReceiver()).url,
      events: ['course_stage.completed'],
    });
    return hook.webhookid;
  });

/**
 * The reset token mailed to `email` since `since` (ms): the local stack writes each mail to the
 * outbox folder as `<ms>-<uuid>.json`, so only the newer files are read.
 */
export async function mailedResetToken(email: string, since: number): Promise<string> {
  const folder = inject('outboxDir');
  for (let attempt = 0; attempt < 100; attempt++) {
    const newer = readdirSync(folder).filter((file) => Number(file.split('-')[0]) >= since);
    for (const file of newer.sort().reverse()) {
      const message = JSON.parse(readFileSync(join(folder, file), 'utf8'));
      const token = message.to === email ? /token=([0-9a-f]{64})/.exec(message.text)?.[1] : undefined;
      if (token) return token;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`fuzz preparation: no reset mail to ${email}`);
}

/** A site file with nothing but its header and end records. */
export function emptySiteFile(): Buffer {
  const records = [
    {
      type: 'header',
      format: 'stepwise-site',
      format_version: 1,
      created_at: new Date().toISOString(),
      source: { kind: 'export', base_url: 'https://fuzz.example.com' },
    },
    { type: 'end', records: 1, counts: {}, objects: 0 },
  ];
  return Buffer.from(records.map((record) => `${JSON.stringify(record)}\n`).join(''));
}

/** The cmi5 AU the admin cmi5 routes launch, waive and abandon (docs/lrs.md). */
export const FUZZ_CMI5_AU = 'https://example.com/fuzz/cmi5/au1';

/**
 * A cmi5 course of one AU, current, on a course assigned to the plain user: made once. The
 * admin routes' requests launch it (each a registration and session of their own).
 */
export function cmi5Module(world: FuzzWorld): Promise<number> {
  return once('cmi5 module', async () => {
    const title = '<title><langstring lang="en-US">Fuzz cmi5</langstring></title>';
    const xml =
      '<?xml version="1.0"?><courseStructure xmlns="https://w3id.org/xapi/profiles/cmi5/v1/CourseStructure.xsd">' +
      `<course id="https://example.com/fuzz/cmi5">${title}</course>` +
      `<au id="${FUZZ_CMI5_AU}" moveOn="Completed">${title}<url>au1/index.html</url></au></courseStructure>`;
    const imported = await importPackage(
      world.admin.token,
      await zip({ 'cmi5.xml': xml, 'au1/index.html': '<p>au</p>' }),
    );
    if (imported.result.status !== 'complete') throw new Error(`fuzz cmi5 import: ${JSON.stringify(imported.result)}`);
    await made('cmi5 current', 'PUT', `/external_training_modules/${imported.moduleid}/current`, world.admin.token, {
      importid: imported.importid,
    });
    const course = await made('cmi5 course', 'POST', '/courses', world.admin.token, {
      title: `Fuzz cmi5 course ${uniqueSuffix()}`,
      contents: 'A cmi5 module.',
      stages: [{ doctype: 'external_training_module', docid: imported.moduleid }],
    });
    await made('cmi5 assignment', 'POST', '/course_assignments', world.admin.token, {
      wikiid: course.wikiid,
      userid: world.user.userid,
    });
    return imported.moduleid as number;
  });
}

/** A fresh launch of the fuzz cmi5 AU for the plain user: its registration and session. */
export async function cmi5Launch(world: FuzzWorld): Promise<{ registration: string; session_id: string }> {
  const launched = await made('cmi5 launch', 'POST', '/admin/cmi5/launches', world.admin.token, {
    moduleid: await cmi5Module(world),
    userid: world.user.userid,
    au_id: FUZZ_CMI5_AU,
    launch_mode: 'Normal',
  });
  return { registration: launched.registration, session_id: launched.session_id };
}
