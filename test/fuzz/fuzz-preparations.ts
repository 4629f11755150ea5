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
 * The building blocks are in test/fuzz/fuzz-state.ts.
 *
 * A preparation answers values for path parameters and body ids (`values`, they win over the
 * world's), fields laid over the example body (`body`), query values, the token that sends the
 * valid request, or a raw body. Keyed by `METHOD path` as declared in the route table.
 */
import { randomUUID } from 'node:crypto';
import { uploadSiteFile } from '../support/site-transfer.ts';
import type { FuzzWorld } from './fuzz-fixtures.ts';
import { uniqueSuffix } from '../support/api.ts';
import { importPackage } from '../support/modules.ts';
import { scorm12MultiPackage } from '../support/scorm-packages.ts';
import {
  adminProcess,
  assessment,
  assignedStage,
  cmi5Launch,
  cmi5Module,
  FUZZ_CMI5_AU,
  emptySiteFile,
  entry,
  finishedModule,
  once,
  freshUser,
  governedGuide,
  made,
  mailedResetToken,
  ownCategory,
  ownGuide,
  ownPage,
  ownSkill,
  flaggedEntry,
  ownTeam,
  releaseToAcknowledge,
  signatureToCountersign,
  ownCourse,
  packageServer,
  png,
  processedImage,
  reviewer,
  reviewSchedule,
  sharedRelease,
  sharedWebhook,
  webhookReceiver,
} from './fuzz-state.ts';

export interface Preparation {
  values?: Record<string, string | number>;
  body?: Record<string, unknown>;
  /**
   * Top-level body fields set as they are after `body` is merged over the example: for a map whose
   * example keys must not survive (step data's `fields` names a field_revisionid of the example).
   */
  bodyReplacing?: Record<string, unknown>;
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

  // ---- collections: a fuzzed PATCH may empty or rename one, so each request has its own
  'PATCH /collections/{collectionid}': async (world) => {
    const collection = await made('collection', 'POST', '/collections', world.admin.token, {
      title: `Fuzz collection ${uniqueSuffix()}`,
      guideids: [world.guideid],
    });
    return { values: { collectionid: collection.collectionid }, body: { guideids: [world.guideid] } };
  },

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
  // One SCORM 1.2 module in one course, made once; each request's learner is new and assigned to it,
  // so its attempt 1 starts at version 0 and a commit that initializes it is valid.
  'POST /external_training_modules/{id}/attempts/{attemptid}/commit': async (world) => {
    const { moduleid, wikiid } = await scormCourse(world);
    const learner = await freshUser(world, true);
    await made('assignment', 'POST', '/course_assignments', world.admin.token, { wikiid, userid: learner.userid });
    return {
      values: { id: moduleid, attemptid: 1 },
      token: learner.token,
      body: { version: 0, sco: 'intro', initialize: true },
    };
  },
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
  // An intent to sign recorded offline (POST /user/sync), confirmed by its signer's password.
  'POST /courses/stage-sign-offs/intents/{client_guid}/confirm': async (world) => {
    const { signer, signoff_requestid } = await assessment(world, true, 'intent');
    const client_guid = randomUUID();
    const intent = { client_guid, type: 'signoff.sign_intent', device_time: 1767225600, data: { signoff_requestid } };
    const { email, password } = signer;
    const token = (await made('signer login', 'POST', '/user/token', '', { email, password })).authToken as string;
    await made('sign intent', 'POST', '/user/sync', token, { actions: [intent] });
    return { token, values: { client_guid }, body: { password } };
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
  // The example's field_revisionid 1 is whoever's form field got id 1 first: on a shared stack, a
  // field of another file's guide (422 not_in_guide). Nothing to save is a valid request.
  'PUT /work_log/{entryid}/stepData': async (world) => ({
    values: { entryid: await entry(world, 'started') },
    bodyReplacing: { fields: {} },
  }),

  // ---- competency: skills, gates and acknowledgements on guides of their own, never the world's
  // guide (a gate or a skill on it would refuse the work-log routes' entries).
  'POST /qualifications/skills': async (world) => ({ body: { guideids: [(await ownGuide(world)).guideid] } }),
  'PATCH /qualifications/skills/{skillid}': async (world) => ({ values: { skillid: await ownSkill(world) } }),
  'PUT /qualifications/skills/{skillid}/levels/{userid}': async (world) => ({
    values: { skillid: await ownSkill(world), userid: world.user.userid },
    body: { password: world.admin.password },
  }),
  'PUT /qualifications/gating/guides/{guideid}': async (world) => ({
    values: { guideid: (await ownGuide(world)).guideid },
  }),
  'PUT /acknowledgements/settings/guides/{guideid}': async (world) => ({
    values: { guideid: (await ownGuide(world)).guideid },
  }),
  // The plain user is the audience of a guide of its own; its release asks them to acknowledge it.
  'POST /acknowledgements/{releaseid}/sign': async (world) => ({
    role: 'user',
    values: { releaseid: await releaseToAcknowledge(world) },
    body: { password: world.user.password },
  }),
  // The plain user read it offline (POST /user/sync), then confirms with their password.
  'POST /acknowledgements/intents/{client_guid}/confirm': async (world) => {
    const client_guid = randomUUID();
    const data = { releaseid: await releaseToAcknowledge(world) };
    const intent = { client_guid, type: 'acknowledgement.sign_intent', device_time: 1767225600, data };
    await made('acknowledgement intent', 'POST', '/user/sync', world.user.token, { actions: [intent] });
    return { role: 'user', values: { client_guid }, body: { password: world.user.password } };
  },
  'POST /work_log/{entryid}/qualification/override': async (world) => ({
    values: { entryid: await flaggedEntry(world) },
    body: { password: world.admin.password },
  }),
  'POST /acknowledgements/{releaseid}/retraining': async (world) => ({
    values: { releaseid: await releaseToAcknowledge(world) },
  }),
  // A release of its own; no marks is a valid request (the example's stepids are another guide's).
  'PUT /acknowledgements/{releaseid}/countersign-steps': async (world) => ({
    values: { releaseid: await releaseToAcknowledge(world) },
    bodyReplacing: { stepids: [] },
  }),
  'POST /acknowledgements/{releaseid}/countersign/{userid}': async (world) => ({
    values: await signatureToCountersign(world),
    body: { password: world.admin.password },
  }),
  // The world's quiz is tied to a release of its own; the plain user declines one of their own.
  'PUT /acknowledgements/{releaseid}/comprehension': async (world) => ({
    values: { releaseid: await releaseToAcknowledge(world) },
    body: { quizid: world.quizid },
  }),
  'POST /acknowledgements/{releaseid}/decline': async (world) => ({
    role: 'user',
    values: { releaseid: await releaseToAcknowledge(world) },
  }),
  // Requirements on a team and a skill of their own. A role's are site-wide (every Author's gap
  // report): the valid request clears the Author role's, which no other test file sets.
  'PUT /qualifications/requirements/teams/{teamid}': async (world) => ({
    values: { teamid: await ownTeam(world, world.admin.userid) },
    bodyReplacing: { requirements: [{ skillid: await ownSkill(world), level: 2 }] },
  }),
  'PUT /qualifications/requirements/roles/{role}': async () => ({
    values: { role: 'Author' },
    bodyReplacing: { requirements: [] },
  }),
  'PUT /qualifications/courses/{wikiid}/levels': async (world) => ({
    values: { wikiid: await ownCourse(world) },
    bodyReplacing: { grants: [] },
  }),

  // ---- cmi5 (docs/lrs.md): the fuzz cmi5 course, launched afresh for each request that needs a session.
  'POST /admin/cmi5/launches': async (world) => ({
    body: { moduleid: await cmi5Module(world), userid: world.user.userid, au_id: FUZZ_CMI5_AU },
  }),
  'POST /admin/cmi5/registrations/{registration}/waive': async (world) => ({
    values: { registration: (await cmi5Launch(world)).registration },
    body: { au_id: FUZZ_CMI5_AU },
  }),
  'POST /admin/cmi5/sessions/{session_id}/abandon': async (world) => ({
    values: { session_id: (await cmi5Launch(world)).session_id },
  }),

  // ---- company sign-in: a provider of its own (ids are the Admin's choice and unique).
  'PATCH /admin/identity_providers/{providerid}': async (world) => {
    const provider = await made('identity provider', 'POST', '/admin/identity_providers', world.admin.token, {
      providerid: `fuzz-${uniqueSuffix()
        .toLowerCase()
        .replace(/[^a-z0-9]/g, '')}`.slice(0, 40),
      kind: 'oidc',
      name: 'Fuzz provider',
      issuer: 'https://idp.example.com',
      client_id: 'fuzz-client',
    });
    return { values: { providerid: provider.providerid } };
  },

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
  // Cancelled while it still runs (items only, so it is short anyway); a finished one answers 409.
  'POST /admin/exports/{exportid}/cancel': async (world) => {
    const created = await made('site export', 'POST', '/admin/exports', world.admin.token, { include_objects: false });
    return { values: { exportid: created.exportid } };
  },
  // Cancelled before its file is uploaded: nothing was written, so a cancel is always allowed.
  'POST /admin/imports/{importid}/cancel': async (world) => {
    const created = await made('site import', 'POST', '/admin/imports', world.admin.token, {
      mode: 'merge',
      dry_run: true,
    });
    return { values: { importid: created.importid } };
  },
};

/** A current SCORM 1.2 module (the tests' multi-SCO package) and a course whose one stage it is. */
const scormCourse = (world: FuzzWorld) =>
  once('scorm course', async () => {
    const { moduleid, importid } = await importPackage(world.admin.token, await scorm12MultiPackage('Fuzz SCORM'));
    await made('current module', 'PUT', `/external_training_modules/${moduleid}/current`, world.admin.token, {
      importid,
    });
    const course = await made('course', 'POST', '/courses', world.admin.token, {
      title: `Fuzz SCORM course ${uniqueSuffix()}`,
      contents: 'Fuzzed.',
      stages: [{ doctype: 'external_training_module', docid: moduleid }],
    });
    return { moduleid: moduleid as number, wikiid: course.wikiid as number };
  });
