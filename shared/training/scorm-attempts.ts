/**
 * SCORM attempts (decision 271): what a launch starts from (the learner's attempt, each SCO's
 * entry and the runtime's initial CMI data with the manifest's launch values), commits kept on
 * condition of their version, the server's judgement of the result, and the stage completed
 * through the course progress path once the module is satisfied. Shared by the modules group's
 * API routes and the player page (functions/pages), which reach it through module-player.ts.
 */
import { nowSeconds } from '../clock.ts';
import { type Caller, isAdmin } from '../domain/caller.ts';
import { ConflictError, ForbiddenError, ValidationError } from '../domain/errors.ts';
import {
  type CmiData,
  cmiProblems,
  entryFor,
  exitOf,
  formatTimespan,
  moduleSatisfied,
  type ScormModel,
  scoResult,
  timespanSeconds,
} from '../domain/scorm-attempt.ts';
import { type ScormItem, type ScormStructure, tableOfContents } from '../domain/scorm-structure.ts';
import { scoStatus } from '../domain/scorm-rollup.ts';
import {
  arrangeStructure,
  cmiObjectives,
  parseNavigationRequest,
  Sequencer,
  type SequencingState,
} from '../domain/scorm-sequencing.ts';
import {
  type AttemptSequencing,
  getAttempt,
  latestAttempt,
  listModuleAttempts,
  listUserAttempts,
  type ModuleAttemptRecord,
  putAttempt,
  type ScoState,
} from '../db/entities/module-attempt.ts';
import type { ModuleImportRecord } from '../db/entities/module-import.ts';
import { getUser } from '../db/entities/user.ts';
import type { Page } from '../db/paging.ts';
import { completeDocument } from './progress.ts';
import { attemptView } from '../views/module-attempt-views.ts';
import { log } from '../observability/logger.ts';
import type { CommitInput } from './scorm-commit-input.ts';

export interface LaunchState {
  attempt: number;
  version: number;
  /** Per SCO of the table of contents: its entry and the CMI data the runtime starts with. */
  scos: Array<{ identifier: string; entry: string; cmi: CmiData }>;
  current: ReturnType<typeof attemptView> | null;
}

function modelOf(record: ModuleImportRecord): ScormModel | null {
  const standard = record.manifest?.standard;
  return standard === 'scorm12' || standard === 'scorm2004' ? standard : null;
}

/**
 * The attempt a launch continues: the latest while a SCO of it is open or suspended, or while the
 * module is not satisfied and a SCO of it was never launched (a multi-SCO package taken one SCO
 * at a time through the player's TOC); else the next one.
 */
function continued(
  latest: ModuleAttemptRecord | undefined,
  scoIds: string[],
): { attempt: number; record: ModuleAttemptRecord | null } {
  if (!latest) return { attempt: 1, record: null };
  const open = Object.values(latest.scos).some((sco) => !sco.terminated || sco.exit === 'suspend');
  const unfinished = !latest.satisfied && scoIds.some((identifier) => !latest.scos[identifier]);
  return open || unfinished
    ? { attempt: latest.attempt, record: latest }
    : { attempt: latest.attempt + 1, record: null };
}

/** The SCOs an attempt tracks: the default organization's launchable SCOs. */
function trackedScoIds(toc: ScormItem[]): string[] {
  return toc.filter((item) => item.scorm_type === 'sco' && item.launch).map((item) => item.identifier);
}

/** The manifest's values and the learner, as the runtime's data model names them. */
function launchValues(model: ScormModel, sco: ScormItem, learner: { id: string; name: string }): CmiData {
  const values: Array<[string, string | number | null]> =
    model === 'scorm12'
      ? [
          ['cmi.core.student_id', learner.id],
          ['cmi.core.student_name', learner.name],
          ['cmi.launch_data', sco.data_from_lms],
          ['cmi.student_data.mastery_score', sco.mastery_score],
          ['cmi.student_data.max_time_allowed', sco.max_time_allowed],
          ['cmi.student_data.time_limit_action', sco.time_limit_action],
          ['cmi.core.credit', 'credit'],
          ['cmi.core.lesson_mode', 'normal'],
        ]
      : [
          ['cmi.learner_id', learner.id],
          ['cmi.learner_name', learner.name],
          ['cmi.launch_data', sco.data_from_lms],
          ['cmi.scaled_passing_score', sco.scaled_passing_score],
          [
            'cmi.completion_threshold',
            sco.completion_threshold?.completed_by_measure ? sco.completion_threshold.min_progress_measure : null,
          ],
          ['cmi.max_time_allowed', sco.max_time_allowed],
          ['cmi.time_limit_action', sco.time_limit_action],
          ['cmi.credit', 'credit'],
          ['cmi.mode', 'normal'],
        ];
  return Object.fromEntries(values.filter(([, value]) => value !== null).map(([key, value]) => [key, String(value)]));
}

