/**
 * cmi5 launch (docs/lrs.md, decisions 309-311): an Admin (a test driver) launches an AU of an
 * imported cmi5 module for a learner, in a new or an existing registration. The launch writes
 * the LMS.LaunchData state document and the LMS's `launched` statement, opens a session and
 * answers the AU's URL with endpoint, fetch, actor, registration and activityId. The fetch URL
 * answers once with an auth-token bound to that session (HTTP Basic to /xapi); then the
 * statements the AU sends are held to the AU rules (shared/domain/xapi/cmi5-rules.ts), and what
 * they judge moves the registration: `satisfied` for blocks and the course per moveOn, and a
 * satisfied course completes its stage through the course progress path. `waived` and
 * `abandoned` are the LMS's statements too.
 */
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { nowSeconds } from '../../shared/clock.ts';
import { siteUrl } from '../../shared/config.ts';
import type { Caller } from '../../shared/domain/caller.ts';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../shared/domain/errors.ts';
import { launchPath, normalizedPackagePath } from '../../shared/domain/package-paths.ts';
import { sha256Hex } from '../../shared/domain/secrets.ts';
import type { Cmi5Au, Cmi5Course } from '../../shared/domain/xapi/cmi5-structure.ts';
import {
  auSatisfied,
  CMI5_CATEGORY,
  CMI5_VERBS,
  type Cmi5Verb,
  checkAuStatements,
  Cmi5RuleBroken,
  LAUNCH_DATA_STATE,
  MASTERY_EXTENSION,
  MOVEON_CATEGORY,
  REASON_EXTENSION,
  SESSION_EXTENSION,
  satisfiedParts,
} from '../../shared/domain/xapi/cmi5-rules.ts';
import { checkStatement, type JsonObject } from '../../shared/domain/xapi/statement-rules.ts';
import {
  type Cmi5AuStatus,
  type Cmi5RegistrationRecord,
  getCmi5Registration,
  latestCmi5Registration,
  putCmi5Registration,
} from '../../shared/db/entities/cmi5-registration.ts';
import {
  type Cmi5SessionRecord,
  claimCmi5Fetch,
  cmi5SessionMove,
  getCmi5Session,
  insertCmi5Session,
  moveCmi5Session,
  openCmi5SessionsBefore,
} from '../../shared/db/entities/cmi5-session.ts';
import { getImport } from '../../shared/db/entities/module-import.ts';
import { getModule } from '../../shared/db/entities/training-module.ts';
import { getUser } from '../../shared/db/entities/user.ts';
import { LostRace, retryOnLostRace } from '../../shared/db/retry.ts';
import { CONTENT_TOKEN_SECONDS, contentFileUrl } from '../../shared/storage/module-content.ts';
import { requireAssigned } from '../../shared/training/module-player.ts';
import { completeDocument } from '../../shared/training/progress.ts';
import { type Cmi5LaunchView, type Cmi5RegistrationView, cmi5RegistrationView } from '../../shared/views/cmi5-views.ts';
import { handleDocument } from './documents.service.ts';
import { readStatements, storeStatements } from './statements.service.ts';
import type { AttachmentPart } from './attachments.ts';
import { lrsHomePage, type LrsCaller } from './xapi-protocol.ts';
import type { AbandonStaleInput, Cmi5LaunchInput, Cmi5WaiveInput } from './xapi.schemas.ts';

/** Sessions left open this long after their launch are abandoned by the sweep. */
export const ABANDON_AFTER_SECONDS = 24 * 3600;
const EMPTY_STATUS: Cmi5AuStatus = { completed: false, passed: false, failed: false, waived: false, satisfied: false };

/** The LMS itself as an LRS caller: the authority of the statements it writes. */
function lmsCaller(): LrsCaller {
  return {
    key: 'cmi5-lms',
    name: 'Stepwise LMS',
    scopes: ['all'],
    authority: { objectType: 'Agent', name: 'Stepwise LMS', account: { homePage: lrsHomePage(), name: 'cmi5-lms' } },
  };
}

/** The learner as cmi5 names them: an account on this site. */
function actorOf(userid: number, name: string): JsonObject {
  return { objectType: 'Agent', name, account: { homePage: siteUrl().replace(/\/+$/, ''), name: String(userid) } };
}

