/**
 * Course assignments: assign a course to a user or a team, read the assignment record (its
 * completion_status computed by the stage rule from the trainees' current facts), cancel it,
 * and where a user's or a team's assignments come from.
 */
import { ConflictError, ForbiddenError, ValidationError } from '../../shared/domain/errors.ts';
import { actorUserid, type Caller } from '../../shared/domain/caller.ts';
import { actingTokenView } from '../../shared/views/common-schemas.ts';
import { completionPercent } from '../../shared/domain/course-completion.ts';
import { getAssignments, type AssignmentRecord } from '../../shared/db/entities/course-assignment.ts';
import { listTeamAssignmentRefs } from '../../shared/db/entities/course-assignment-index.ts';
import { getCourses } from '../../shared/db/entities/course.ts';
import { getTeams } from '../../shared/db/entities/team.ts';
import { assignmentRowChunks, listTraineeRows, type TrainingRowRecord } from '../../shared/db/entities/training-row.ts';
import { AlreadyAssigned, assignCourse, cancelAssignment } from '../../shared/training/assignments.ts';
import { courseViewFor, findCourse, type CoursePage } from '../../shared/training/course-pages.ts';
import { stageDocuments } from '../../shared/training/documents.ts';
import { stageOutcomes } from '../../shared/training/stage-facts.ts';
import {
  assignmentView,
  stageEntry,
  type AssignmentDetailsView,
  type ProgressView,
  type TeamSourceView,
  type UserSourceView,
} from '../../shared/views/course-assignment-views.ts';
import {
  assertManagesTeam,
  assertManagesUser,
  assertReadsTeam,
  assertReadsUser,
  managesAssignment,
  requireAssignment,
  requireTeam,
  requireUser,
} from './access.ts';
import type { AssignInput } from './course-assignments.schemas.ts';

/** Longest due_within accepted: ten years. */
export const MAX_DUE_WITHIN = 10 * 366 * 86400;

async function allRows(course_assignmentid: number): Promise<TrainingRowRecord[]> {
  const rows: TrainingRowRecord[] = [];
  for await (const chunk of assignmentRowChunks(course_assignmentid)) rows.push(...chunk);
  return rows;
}

/**
 * The assignment record (spec: Course assignment). Managers see every trainee's entry; a
 * trainee covered by it sees their own; anyone else is refused.
 */
export async function recordFor(caller: Caller, assignment: AssignmentRecord) {
  const manager = await managesAssignment(caller, assignment);
  let rows = await allRows(assignment.course_assignmentid);
  if (!manager) {
    rows = rows.filter((row) => row.userid === caller.userid);
    if (rows.length === 0) throw new ForbiddenError('Only the assignee, their managers and Admins see this assignment');
  }
  const page: CoursePage | undefined = await findCourse(assignment.wikiid);
  const stages = page?.course.stages ?? [];
  const [outcomes, documents] = await Promise.all([
    stageOutcomes(
      rows.map((row) => row.userid),
      stages,
    ),
    stageDocuments(stages),
  ]);
  const completionStatus = rows.map((row) => ({
    userid: row.userid,
    stages: outcomes
      .get(row.userid)!
      .map((outcome) => stageEntry(outcome, row, documents.get(`${outcome.stage.doctype}#${outcome.stage.docid}`))),
  }));
  // The course's stage statuses are those of the assigned user, or of the caller when covered.
  const subject =
    assignment.assignee_userid ?? (rows.some((row) => row.userid === caller.userid) ? caller.userid : null);
  const states =
    subject !== null && outcomes.has(subject)
      ? new Map(outcomes.get(subject)!.map((outcome) => [outcome.stage.course_stageid, outcome.state]))
      : null;
  const course = page ? await courseViewFor(caller, page, states) : null;
  return assignmentView(assignment, completionStatus, course);
}

export async function create(caller: Caller, input: AssignInput) {
  const userid = input.userid ?? input.assignee_userid;
  const teamid = input.teamid ?? input.assignee_teamid;
  if ((userid === undefined) === (teamid === undefined)) {
    throw new ValidationError('Name exactly one assignee: userid or teamid', [
      {
        field: 'userid',
        code: userid === undefined ? 'missing_field' : 'invalid',
        message: 'Give userid or teamid, not both',
      },
      {
        field: 'teamid',
        code: teamid === undefined ? 'missing_field' : 'invalid',
        message: 'Give userid or teamid, not both',
      },
    ]);
  }
  const page = await findCourse(input.wikiid);
  if (!page) throw ValidationError.field('wikiid', 'not_found', `No course with wikiid ${input.wikiid}`);
  if (input.due_within != null && input.due_within > MAX_DUE_WITHIN)
    throw ValidationError.field('due_within', 'too_large', `due_within is at most ${MAX_DUE_WITHIN} seconds`);
  let assignee: Parameters<typeof assignCourse>[0]['assignee'];
  if (userid !== undefined) {
    const user = await requireUser(userid).catch(() => {
      throw ValidationError.field('userid', 'not_found', `No user with userid ${userid}`);
    });
    await assertManagesUser(caller, user.userid);
    assignee = { kind: 'user', user };
  } else {
    const team = await requireTeam(teamid!).catch(() => {
      throw ValidationError.field('teamid', 'not_found', `No team with teamid ${teamid}`);
    });
    assertManagesTeam(caller, team);
    assignee = { kind: 'team', team };
  }
  try {
    const assignment = await assignCourse({
      course: page.course,
      assignee,
      due_within: input.due_within ?? null,
      by: caller,
    });
    return recordFor(caller, assignment);
  } catch (error) {
    if (!(error instanceof AlreadyAssigned)) throw error;
    const current = error.course_assignmentid
      ? await requireAssignment(error.course_assignmentid).catch(() => undefined)
      : undefined;
    throw new ConflictError(
      'The course is already assigned to this assignee; the body is that assignment',
      current ? await recordFor(caller, current) : undefined,
    );
  }
}