/** Elements the runtime owns per session: never carried into the next one. */
const SESSION_ELEMENTS = new Set(['cmi.core.session_time', 'cmi.session_time', 'cmi.core.exit', 'cmi.exit']);

export async function launchState(caller: Caller, record: ModuleImportRecord): Promise<LaunchState | null> {
  const model = modelOf(record);
  const structure = record.manifest?.scorm;
  if (!model || !structure) return null;
  const { attempt, record: current } = continued(
    await latestAttempt(record.moduleid, caller.userid),
    trackedScoIds(tableOfContents(structure)),
  );
  const user = await getUser(caller.userid);
  const learner = { id: String(caller.userid), name: user?.username ?? `User ${caller.userid}` };
  const scos = tableOfContents(structure)
    .filter((sco) => sco.launch)
    .map((sco) => {
      const state = current?.scos[sco.identifier];
      const entry = entryFor(state);
      const kept: CmiData =
        state && entry === 'resume'
          ? Object.fromEntries(Object.entries(state.cmi).filter(([key]) => !SESSION_ELEMENTS.has(key)))
          : {};
      const totalTime = formatTimespan(model, state?.total_seconds ?? 0);
      const cmi: CmiData = {
        ...kept,
        ...launchValues(model, sco, learner),
        ...(model === 'scorm12'
          ? { 'cmi.core.entry': entry, 'cmi.core.total_time': totalTime }
          : { 'cmi.entry': entry, 'cmi.total_time': totalTime }),
      };
      return { identifier: sco.identifier, entry, cmi };
    });
  return { attempt, version: current?.version ?? 0, scos, current: current ? attemptView(current) : null };
}

function refuse(code: string, scormError: number, message: string): ValidationError {
  return new ValidationError(message, [{ field: 'cmi', code, message: `SCORM ${scormError}: ${message}` }]);
}

/**
 * Keeps a commit of one SCO's CMI data. `initialize` opens a session of the SCO (after a
 * Terminate too); `terminate` ends it: its session time joins the total, and until the SCO is
 * initialised again every commit is refused (2004: 143 Commit After Termination; 1.2: 101).
 */