async function cmi5Course(moduleid: number): Promise<{ course: Cmi5Course; importid: number }> {
  const module = await getModule(moduleid);
  if (!module) throw new NotFoundError('No such module');
  const importid = module.current_importid;
  const record = importid === null ? undefined : await getImport(importid);
  const course = record?.manifest?.cmi5;
  if (!record || !course)
    throw ValidationError.field(
      'moduleid',
      'not_cmi5',
      'The module has no imported cmi5 course (import a cmi5 package)',
    );
  return { course, importid: record.importid };
}

function auOf(course: Cmi5Course, auId: string): Cmi5Au {
  const au = course.aus.find((candidate) => candidate.id === auId);
  if (!au) throw ValidationError.field('au_id', 'unknown_au', 'The course has no AU with this id');
  return au;
}

function cmi5Context(registration: string, course: Cmi5Course, sessionId: string, moveOn = false): JsonObject {
  return {
    registration,
    contextActivities: {
      category: [{ id: CMI5_CATEGORY }, ...(moveOn ? [{ id: MOVEON_CATEGORY }] : [])],
      grouping: [{ objectType: 'Activity', id: course.course_id }],
    },
    extensions: { [SESSION_EXTENSION]: sessionId },
  };
}

function lmsStatement(verb: Cmi5Verb, actor: JsonObject, object: JsonObject, context: JsonObject, result?: JsonObject) {
  return {
    id: randomUUID(),
    actor,
    verb: { id: CMI5_VERBS[verb], display: { 'en-US': verb } },
    object: { objectType: 'Activity', ...object },
    context,
    ...(result ? { result } : {}),
    timestamp: new Date().toISOString(),
  };
}

async function storeLms(statements: JsonObject[]): Promise<void> {
  if (statements.length > 0) await storeStatements(lmsCaller(), statements, [], '1.0.3');
}

async function auLaunchBase(au: Cmi5Au, importid: number): Promise<string> {
  const path = launchPath(au.url);
  if (path === null) return au.url;
  const query = au.url.includes('?') ? au.url.slice(au.url.indexOf('?')) : '';
  return contentFileUrl(
    { importid, expires: nowSeconds() + CONTENT_TOKEN_SECONDS },
    `${normalizedPackagePath(path)}${query}`,
  );
}

export async function launch(caller: Caller, input: Cmi5LaunchInput): Promise<Cmi5LaunchView> {
  const { course, importid } = await cmi5Course(input.moduleid);
  const au = auOf(course, input.au_id ?? course.aus[0]!.id);
  const user = await getUser(input.userid);
  if (!user) throw ValidationError.field('userid', 'unknown_user', 'No such user');
  const now = nowSeconds();
  let registration: Cmi5RegistrationRecord;
  if (input.registration !== undefined) {
    const found = await getCmi5Registration(input.registration.toLowerCase());
    if (!found || found.moduleid !== input.moduleid || found.userid !== input.userid)
      throw ValidationError.field(
        'registration',
        'unknown_registration',
        "No such registration of this learner's module",
      );
    registration = found;
  } else {
    registration = {
      registration: randomUUID(),
      moduleid: input.moduleid,
      importid,
      course_id: course.course_id,
      userid: input.userid,
      actor: JSON.stringify(actorOf(input.userid, user.username)),
      version: 1,
      aus: {},
      satisfied_blocks: [],
      course_satisfied: false,
      created: now,
      created_by: caller.userid,
    };
    if (!(await putCmi5Registration(registration))) throw new ConflictError('The registration was made meanwhile');
  }
  const actor = JSON.parse(registration.actor) as JsonObject;
  const sessionId = randomUUID();
  const fetchSecret = randomBytes(24).toString('base64url');
  const session: Cmi5SessionRecord = {
    session_id: sessionId,
    registration: registration.registration,
    moduleid: input.moduleid,
    userid: input.userid,
    au_id: au.id,
    actor: registration.actor,
    launch_mode: input.launch_mode,
    fetch_hash: sha256Hex(fetchSecret),
    token_hash: null,
    state: 'launched',
    created: now,
    created_by: caller.userid,
  };
  await insertCmi5Session(session);

  const context = cmi5Context(registration.registration, course, sessionId);
  const launchData: JsonObject = {
    contextTemplate: context,
    launchMode: input.launch_mode,
    launchMethod: au.launch_method,
    moveOn: au.move_on,
    ...(input.return_url !== undefined ? { returnURL: input.return_url } : {}),
    ...(au.mastery_score !== null ? { masteryScore: au.mastery_score } : {}),
    ...(au.launch_parameters !== null ? { launchParameters: au.launch_parameters } : {}),
    ...(au.entitlement_key !== null ? { entitlementKey: { courseStructure: au.entitlement_key } } : {}),
  };
  await handleDocument('state', {
    method: 'PUT',
    query: new URLSearchParams({
      activityId: au.id,
      agent: JSON.stringify(actor),
      registration: registration.registration,
      stateId: LAUNCH_DATA_STATE,
    }),
    headers: { 'content-type': 'application/json' },
    body: Buffer.from(JSON.stringify(launchData)),
  });
  const base = await auLaunchBase(au, importid);
  const fetchUrl = `${lrsHomePage()}/cmi5/fetch?code=${sessionId}.${fetchSecret}`;
  const params = new URLSearchParams({
    endpoint: `${lrsHomePage()}/`,
    fetch: fetchUrl,
    actor: JSON.stringify(actor),
    registration: registration.registration,
    activityId: au.id,
  });
  const launchUrl = `${base}${base.includes('?') ? '&' : '?'}${params.toString()}`;
  const launchedContext: JsonObject = {
    ...context,
    extensions: {
      [SESSION_EXTENSION]: sessionId,
      'https://w3id.org/xapi/cmi5/context/extensions/launchmode': input.launch_mode,
      'https://w3id.org/xapi/cmi5/context/extensions/launchurl': base,
      'https://w3id.org/xapi/cmi5/context/extensions/moveon': au.move_on,
      ...(au.launch_parameters !== null
        ? { 'https://w3id.org/xapi/cmi5/context/extensions/launchparameters': au.launch_parameters }
        : {}),
      ...(au.mastery_score !== null ? { [MASTERY_EXTENSION]: au.mastery_score } : {}),
    },
  };
  await storeLms([lmsStatement('launched', actor, { id: au.id }, launchedContext)]);
  // NotApplicable AUs are met by being there: a block or course of them is satisfied now.
  await judge(registration.registration, course, sessionId, au, (status) => status);
  return {
    launch_url: launchUrl,
    launch_method: au.launch_method,
    registration: registration.registration,
    session_id: sessionId,
    au_id: au.id,
  };
}

