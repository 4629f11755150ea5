/**
 * Recording progress through the API: a trainee starts or completes a stage document; a
 * manager completes on their behalf (manager_override_userid = the manager) or invalidates a
 * completion; completeAll / invalidateAll for a user or a team; bulk stage completions.
 * Every change goes through shared/training/progress.ts (audited, rows and aggregates moved).
 */
import { ForbiddenError, ValidationError, type FieldProblem } from '../../shared/domain/errors.ts';
import type { SignedInAuth } from '../../shared/domain/caller.ts';
import { nowSeconds } from '../../shared/clock.ts';
import type { CompletionRecord, DocRef } from '../../shared/db/entities/training-record.ts';
import { listTraineeRows, type TrainingRowRecord } from '../../shared/db/entities/training-row.ts';
import { getCourses, type CourseRecord } from '../../shared/db/entities/course.ts';
import {
  activeStagesOn,
  completeDocument,
  invalidateDocument,
  startDocument,
  type StageOnDocument,
} from '../../shared/training/progress.ts';
import { stageOutcomes } from '../../shared/training/stage-facts.ts';
import { mapLimit } from '../../shared/training/map-limit.ts';
import { completionView, stageStatusShown } from '../../shared/views/course-views.ts';
import type { ProgressChangeView } from '../../shared/views/course-assignment-views.ts';
import { assertManagesTeam, assertManagesUser, requireDocument, requireTeam, requireUser } from './access.ts';
import { activeTeamAssignments } from './assignments.service.ts';
import { teamReport, userReport } from './reports.service.ts';
import { assignmentRowChunks } from '../../shared/db/entities/training-row.ts';
import type { CompleteBody, StageCompletionInput } from './course-assignments.schemas.ts';

/** The stages a progress change touched, with their statuses now. */
async function progressView(
  userid: number,
  doc: DocRef,
  completion: CompletionRecord | undefined,
  stages: StageOnDocument[],
): Promise<ProgressChangeView> {
  const views = await Promise.all(
    stages.map(async ({ row, course, stage }) => {
      const [outcome] = (await stageOutcomes([userid], [stage])).get(userid)!;
      return {
        course_assignmentid: row.course_assignmentid,
        wikiid: course.wikiid,
        course_stageid: stage.course_stageid,
        title: stage.title,
        status: outcome.state.status,
        ...(stageStatusShown() ? { stage_status: { status: outcome.state.status, reason: outcome.state.reason } } : {}),
      };
    }),
  );
  return {
    userid,
    doctype: doc.doctype,
    docid: doc.docid,
    last_completion: completionView(completion ?? null),
    stages: views,
  };
}

function notAssigned(doc: DocRef, userid: number): ValidationError {
  return ValidationError.field(
    'docid',
    'not_assigned',
    `User ${userid} has no active course assignment with a stage on ${doc.doctype} ${doc.docid}`,
  );
}

export async function start(auth: SignedInAuth, rawDoctype: string, docid: number) {
  const caller = auth.user;
  const { doctype } = await requireDocument(rawDoctype, docid);
  const doc = { doctype, docid };
  const result = await startDocument({ userid: caller.userid, ...doc, impersonator_userid: auth.impersonatorUserid });
  if (result.stages.length === 0) throw notAssigned(doc, caller.userid);
  return progressView(caller.userid, doc, result.completion, result.stages);
}

/** The caller completes a document; naming another `userid` is a manager override. */
export async function complete(auth: SignedInAuth, rawDoctype: string, docid: number, body: CompleteBody) {
  const caller = auth.user;
  const { doctype } = await requireDocument(rawDoctype, docid);
  const userid = body.userid ?? caller.userid;
  const override = userid !== caller.userid;
  // A module stage is earned in the player (decision 271); only a manager's override completes it by hand.
  if (doctype === 'external_training_module' && !override)
    throw new ForbiddenError(
      'A module stage completes when the module is satisfied in the player; a manager may complete it for you',
    );
  if (override) {
    await requireUser(userid).catch(() => {
      throw ValidationError.field('userid', 'not_found', `No user with userid ${userid}`);
    });
    await assertManagesUser(caller, userid);
  }
  const doc = { doctype, docid };
  const result = await completeDocument({
    userid,
    ...doc,
    work_log_entryid: body.work_log_entryid ?? null,
    revisionid: body.revisionid ?? null,
    manager_override_userid: override ? caller.userid : null,
    actor_userid: caller.userid,
    impersonator_userid: auth.impersonatorUserid,
  });
  if (result.stages.length === 0) throw notAssigned(doc, userid);
  return progressView(userid, doc, result.completion, result.stages);
}