export async function commit(
  caller: Caller,
  record: ModuleImportRecord,
  attempt: number,
  input: CommitInput,
): Promise<{ attempt: ReturnType<typeof attemptView>; completed: boolean }> {
  const model = modelOf(record);
  const structure = record.manifest?.scorm;
  if (!model || !structure)
    throw ValidationError.field('id', 'not_scorm', 'Only SCORM modules keep attempts through this route');
  const toc = tableOfContents(structure);
  const sco = toc.find((item) => item.identifier === input.sco && item.launch);
  if (!sco) throw ValidationError.field('sco', 'not_found', `The module has no SCO "${input.sco}"`);
  const problems = cmiProblems(model, input.cmi);
  if (problems.length > 0)
    throw new ValidationError(
      `The CMI data breaks the SCORM limits: ${problems[0]!.element} ${problems[0]!.message}`,
      problems.map((problem) => ({
        field: problem.element,
        code: `scorm_${problem.scorm_error}`,
        message: problem.message,
      })),
    );

  const stored = await getAttempt(record.moduleid, caller.userid, attempt);
  let carried: AttemptSequencing['globals'] = {};
  if (!stored) {
    const latest = await latestAttempt(record.moduleid, caller.userid);
    carried = globalsCarried(structure, latest);
    const { attempt: expected } = continued(latest, trackedScoIds(toc));
    if (attempt !== expected)
      throw ValidationError.field(
        'attempt',
        'not_current',
        `Attempt ${attempt} is not open; the current one is ${expected}`,
      );
  }
  if ((stored?.version ?? 0) !== input.version)
    throw new ConflictError(
      `The attempt is at version ${stored?.version ?? 0}, not ${input.version}`,
      stored ? attemptView(stored) : undefined,
    );
  if (stored && stored.importid !== record.importid && !input.initialize)
    throw new ConflictError('The module has a new version; launch it again', attemptView(stored));

  const previous = stored?.scos[sco.identifier];
  if (previous?.terminated && !input.initialize)
    throw refuse(
      'terminated',
      model === 'scorm12' ? 101 : 143,
      `SCO "${sco.identifier}" was terminated; it must be launched again`,
    );
  if (!previous && !input.initialize)
    throw refuse('not_initialized', model === 'scorm12' ? 301 : 142, `SCO "${sco.identifier}" was not initialised`);

  const session = input.terminate
    ? (timespanSeconds(model, input.cmi[model === 'scorm12' ? 'cmi.core.session_time' : 'cmi.session_time']) ?? 0)
    : 0;
  const result = scoResult(model, input.cmi, sco);
  const state: ScoState = {
    cmi: input.cmi,
    launched: true,
    exit: exitOf(model, input.cmi),
    terminated: input.terminate === true,
    total_seconds: (previous?.total_seconds ?? 0) + session,
    ...result,
  };
  const scos = { ...(stored?.scos ?? {}), [sco.identifier]: state };
  const tracked = toc.filter((item) => item.scorm_type === 'sco' && item.launch);
  const arranged = model === 'scorm2004' ? arrangedStructure(structure, record.moduleid, caller.userid, attempt) : null;
  const sequenced = arranged
    ? sequence(arranged, scos, stored?.sequencing ?? { attempts: {}, globals: carried, delivery: null }, {
        sco: sco.identifier,
        restarted: input.initialize === true && (!previous || (previous.terminated && previous.exit !== 'suspend')),
        initialize: input.initialize === true,
        nav: input.terminate ? (input.nav ?? null) : null,
      })
    : null;
  const verdict = moduleVerdict(model, arranged ?? structure, toc, scos, sequenced?.sequencing);
  const now = nowSeconds();
  const own = tracked.map((item) => scos[item.identifier]).filter((entry) => entry !== undefined);
  const single = tracked.length === 1 ? own[0] : undefined;
  const next: ModuleAttemptRecord = {
    moduleid: record.moduleid,
    userid: caller.userid,
    attempt,
    importid: stored?.importid ?? record.importid,
    standard: model,
    version: input.version + 1,
    scos: sequenced?.scos ?? scos,
    ...(sequenced ? { sequencing: sequenced.sequencing } : {}),
    completion_status: verdict.completion_status,
    success_status: verdict.success_status,
    score_raw: single?.score_raw ?? null,
    score_scaled: verdict.score_scaled,
    total_seconds: Object.values(scos).reduce((sum, entry) => sum + entry.total_seconds, 0),
    satisfied: verdict.satisfied || (stored?.satisfied ?? false),
    satisfied_date: stored?.satisfied_date ?? (verdict.satisfied ? now : null),
    created_date: stored?.created_date ?? now,
    modified_date: now,
  };
  const written = await putAttempt(next);
  if (!written.written)
    throw new ConflictError(
      'The attempt was changed by another commit; launch again or resend with its version',
      written.current ? attemptView(written.current) : undefined,
    );
  // Only the commit that first satisfied the module completes its stage (its satisfied_date is this commit's).
  const completed = next.satisfied_date === now && stored?.satisfied_date == null && next.satisfied;
  if (completed) {
    try {
      await completeDocument({
        userid: caller.userid,
        doctype: 'external_training_module',
        docid: record.moduleid,
        work_log_entryid: null,
        revisionid: null,
        manager_override_userid: null,
        actor_userid: caller.userid,
        impersonator_userid: null,
      });
    } catch (error) {
      log().error('The module was satisfied but its stage could not be completed', {
        moduleid: record.moduleid,
        userid: caller.userid,
        error,
      });
      throw error;
    }
  }
  return { attempt: attemptView(next), completed };
}