/** Where the player page lives: a cmi5 AU launched from it returns there (`returnURL`). */
export function playerPageUrl(moduleid: number): string {
  return `${siteUrl().replace(/\/+$/, '')}/ExternalTrainingModule/${moduleid}`;
}

/**
 * A learner launches an AU from the player page (`/ExternalTrainingModule/{id}`): assigned
 * learners only, in their registration of the module's current version (a new one the first time
 * and after a new version was made current), in Normal mode, returning to the player page.
 */
export async function launchFromPlayer(caller: Caller, moduleid: number, auId: string): Promise<Cmi5LaunchView> {
  const module = await requireAssigned(caller, moduleid);
  const latest = await latestCmi5Registration(moduleid, caller.userid);
  const current = latest && latest.importid === module.current_importid ? latest.registration : undefined;
  return launch(caller, {
    moduleid,
    userid: caller.userid,
    au_id: auId,
    ...(current ? { registration: current } : {}),
    launch_mode: 'Normal',
    return_url: playerPageUrl(moduleid),
  });
}

export type FetchAnswer = { 'auth-token': string } | { 'error-code': '1' | '2' | '3'; 'error-text': string };

/** The fetch URL: an auth-token the first time, the cmi5 error JSON after that. */
export async function fetchToken(code: string | null): Promise<FetchAnswer> {
  const [sessionId = '', secret = ''] = (code ?? '').split('.');
  const session = await getCmi5Session(sessionId);
  const presented = Buffer.from(sha256Hex(secret), 'hex');
  const stored = Buffer.from(session?.fetch_hash ?? sha256Hex(`none:${secret}`), 'hex');
  if (!session || !timingSafeEqual(presented, stored))
    return { 'error-code': '2', 'error-text': 'This fetch URL is not valid' };
  if (session.state === 'terminated' || session.state === 'abandoned')
    return { 'error-code': '2', 'error-text': `The session is ${session.state}` };
  const tokenSecret = randomBytes(24).toString('base64url');
  if (!(await claimCmi5Fetch(sessionId, sha256Hex(tokenSecret))))
    return { 'error-code': '1', 'error-text': 'This fetch URL was used already: launch the AU again' };
  return { 'auth-token': Buffer.from(`${sessionId}:${tokenSecret}`).toString('base64') };
}

/**
 * An AU's statements: the AU rules first (403 with the reason), then stored as any statement,
 * then what they judged moves the session and the registration.
 */
