/**
 * The state a route's valid request needs beyond the shared fuzz world, made fresh for each
 * request (the valid one and every mutation) by the route's preparation:
 *
 * - Routes that rename, revert or use up an object (a page's title, a signoff request answered
 *   once, a work-log entry finished once) act on objects made for that request, so a fuzzed
 *   write can never invalidate what another request, or the reads after a write, rely on.
 * - Routes that need a chain of state (a signoff request needs a course stage with an
 *   assessment, an assignment and a request) get it built here, so every write route of the
 *   table can accept its valid request (route-fuzz.test.ts asserts that coverage).
 * - A password in a fuzzed body is always a fresh throwaway user's: wrong-password mutations
 *   count toward the login throttle of that account only, never the fuzz Admin's or anyone's
 *   another request needs.
 *
 * What requests can share without using it up (a processed image, a finished module import, a
 * signer, a team, an approval process, a review schedule, the HTTP servers a webhook or an import
 * by URL reaches) is made once, on first use, so the per-request part stays one to four calls.
 *
 * A preparation answers values for path parameters and body ids (`values`, they win over the
 * world's), fields laid over the example body (`body`), query values, the token that sends the
 * valid request, or a raw body. Keyed by `METHOD path` as declared in the route table.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { inject } from 'vitest';
import { api, uniqueSuffix } from '../support/api.ts';
import { scorm12Package } from '../support/module-packages.ts';
import { servePackage, type PackageServer } from '../support/package-server.ts';
import { uploadSiteFile } from '../support/site-transfer.ts';
import { startReceiver, type Receiver } from '../support/webhook-receiver.ts';
import type { FuzzWorld } from './fuzz-fixtures.ts';

export interface Preparation {
  values?: Record<string, string | number>;
  body?: Record<string, unknown>;
  query?: Record<string, string>;
  /**
   * Who sends the valid request: the fuzz plain user, or a prepared actor's token (a signer, a
   * reviewer). Default: the fuzz Admin. A prepared token also stands in for the Admin in this
   * request's mutations, so they reach the handler's checks past authorization.
   */
  role?: 'admin' | 'user';
  token?: string;
  rawBody?: string | Buffer;
  contentType?: string;
}

type Prepare = (world: FuzzWorld) => Promise<Preparation>;

/** The body of a 2xx answer, or an error that names the preparation step. */
async function made(
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
function once<T>(name: string, make: () => Promise<T>): Promise<T> {
  if (!shared.has(name)) shared.set(name, make());
  return shared.get(name) as Promise<T>;
}

const servers: Array<PackageServer | Receiver> = [];

/** How long a preparation waits for the pipeline (image processing, a module import): the CI machine is shared. */
const WAIT_MS = 60_000;

/** Closes the HTTP servers the preparations started. */
export async function closePreparations(): Promise<void> {
  await Promise.all(servers.map((server) => server.close()));
}

async function png(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: '#e9c46a' } })
    .png()
    .toBuffer();
}