interface Verdict {
  completion_status: string;
  success_status: string;
  score_scaled: number | null;
  satisfied: boolean;
}

/**
 * The module's result from its SCOs' states. SCORM 2004: the activity tree's root after rollup
 * by the manifest's sequencing (shared/domain/scorm-rollup.ts, decision 325). SCORM 1.2 has no
 * sequencing: the module is satisfied when every SCO is, failed when one failed.
 */
export function moduleVerdict(
  model: ScormModel,
  structure: ScormStructure,
  toc: ScormItem[],
  scos: Record<string, ScoState>,
  sequencing?: AttemptSequencing,
): Verdict {
  const tracked = toc.filter((item) => item.scorm_type === 'sco' && item.launch);
  const own = tracked.map((item) => scos[item.identifier]).filter((entry) => entry !== undefined);
  const attempted = own.some((entry) => entry.completion_status !== 'not attempted');
  if (model === 'scorm2004') {
    const { root, satisfied } = new Sequencer(structure, sequencingState(scos, sequencing)).rollup;
    return {
      completion_status:
        satisfied || root.completion === 'completed'
          ? 'completed'
          : root.completion === 'incomplete' || attempted
            ? 'incomplete'
            : 'not attempted',
      success_status: root.satisfied === true ? 'passed' : root.satisfied === false ? 'failed' : 'unknown',
      score_scaled: root.measure,
      satisfied,
    };
  }
  const satisfied = moduleSatisfied(toc, new Map(Object.entries(scos)));
  return {
    completion_status: satisfied ? 'completed' : attempted ? 'incomplete' : 'not attempted',
    success_status: own.some((entry) => entry.success_status === 'failed')
      ? 'failed'
      : own.length === tracked.length && own.every((entry) => entry.success_status === 'passed')
        ? 'passed'
        : 'unknown',
    score_scaled: null,
    satisfied,
  };
}

/** The structure as this learner's attempt arranges it (selection and randomization; decision 335). */
export function arrangedStructure(
  structure: ScormStructure,
  moduleid: number,
  userid: number,
  attempt: number,
): ScormStructure {
  return arrangeStructure(structure, { attempt: `${moduleid}:${userid}:${attempt}`, learner: `${moduleid}:${userid}` });
}

export interface PlayerSequencing {
  /** The structure as the attempt arranges it (randomization). */
  structure: ScormStructure;
  state: SequencingState;
  /** What the last Terminate's navigation request delivers. */
  delivery: AttemptSequencing['delivery'];
  /** The SCO launched last, or the cluster an exit rule left after it: where the learner comes from. */
  current: string | null;
}

/**
 * What the player page sequences a SCORM 2004 launch with (decision 335): the learner's attempt
 * `attempt` (null: a preview, nothing tracked) arranged and its tracking state; null for 1.2.
 */
export async function playerSequencing(
  caller: Caller,
  record: ModuleImportRecord,
  attempt: number | null,
): Promise<PlayerSequencing | null> {
  const structure = record.manifest?.scorm;
  if (modelOf(record) !== 'scorm2004' || !structure) return null;
  if (attempt === null)
    return {
      structure: arrangedStructure(structure, record.moduleid, caller.userid, 0),
      state: sequencingState({}, undefined),
      delivery: null,
      current: null,
    };
  const stored = await getAttempt(record.moduleid, caller.userid, attempt);
  const sequencing = stored?.sequencing ?? {
    attempts: {},
    globals: stored ? {} : globalsCarried(structure, await latestAttempt(record.moduleid, caller.userid)),
    delivery: null,
  };
  return {
    structure: arrangedStructure(structure, record.moduleid, caller.userid, attempt),
    state: sequencingState(stored?.scos ?? {}, sequencing),
    delivery: sequencing.delivery,
    current: sequencing.current ?? sequencing.delivery?.from ?? null,
  };
}