export async function storeAuStatements(
  caller: LrsCaller,
  body: unknown,
  parts: AttachmentPart[],
  version: string,
  statementId?: string,
): Promise<string[]> {
  const list = statementId !== undefined ? [body] : Array.isArray(body) ? body : [body];
  // A malformed statement is a 400, as from any client, before the AU rules judge it.
  const checked = list.map((raw, index) =>
    checkStatement(raw, Array.isArray(body) ? `statements[${index}]` : 'statement'),
  );
  // Judged by the session as read, stored with the session's move on condition it is still so:
  // a request racing another of the session is judged again after it (decision 328).
  const { ids, session, course, au, status, next } = await retryOnLostRace(
    async () => {
      const session = await getCmi5Session(caller.cmi5!.sessionId);
      if (!session) throw new ForbiddenError('The cmi5 session is gone');
      const registration = await getCmi5Registration(session.registration);
      if (!registration) throw new ForbiddenError('The registration of this session is gone');
      const { course } = await courseOfRegistration(registration);
      const au = course.aus.find((candidate) => candidate.id === session.au_id);
      if (!au) throw new ForbiddenError('The AU of this session is no longer in the course');
      const status = registration.aus[au.id] ?? EMPTY_STATUS;
      let next: ReturnType<typeof checkAuStatements>;
      try {
        next = checkAuStatements(
          { sessionId: session.session_id, registration: session.registration, actor: JSON.parse(session.actor), au },
          { state: session.state, launchMode: session.launch_mode, ...status },
          checked,
        );
      } catch (error) {
        if (error instanceof Cmi5RuleBroken) throw new ForbiddenError(error.message);
        throw error;
      }
      const move = cmi5SessionMove(session, next.state);
      const ids = await storeStatements(caller, body, parts, version, statementId, move);
      return { ids, session, course, au, status, next };
    },
    {
      raceLabels: (label) => label.startsWith('cmi5-session:') || label.startsWith('statement:'),
      message: 'Other statements of this cmi5 session kept arriving at once; send these again',
    },
  );
  if (next.completed !== status.completed || next.passed !== status.passed || next.failed !== status.failed)
    await judge(session.registration, course, session.session_id, au, (current) => ({
      ...current,
      completed: current.completed || next.completed,
      passed: current.passed || next.passed,
      failed: current.failed || next.failed,
    }));
  return ids;
}

async function courseOfRegistration(registration: Cmi5RegistrationRecord): Promise<{ course: Cmi5Course }> {
  const record = await getImport(registration.importid);
  const course = record?.manifest?.cmi5;
  if (!course) throw new NotFoundError('The course of this registration is gone');
  return { course };
}

/**
 * Applies a change to an AU's status, then judges moveOn: the LMS states `satisfied` for each
 * block and the course newly met, and a newly satisfied course completes the module's stage.
 */
async function judge(
  registrationId: string,
  course: Cmi5Course,
  sessionId: string,
  au: Cmi5Au,
  change: (status: Cmi5AuStatus) => Cmi5AuStatus,
): Promise<Cmi5RegistrationRecord> {
  const outcome = await retryOnLostRace(async () => {
    const current = await getCmi5Registration(registrationId);
    if (!current) throw new NotFoundError('No such registration');
    const aus = { ...current.aus, [au.id]: change(current.aus[au.id] ?? EMPTY_STATUS) };
    const satisfied = (unit: Cmi5Au) => auSatisfied(unit, aus[unit.id] ?? EMPTY_STATUS);
    for (const unit of course.aus) if (aus[unit.id]) aus[unit.id] = { ...aus[unit.id]!, satisfied: satisfied(unit) };
    const parts = satisfiedParts(course, satisfied);
    const newBlocks = parts.blocks.filter((block) => !current.satisfied_blocks.includes(block));
    const newCourse = parts.course && !current.course_satisfied;
    const next: Cmi5RegistrationRecord = {
      ...current,
      version: current.version + 1,
      aus,
      satisfied_blocks: [...current.satisfied_blocks, ...newBlocks],
      course_satisfied: current.course_satisfied || parts.course,
    };
    if (!(await putCmi5Registration(next))) throw new LostRace();
    return { next, newBlocks, newCourse };
  });
  const { next, newBlocks, newCourse } = outcome;
  const actor = JSON.parse(next.actor) as JsonObject;
  const context = cmi5Context(next.registration, course, sessionId);
  const satisfiedOf = (id: string, type: 'block' | 'course') =>
    lmsStatement(
      'satisfied',
      actor,
      { id, definition: { type: `https://w3id.org/xapi/cmi5/activitytype/${type}` } },
      context,
    );
  await storeLms([
    ...newBlocks.map((block) => satisfiedOf(block, 'block')),
    ...(newCourse ? [satisfiedOf(course.course_id, 'course')] : []),
  ]);
  if (newCourse)
    await completeDocument({
      userid: next.userid,
      doctype: 'external_training_module',
      docid: next.moduleid,
      work_log_entryid: null,
      revisionid: null,
      manager_override_userid: null,
      actor_userid: next.userid,
      impersonator_userid: null,
    });
  return next;
}