export async function invalidate(auth: SignedInAuth, rawDoctype: string, docid: number, userid: number) {
  const caller = auth.user;
  const { doctype } = await requireDocument(rawDoctype, docid);
  await requireUser(userid);
  await assertManagesUser(caller, userid);
  const doc = { doctype, docid };
  const result = await invalidateDocument({
    userid,
    ...doc,
    by: caller.userid,
    impersonator_userid: auth.impersonatorUserid,
  });
  if (!result.invalidated)
    throw ValidationError.field(
      'docid',
      'no_completion',
      `User ${userid} has no valid completion of ${doctype} ${docid} to invalidate`,
    );
  return progressView(userid, doc, result.completion, result.stages);
}

interface Target {
  userid: number;
  /** Only these courses (a team's); undefined: every course assigned to the user. */
  wikiids?: Set<number>;
}

/** The stage documents of a user's active assignments (optionally only some courses), each once. */
async function stageDocsOf(target: Target): Promise<{ rows: TrainingRowRecord[]; courses: Map<number, CourseRecord> }> {
  const rows = (await listTraineeRows(target.userid)).filter(
    (row) => !target.wikiids || target.wikiids.has(row.wikiid),
  );
  const courses = new Map(
    (await getCourses([...new Set(rows.map((row) => row.wikiid))])).map((course) => [course.wikiid, course]),
  );
  return { rows, courses };
}

/** Completes, on the manager's authority, every stage of the target that is not completed now. */
async function completeAllFor(auth: SignedInAuth, target: Target): Promise<number> {
  const { courses } = await stageDocsOf(target);
  const open = new Map<string, DocRef>();
  for (const course of courses.values()) {
    for (const outcome of (await stageOutcomes([target.userid], course.stages)).get(target.userid)!) {
      if (outcome.state.status !== 'completed')
        open.set(`${outcome.stage.doctype}#${outcome.stage.docid}`, outcome.stage);
    }
  }
  for (const doc of open.values()) {
    await completeDocument({
      userid: target.userid,
      doctype: doc.doctype,
      docid: doc.docid,
      manager_override_userid: auth.user.userid,
      actor_userid: auth.user.userid,
      impersonator_userid: auth.impersonatorUserid,
    });
  }
  return open.size;
}

/** Invalidates the target's valid completions of every stage document of their (team's) courses. */
async function invalidateAllFor(auth: SignedInAuth, target: Target): Promise<number> {
  const { courses } = await stageDocsOf(target);
  const docs = new Map(
    [...courses.values()].flatMap((course) =>
      course.stages.map(
        (stage) => [`${stage.doctype}#${stage.docid}`, { doctype: stage.doctype, docid: stage.docid }] as const,
      ),
    ),
  );
  let count = 0;
  for (const doc of docs.values()) {
    const result = await invalidateDocument({
      userid: target.userid,
      ...doc,
      by: auth.user.userid,
      impersonator_userid: auth.impersonatorUserid,
    });
    if (result.invalidated) count++;
  }
  return count;
}

export async function userCompleteAll(auth: SignedInAuth, userid: number) {
  await requireUser(userid);
  await assertManagesUser(auth.user, userid);
  const changed = await completeAllFor(auth, { userid });
  return { ...(await userReport(auth.user, userid)), changed_documents: changed };
}

export async function userInvalidateAll(auth: SignedInAuth, userid: number) {
  await requireUser(userid);
  await assertManagesUser(auth.user, userid);
  const changed = await invalidateAllFor(auth, { userid });
  return { ...(await userReport(auth.user, userid)), changed_documents: changed };
}