export async function get(caller: Caller, id: number) {
  return recordFor(caller, await requireAssignment(id));
}

export async function cancel(caller: Caller, id: number, reason: string | null) {
  const assignment = await requireAssignment(id);
  if (!(await managesAssignment(caller, assignment)))
    throw new ForbiddenError("Only the assignee's managers and Admins cancel an assignment");
  try {
    return await recordFor(caller, await cancelAssignment(assignment, { by: caller, reason }));
  } catch (error) {
    if (error instanceof ConflictError)
      throw new ConflictError(error.message, await recordFor(caller, await requireAssignment(id)));
    throw error;
  }
}

/** The assignment without per-trainee entries: who, which course, the stored aggregates. */
export async function details(caller: Caller, id: number): Promise<AssignmentDetailsView> {
  const assignment = await requireAssignment(id);
  if (!(await managesAssignment(caller, assignment))) {
    const own = (await listTraineeRows(caller.userid, assignment.wikiid)).some((row) => row.course_assignmentid === id);
    if (!own) throw new ForbiddenError('Only the assignee, their managers and Admins see this assignment');
  }
  const page = await findCourse(assignment.wikiid);
  const { rows_total, rows_completed, rows_in_progress, created_by_token, cancelled_by_token, ...record } = assignment;
  return {
    ...record,
    created_by: actorUserid(record.created_by),
    ...actingTokenView('created_by', created_by_token),
    cancelled_by: actorUserid(record.cancelled_by),
    ...actingTokenView('cancelled_by', cancelled_by_token),
    due_date: assignment.due_within === null ? null : assignment.created_date + assignment.due_within,
    course: page
      ? {
          wikiid: page.wiki.wikiid,
          title: page.wiki.title,
          revisionid: page.wiki.revisionid,
          stage_count: page.course.stages.length,
        }
      : null,
    progress: progressOf(assignment),
  };
}

export function progressOf(counts: {
  rows_total: number;
  rows_completed: number;
  rows_in_progress: number;
}): ProgressView {
  return {
    users: counts.rows_total,
    completed: counts.rows_completed,
    in_progress: counts.rows_in_progress,
    not_started: counts.rows_total - counts.rows_completed - counts.rows_in_progress,
    completion_percentage: completionPercent(counts),
  };
}

/** Where a user's courses come from: their own assignments and their teams'. */
export async function userSources(caller: Caller, userid: number): Promise<UserSourceView[]> {
  await requireUser(userid);
  await assertReadsUser(caller, userid);
  const rows = await listTraineeRows(userid);
  const [courses, teams] = await Promise.all([
    getCourses([...new Set(rows.map((row) => row.wikiid))]),
    getTeams([...new Set(rows.flatMap((row) => (row.teamid === null ? [] : [row.teamid])))]),
  ]);
  const titleOf = new Map(courses.map((course) => [course.wikiid, course.title]));
  const teamOf = new Map(teams.map((team) => [team.teamid, team.name]));
  return rows.map((row) => ({
    course_assignmentid: row.course_assignmentid,
    wikiid: row.wikiid,
    course_title: titleOf.get(row.wikiid) ?? null,
    source: row.teamid === null ? ('user' as const) : ('team' as const),
    assignee_userid: row.teamid === null ? userid : null,
    assignee_teamid: row.teamid,
    team_name: row.teamid === null ? null : (teamOf.get(row.teamid) ?? null),
    assignment_date: row.assignment_date,
    due_date: row.due_date,
  }));
}

/** A team's active assignments with their stored progress. */
export async function teamSources(caller: Caller, teamid: number): Promise<TeamSourceView[]> {
  const team = await requireTeam(teamid);
  assertReadsTeam(caller, team);
  return (await activeTeamAssignments(teamid)).map(({ assignment, title }) => ({
    course_assignmentid: assignment.course_assignmentid,
    wikiid: assignment.wikiid,
    course_title: title,
    source: 'team' as const,
    assignee_teamid: teamid,
    due_within: assignment.due_within,
    created_date: assignment.created_date,
    progress: progressOf(assignment),
  }));
}

/** The team's active assignments (bounded by how many courses a team is given) with course titles. */
export async function activeTeamAssignments(
  teamid: number,
): Promise<Array<{ assignment: AssignmentRecord; title: string | null }>> {
  const ids: number[] = [];
  for (let offset = 0; ; offset += 200) {
    const refs = await listTeamAssignmentRefs(teamid, { limit: 200, offset });
    ids.push(...refs.filter((ref) => !ref.cancelled).map((ref) => ref.course_assignmentid));
    if (refs.length < 200) break;
  }
  const assignments = (await getAssignments(ids)).filter((assignment) => !assignment.cancelled);
  const titles = new Map(
    (await getCourses([...new Set(assignments.map((a) => a.wikiid))])).map((course) => [course.wikiid, course.title]),
  );
  return assignments.map((assignment) => ({ assignment, title: titles.get(assignment.wikiid) ?? null }));
}