export async function getRegistration(caller: Caller, registration: string): Promise<Cmi5RegistrationView> {
  void caller;
  const record = await getCmi5Registration(registration.toLowerCase());
  if (!record) throw new NotFoundError('No such registration');
  return cmi5RegistrationView(record);
}

/** The registration's statements, oldest first (up to 500; `more` continues at /xapi/statements). */
export async function registrationStatements(
  caller: Caller,
  registration: string,
): Promise<{ statements: JsonObject[]; more: string }> {
  void caller;
  const record = await getCmi5Registration(registration.toLowerCase());
  if (!record) throw new NotFoundError('No such registration');
  const answer = await readStatements(
    lmsCaller(),
    new URLSearchParams({ registration: record.registration, ascending: 'true', limit: '500' }),
    undefined,
  );
  return answer.body as { statements: JsonObject[]; more: string };
}

/** A manager waives an AU: the LMS states `waived` and judges moveOn (a waived AU is met). */
export async function waive(
  caller: Caller,
  registration: string,
  input: Cmi5WaiveInput,
): Promise<Cmi5RegistrationView> {
  const record = await getCmi5Registration(registration.toLowerCase());
  if (!record) throw new NotFoundError('No such registration');
  const { course } = await courseOfRegistration(record);
  const au = auOf(course, input.au_id);
  const status = record.aus[au.id] ?? EMPTY_STATUS;
  if (status.satisfied || status.waived)
    throw new ConflictError('The AU is satisfied in this registration already: there is nothing to waive');
  const sessionId = randomUUID();
  await storeLms([
    lmsStatement(
      'waived',
      JSON.parse(record.actor) as JsonObject,
      { id: au.id },
      cmi5Context(record.registration, course, sessionId, true),
      { success: true, completion: true, extensions: { [REASON_EXTENSION]: input.reason } },
    ),
  ]);
  return cmi5RegistrationView(
    await judge(record.registration, course, sessionId, au, (s) => ({ ...s, waived: true, waived_by: caller.userid })),
  );
}

/**
 * Ends an open session as abandoned and states it; 409 when it ended already. `by`: the Admin who
 * asked (a route), kept on the session; none when the scheduled sweep abandons it.
 */
export async function abandon(sessionId: string, by: Caller | undefined, now = nowSeconds()): Promise<void> {
  const session = await getCmi5Session(sessionId);
  if (!session) throw new NotFoundError('No such session');
  const moved =
    (await moveCmi5Session(sessionId, 'initialized', 'abandoned', by?.userid)) ||
    (await moveCmi5Session(sessionId, 'launched', 'abandoned', by?.userid));
  if (!moved) throw new ConflictError('The session has ended already');
  const registration = await getCmi5Registration(session.registration);
  const course = registration ? (await courseOfRegistration(registration)).course : undefined;
  if (!course) return;
  await storeLms([
    lmsStatement(
      'abandoned',
      JSON.parse(session.actor) as JsonObject,
      { id: session.au_id },
      cmi5Context(session.registration, course, sessionId),
      { duration: `PT${Math.max(0, now - session.created)}S` },
    ),
  ]);
}

/**
 * The sweep: sessions launched more than `older_than_seconds` ago and never terminated are
 * abandoned, naming the Admin who asked (`by`), if one did.
 */
export async function abandonStale(
  input: AbandonStaleInput,
  by: Caller | undefined,
  now = nowSeconds(),
): Promise<{ abandoned: string[] }> {
  const stale = await openCmi5SessionsBefore(now - input.older_than_seconds, 100);
  const abandoned: string[] = [];
  for (const session of stale) {
    try {
      await abandon(session.session_id, by, now);
      abandoned.push(session.session_id);
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
    }
  }
  return { abandoned };
}