/** The members covered by the team's active assignments, with the team's courses. */
async function teamTargets(teamid: number): Promise<Target[]> {
  const assignments = await activeTeamAssignments(teamid);
  const wikiids = new Set(assignments.map(({ assignment }) => assignment.wikiid));
  const members = new Set<number>();
  for (const { assignment } of assignments) {
    for await (const rows of assignmentRowChunks(assignment.course_assignmentid))
      for (const row of rows) if (row.active) members.add(row.userid);
  }
  return [...members].map((userid) => ({ userid, wikiids }));
}

export async function teamCompleteAll(auth: SignedInAuth, teamid: number) {
  const team = await requireTeam(teamid);
  assertManagesTeam(auth.user, team);
  const changed = await mapLimit(await teamTargets(teamid), 4, (target) => completeAllFor(auth, target));
  return { ...(await teamReport(auth.user, teamid)), changed_documents: changed.reduce((sum, n) => sum + n, 0) };
}

export async function teamInvalidateAll(auth: SignedInAuth, teamid: number) {
  const team = await requireTeam(teamid);
  assertManagesTeam(auth.user, team);
  const changed = await mapLimit(await teamTargets(teamid), 4, (target) => invalidateAllFor(auth, target));
  return { ...(await teamReport(auth.user, teamid)), changed_documents: changed.reduce((sum, n) => sum + n, 0) };
}

/**
 * Records completions on trainees' behalf (e.g. training done away from the site), each a
 * manager override. All are checked before any is written: each user managed by the caller,
 * each document a stage of one of their active assignments, dates not in the future.
 */
export async function recordStageCompletions(auth: SignedInAuth, completions: StageCompletionInput[]) {
  const caller = auth.user;
  const now = nowSeconds();
  const problems: FieldProblem[] = [];
  await Promise.all(
    completions.map(async (entry, index) => {
      const field = (name: string) => `completions[${index}].${name}`;
      if ((entry.end_date ?? now) > now)
        problems.push({ field: field('end_date'), code: 'invalid', message: 'end_date cannot be in the future' });
      if (entry.init_date !== undefined && entry.init_date > (entry.end_date ?? now))
        problems.push({ field: field('init_date'), code: 'invalid', message: 'init_date must not be after end_date' });
      if (
        !(await requireUser(entry.userid).then(
          () => true,
          () => false,
        ))
      )
        return problems.push({
          field: field('userid'),
          code: 'not_found',
          message: `No user with userid ${entry.userid}`,
        });
      if (
        !(await requireDocument(entry.doctype, entry.docid).then(
          () => true,
          () => false,
        ))
      ) {
        return problems.push({
          field: field('docid'),
          code: 'not_found',
          message: `No ${entry.doctype} with id ${entry.docid}`,
        });
      }
      if ((await activeStagesOn(entry.userid, entry)).length === 0)
        problems.push({
          field: field('docid'),
          code: 'not_assigned',
          message: `User ${entry.userid} has no active stage on ${entry.doctype} ${entry.docid}`,
        });
    }),
  );
  if (problems.length > 0) throw new ValidationError(problems.map((problem) => problem.message).join('; '), problems);
  for (const userid of new Set(completions.map((entry) => entry.userid))) {
    if (userid === caller.userid && !caller.privileges.includes('Admin'))
      throw new ForbiddenError('Record your own completions with PATCH /course_assignments/complete/{doctype}/{docid}');
    await assertManagesUser(caller, userid);
  }
  const recorded = [];
  for (const entry of completions) {
    const result = await completeDocument({
      userid: entry.userid,
      doctype: entry.doctype,
      docid: entry.docid,
      at: entry.end_date ?? now,
      init_date: entry.init_date,
      work_log_entryid: entry.work_log_entryid ?? null,
      manager_override_userid: caller.userid,
      actor_userid: caller.userid,
      impersonator_userid: auth.impersonatorUserid,
    });
    recorded.push(completionView(result.completion ?? null));
  }
  return { completions: recorded };
}