/** The tracking state the sequencing rules read, from the SCOs' data and the attempt's sequencing state. */
export function sequencingState(
  scos: Record<string, ScoState>,
  sequencing: AttemptSequencing | undefined,
): SequencingState {
  return {
    scos: new Map(
      Object.entries(scos).map(([identifier, entry]) => [
        identifier,
        scoStatus({ ...entry, progress_measure: numberOf(entry.cmi['cmi.progress_measure']) }),
      ]),
    ),
    objectives: new Map(Object.entries(scos).map(([identifier, entry]) => [identifier, cmiObjectives(entry.cmi)])),
    attempts: new Map(Object.entries(sequencing?.attempts ?? {})),
    globals: new Map(Object.entries(sequencing?.globals ?? {})),
    seconds: new Map(Object.entries(scos).map(([identifier, entry]) => [identifier, entry.total_seconds])),
  };
}

/** Global objectives a new attempt starts with: the last attempt's when the organization keeps them global. */
function globalsCarried(
  structure: ScormStructure,
  latest: ModuleAttemptRecord | undefined,
): AttemptSequencing['globals'] {
  const organization = structure.organizations.find((entry) => entry.identifier === structure.default_organization);
  return organization?.objectives_global_to_system === false ? {} : (latest?.sequencing?.globals ?? {});
}

/**
 * A 2004 commit's sequencing (decision 335): attempt counts (a SCO launched anew, and its clusters),
 * what its objectives write to the global ones, and after a Terminate with a navigation request
 * what is delivered next (exit and post-condition rules); a retry starts the retried activities'
 * SCOs over (their data is dropped, their attempt counts stay).
 */
function sequence(
  structure: ScormStructure,
  scos: Record<string, ScoState>,
  before: AttemptSequencing,
  commit: { sco: string; restarted: boolean; initialize: boolean; nav: string | null },
): { scos: Record<string, ScoState>; sequencing: AttemptSequencing } {
  const attempts = { ...before.attempts };
  if (commit.restarted) {
    // The SCO's new attempt, and one on each cluster it enters anew (not holding the SCO launched before).
    const entered = new Sequencer(structure, sequencingState(scos, before)).enteredAnew(
      commit.sco,
      before.current ?? null,
    );
    attempts[commit.sco] = (attempts[commit.sco] ?? 0) + 1;
    for (const cluster of entered) attempts[cluster] = (attempts[cluster] ?? 0) + 1;
  }
  const written = new Sequencer(structure, sequencingState(scos, { ...before, attempts })).globalWrites();
  const globals = { ...before.globals, ...Object.fromEntries(written) };
  // The rules read the globals this commit wrote.
  const sequencer = new Sequencer(structure, sequencingState(scos, { ...before, attempts, globals }));
  let delivery = commit.initialize ? null : before.delivery;
  let kept = scos;
  let current = commit.initialize ? commit.sco : before.current;
  const request = commit.nav ? parseNavigationRequest(commit.nav) : null;
  if (commit.nav && request) {
    const decided = sequencer.afterTerminate(commit.sco, request);
    delivery = {
      from: commit.sco,
      request: commit.nav,
      deliver: decided.deliver,
      end: decided.end,
      message: decided.message,
    };
    // A cluster an exit rule or exitParent left ended its attempt: the next launch in it enters it anew.
    if (decided.left) current = decided.left;
    if (decided.retry.length > 0) {
      kept = { ...scos };
      for (const retried of decided.retry) {
        if (sequencer.subtree(retried).length > 1 || retried === structure.default_organization)
          attempts[retried] = (attempts[retried] ?? 0) + 1;
        for (const identifier of sequencer.subtree(retried)) delete kept[identifier];
      }
    }
  }
  return { scos: kept, sequencing: { attempts, globals, delivery, ...(current ? { current } : {}) } };
}

function numberOf(value: string | undefined): number | null {
  if (value === undefined || value.trim() === '') return null;
  const parsed = Number(value);
  return Number.isFinite(parsed) ? parsed : null;
}

/** The caller's attempts; with `all`, every learner's (module managers and Admins). */
export async function attempts(caller: Caller, moduleid: number, all: boolean, canManage: boolean, page: Page) {
  if (all) {
    if (!canManage && !isAdmin(caller)) throw new ForbiddenError("Only module managers see every learner's attempts");
    return { attempts: (await listModuleAttempts(moduleid, page)).map(attemptView) };
  }
  const mine = await listUserAttempts(moduleid, caller.userid);
  return { attempts: mine.slice(page.offset, page.offset + page.limit).map(attemptView) };
}