/** A processed 800×600 image in the fuzz Admin's library (edits and copies read it, never change it). */
function processedImage(world: FuzzWorld): Promise<number> {
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

function packageServer(): Promise<PackageServer> {
  return once('package server', async () => {
    const server = await servePackage(await scorm12Package(`Fuzz module ${uniqueSuffix()}`));
    servers.push(server);
    return server;
  });
}

/** A module with one finished import (the pointers current/draft may name it any number of times). */
function finishedModule(world: FuzzWorld): Promise<{ id: number; importid: number }> {
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

function webhookReceiver(): Promise<Receiver> {
  return once('webhook receiver', async () => {
    const receiver = await startReceiver();
    servers.push(receiver);
    return receiver;
  });
}

// ---- building blocks ------------------------------------------------------------------------

interface FreshUser {
  userid: number;
  email: string;
  password: string;
  token: string;
}

/** A throwaway user (with a token when `signIn`): its password may be fuzzed. */
async function freshUser(world: FuzzWorld, signIn = false): Promise<FreshUser> {
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

async function ownTeam(world: FuzzWorld, owner: number, members: number[] = []): Promise<number> {
  const team = await made('team', 'POST', '/teams', world.admin.token, {
    name: `Fuzz own team ${uniqueSuffix()}`,
    owner,
    members,
  });
  return team.teamid;
}

async function ownCategory(world: FuzzWorld): Promise<{ wikiid: number; title: string }> {
  const title = `Fuzz own category ${uniqueSuffix()}`;
  const page = await made('category', 'POST', '/wikis', world.admin.token, {
    namespace: 'CATEGORY',
    title,
    contents: 'Fuzzed.',
  });
  return { wikiid: page.wikiid, title };
}

async function ownGuide(world: FuzzWorld, category = world.category): Promise<{ guideid: number; revisionid: number }> {
  const guide = await made('guide', 'POST', '/guides', world.admin.token, {
    category,
    type: 'how-to',
    title: `Fuzz own guide ${uniqueSuffix()}`,
    public: true,
  });
  return { guideid: guide.guideid, revisionid: guide.revisionid };
}

/** A WIKI page of its own, with two revisions (the first one to revert to). */
async function ownPage(world: FuzzWorld) {
  const title = `Fuzz own page ${uniqueSuffix()}`;
  const page = await made('page', 'POST', '/wikis', world.admin.token, { namespace: 'WIKI', title, contents: 'One.' });
  const path = `/wikis/WIKI/${encodeURIComponent(title)}`;
  await made('page edit', 'PATCH', path, world.admin.token, { contents: 'Two.' }, { revisionid: page.revisionid });
  return { title, firstRevision: page.revisionid as number };
}

/** The guide of every prepared course stage (courses are made per request, the guide is shared). */
const trainingGuide = (world: FuzzWorld) => once('training guide', () => ownGuide(world));

/** A course with one stage on the training guide (assessed by `assessmentTeam`), assigned to `trainees`. */
async function assignedStage(world: FuzzWorld, trainees: number[], assessmentTeam?: number) {
  const guide = await trainingGuide(world);
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
const signoffTeam = (world: FuzzWorld, purpose: string) =>
  once(`signoff team ${purpose}`, async () => {
    const signer = await freshUser(world);
    return { signer, teamid: await ownTeam(world, world.admin.userid, [signer.userid]) };
  });

/**
 * A stage assessed by the signoff team, assigned to the fuzz plain user (the trainee); with
 * `request`, the trainee's open signoff request.
 */
async function assessment(world: FuzzWorld, request: boolean, purpose = 'any') {
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
const governedCategory = (world: FuzzWorld, purpose: string) =>
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
async function governedGuide(world: FuzzWorld, withRequest: boolean, purpose: string) {
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
async function entry(world: FuzzWorld, state: 'started' | 'paused' | 'suspended', owner = world.admin.token) {
  const started = await made('work log entry', 'POST', '/work_log', owner, {
    guideid: world.guideid,
    workorderid: `WO-fuzz-${uniqueSuffix()}`,
  });
  if (state === 'paused') await made('pause', 'POST', `/work_log/${started.entryid}/pause`, owner);
  if (state === 'suspended') await made('suspend', 'POST', `/work_log/${started.entryid}/suspend`, owner);
  return started.entryid as number;
}

/** An approval process of the fuzz Admin's team (renamed and attached any number of times). */
const adminProcess = (world: FuzzWorld): Promise<number> =>
  once('admin process', async () => {
    const process = await made('approval process', 'POST', '/approvals/process', world.admin.token, {
      name: `Fuzz own process ${uniqueSuffix()}`,
      stages: [{ teamid: await ownTeam(world, world.admin.userid), quorum: 1 }],
    });
    return process.approval_processid;
  });

/** A review schedule (of `reviewer`, or the Admin); documents are added per request. */
const reviewSchedule = (world: FuzzWorld, reviewer?: FreshUser): Promise<number> =>
  once(`review schedule ${reviewer?.userid ?? 'admin'}`, async () => {
    const schedule = await made('review schedule', 'POST', '/periodic_review', world.admin.token, {
      name: `Fuzz own schedule ${uniqueSuffix()}`,
      frequency_quantity: 12,
      frequency_unit: 'month',
      ...(reviewer ? { reviewer_userid: reviewer.userid } : {}),
    });
    return schedule.prsid;
  });

const reviewer = (world: FuzzWorld) => once('reviewer', () => freshUser(world, true));

/** A guide release whose notes may change any number of times. */
const sharedRelease = (world: FuzzWorld): Promise<number> =>
  once('release', async () => {
    const guide = await ownGuide(world);
    const release = await made('release', 'POST', '/guides/releases', world.admin.token, {
      guideid: guide.guideid,
      release_type: 'major',
    });
    return release.releaseid;
  });

/** A webhook on the receiver (PATCH and test leave it usable). */
const sharedWebhook = (world: FuzzWorld): Promise<number> =>
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
async function mailedResetToken(email: string, since: number): Promise<string> {
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
function emptySiteFile(): Buffer {
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

// ---- per route --------------------------------------------------------------------------------

/** A signoff route under both of its prefixes (/stage-sign-offs/… and /courses/stage-sign-offs/…). */
function bothPrefixes(method: string, path: string, prepare: Prepare): Record<string, Prepare> {
  return { [`${method} ${path}`]: prepare, [`${method} /courses${path}`]: prepare };
}

export const PREPARATIONS: Record<string, Prepare> = {
  // ---- auth and teams
  'POST /user/token': async (world) => ({ body: { password: world.loginTarget.password } }),
  // An address gets at most 5 reset mails an hour: a throwaway user per request.
  'POST /users/reset_password/complete': async (world) => {
    const user = await freshUser(world);
    const since = Date.now() - 1000;
    await made('reset mail', 'POST', '/users/reset_password', '', { email: user.email });
    return { body: { token: await mailedResetToken(user.email, since) } };
  },
  'PUT /teams/{teamid}/users/{userid}': async (world) => ({
    values: { teamid: await ownTeam(world, world.admin.userid) },
  }),
  'PATCH /teams/{teamid}/users': async (world) => ({
    values: { teamid: await ownTeam(world, world.admin.userid, [world.victim.userid]) },
    body: { add: [world.user.userid], remove: [world.victim.userid] },
  }),

  // ---- guides, releases, wikis, comments
  'PATCH /guides/{guideid}/steps/{stepid}': async (world) => {
    const guide = await made('guide', 'GET', `/guides/${world.guideid}`, world.admin.token);
    const step = guide.steps.find((each: { stepid: number }) => each.stepid === world.stepid);
    return { query: { revisionid: String(step.revisionid) } };
  },
  'PUT /guides/{guideid}/steporder': async (world) => {
    const guide = await made('guide', 'GET', `/guides/${world.guideid}`, world.admin.token);
    return { body: { stepids: guide.steps.map((step: { stepid: number }) => step.stepid).reverse() } };
  },
  'PATCH /guides/releases/{releaseid}': async (world) => ({ values: { releaseid: await sharedRelease(world) } }),
  // Each target guide gets a release of its current revision: a guide of its own per request.
  'POST /guides/duplicateReleases': async (world) => {
    const [releaseid, target] = await Promise.all([sharedRelease(world), ownGuide(world)]);
    return { body: { releaseid, guideids: [target.guideid] } };
  },
  // A fuzzed PATCH may rename the page (a body title) and a revert may bring back another one:
  // each request has its own page, so the world's page keeps its title.
  'PATCH /wikis/{namespace}/{title}': async (world) => ({ values: { title: (await ownPage(world)).title } }),
  'POST /wikis/{namespace}/{title}/revert': async (world) => {
    const page = await ownPage(world);
    return { values: { title: page.title }, body: { revisionid: page.firstRevision } };
  },
  'PUT /wikis/CATEGORY/{title}/parent': async (world) => ({ values: { title: (await ownCategory(world)).title } }),
  // The world's comment is the plain user's.
  'PATCH /comments/{commentid}': async () => ({ role: 'user' }),

  // ---- media and modules
  'POST /user/media/uploads': async () => ({
    query: { file: 'fuzz.png' },
    rawBody: await png(40, 30),
    contentType: 'application/octet-stream',
  }),
  'POST /user/media/images': async () => ({
    query: { file: 'fuzz.png' },
    rawBody: await png(40, 30),
    contentType: 'image/png',
  }),
  'POST /user/media/images/edits': async (world) => ({ values: { imageid: await processedImage(world) } }),
  'POST /user/media/images/{imageid}': async (world) => ({ values: { imageid: await processedImage(world) } }),
  'PUT /external_training_modules/{id}/current': async (world) => ({ values: { ...(await finishedModule(world)) } }),
  'PUT /external_training_modules/{id}/draft': async (world) => ({ values: { ...(await finishedModule(world)) } }),
  'POST /external_training_modules/imports/{importid}/start/byUrl': async (world) => {
    const created = await made('module import', 'POST', '/external_training_modules/imports', world.admin.token, {});
    return { values: { importid: created.importid }, body: { url: (await packageServer()).url } };
  },
  'POST /external_training_modules/imports/{importid}/start/byUpload': async (world) => {
    const created = await made('module import', 'POST', '/external_training_modules/imports', world.admin.token, {});
    return { values: { importid: created.importid } };
  },
  'POST /external_training_modules/imports/{importid}/cancel': async (world) => {
    const created = await made('module import', 'POST', '/external_training_modules/imports', world.admin.token, {});
    return { values: { importid: created.importid } };
  },

  // ---- course assignments and signoffs
  'PATCH /course_assignments/start/{doctype}/{docid}': async (world) => {
    const stage = await assignedStage(world, [world.admin.userid]);
    return { values: { docid: stage.guide.guideid } };
  },
  'PATCH /course_assignments/complete/{doctype}/{docid}': async (world) => {
    const stage = await assignedStage(world, [world.admin.userid]);
    return { values: { docid: stage.guide.guideid } };
  },
  'POST /course_assignments/stage_completions': async (world) => {
    const stage = await assignedStage(world, [world.victim.userid]);
    return { body: { completions: [{ userid: world.victim.userid, doctype: 'guide', docid: stage.guide.guideid }] } };
  },
  'PATCH /course_assignments/invalidate/{doctype}/{docid}/{userid}': async (world) => {
    const stage = await assignedStage(world, [world.victim.userid]);
    await made('stage completion', 'POST', '/course_assignments/stage_completions', world.admin.token, {
      completions: [{ userid: world.victim.userid, doctype: 'guide', docid: stage.guide.guideid }],
    });
    return { values: { docid: stage.guide.guideid } };
  },
  ...bothPrefixes('POST', '/stage-sign-offs/requests', async (world) => {
    const { stage_assessmentid } = await assessment(world, false);
    return { role: 'user', values: { stage_assessmentid } };
  }),
  ...bothPrefixes('POST', '/stage-sign-offs/{stage_assessmentid}/signers', async (world) => {
    const { stage_assessmentid } = await assessment(world, false);
    return { values: { stage_assessmentid } };
  }),
  ...bothPrefixes('PATCH', '/stage-sign-offs/responses', async (world) => {
    const { signoff_requestid } = await assessment(world, true);
    return { values: { signoff_requestid } };
  }),
  ...bothPrefixes('PATCH', '/stage-sign-offs/responses/{signoff_requestid}/acknowledge', async (world) => {
    const { signoff_requestid } = await assessment(world, true);
    await made('signoff response', 'PATCH', '/stage-sign-offs/responses', world.admin.token, {
      signoff_requestid,
      approved: true,
    });
    return { role: 'user', values: { signoff_requestid } };
  }),
  // Over the shoulder: the trainee is signed in, the fresh signer types their password.
  'POST /courses/stage-sign-offs/responses/{signoff_requestid}/initializeViaPassword': async (world) => {
    const { signer, signoff_requestid } = await assessment(world, true, 'initialize');
    return { role: 'user', values: { signoff_requestid }, body: { login: signer.email, password: signer.password } };
  },
  'PATCH /courses/stage-sign-offs/responses/{signoff_requestid}/finalize': async (world) => {
    const { signer, signoff_requestid } = await assessment(world, true, 'finalize');
    const path = `/courses/stage-sign-offs/responses/${signoff_requestid}/initializeViaPassword`;
    const initialized = await made('signoff initialize', 'POST', path, world.user.token, {
      login: signer.email,
      password: signer.password,
    });
    return { role: 'user', values: { signoff_requestid }, body: { token: initialized.token } };
  },

  // ---- quizzes and work log
  'POST /quizzes/attach/guide': async (world) => {
    const guide = await ownGuide(world);
    return { values: { guideid: guide.guideid }, query: { revisionid: String(guide.revisionid) } };
  },
  'POST /work_log/{entryid}/finish': async (world) => ({ values: { entryid: await entry(world, 'started') } }),
  'POST /work_log/{entryid}/cancel': async (world) => ({ values: { entryid: await entry(world, 'started') } }),
  'POST /work_log/{entryid}/pause': async (world) => ({ values: { entryid: await entry(world, 'started') } }),
  'POST /work_log/{entryid}/resume': async (world) => ({ values: { entryid: await entry(world, 'paused') } }),
  'POST /work_log/{entryid}/suspend': async (world) => ({ values: { entryid: await entry(world, 'started') } }),
  // Another user's suspended entry, taken over.
  'POST /work_log/{entryid}/assume': async (world) => ({
    values: { entryid: await entry(world, 'suspended', world.user.token) },
  }),
  'PUT /work_log/{entryid}/stepData': async (world) => ({
    values: { entryid: await entry(world, 'started') },
    body: { fields: {} },
  }),

  // ---- compliance
  // A document is in at most one schedule: a guide of its own per request.
  'POST /periodic_review/documents': async (world) => {
    const [prsid, guide] = await Promise.all([reviewSchedule(world), ownGuide(world)]);
    return { body: { prsid, documents: [{ doctype: 'guide', docid: guide.guideid }] } };
  },
  'POST /periodic_review/review': async (world) => {
    const signer = await reviewer(world);
    const [prsid, guide] = await Promise.all([reviewSchedule(world, signer), ownGuide(world)]);
    const added = await made('review document', 'POST', '/periodic_review/documents', world.admin.token, {
      prsid,
      documents: [{ doctype: 'guide', docid: guide.guideid }],
    });
    return {
      token: signer.token,
      body: { prdid: added.documents[0].prdid, revisionid: guide.revisionid, password: signer.password },
    };
  },
  'PATCH /approvals/process/{approval_processid}': async (world) => ({
    values: { approval_processid: await adminProcess(world) },
  }),
  'PUT /approvals/{wikiid}/{approval_processid}': async (world) => {
    const [category, approval_processid] = await Promise.all([ownCategory(world), adminProcess(world)]);
    return { values: { wikiid: category.wikiid, approval_processid } };
  },
  'POST /approvals/requests': async (world) => {
    const { guide } = await governedGuide(world, false, 'request');
    return { body: { docid: guide.guideid }, query: { revisionid: String(guide.revisionid) } };
  },
  'POST /approvals/request/sign/{approval_requestid}': async (world) => {
    const { signer, approval_requestid } = await governedGuide(world, true, 'sign');
    return { token: signer.token, values: { approval_requestid }, body: { password: signer.password } };
  },
  'POST /approvals/request/sign/{approval_requestid}/token': async (world) => {
    const { signer, approval_requestid } = await governedGuide(world, true, 'token');
    return { values: { approval_requestid }, body: { login: signer.email, password: signer.password } };
  },

  // ---- webhooks and site transfer
  'POST /webhooks': async () => ({ body: { url: (await webhookReceiver()).url } }),
  'PATCH /webhooks/{webhookid}': async (world) => ({ values: { webhookid: await sharedWebhook(world) } }),
  'POST /webhooks/{webhookid}/test': async (world) => ({ values: { webhookid: await sharedWebhook(world) } }),
  // A dry run in merge mode: validation reads the file and writes nothing to the shared stack.
  'POST /admin/imports/{importid}/start': async (world) => {
    const created = await made('site import', 'POST', '/admin/imports', world.admin.token, {
      mode: 'merge',
      dry_run: true,
    });
    await uploadSiteFile(created.upload, emptySiteFile());
    return { values: { importid: created.importid } };
  },
};
