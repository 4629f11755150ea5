/**
 * Summaries and completion reports. They read stored aggregates only — the course's, the
 * assignments', the trainees' and the teams' counters, and the stored rows — never every
 * completion: a report costs O(what it shows). Rows a recurrence expired since they were
 * stored, and a bounded number of other due rows, are refreshed first (rows.ts), so time moves
 * the counters without a sweep.
 */
import { siteUrl } from '../../shared/config.ts';
import { ValidationError } from '../../shared/domain/errors.ts';
import type { Caller } from '../../shared/domain/caller.ts';
import { nowSeconds } from '../../shared/clock.ts';
import { getCourses } from '../../shared/db/entities/course.ts';
import { listCourseAssignments } from '../../shared/db/entities/course-assignment.ts';
import { getTeams } from '../../shared/db/entities/team.ts';
import {
  getSummary,
  listSummaries,
  listTraineeRows,
  type RowCounts,
  type TrainingRowRecord,
} from '../../shared/db/entities/training-row.ts';
import { getUsers } from '../../shared/db/entities/user.ts';
import { requireCourse } from '../../shared/training/course-pages.ts';
import { stageDocuments } from '../../shared/training/documents.ts';
import { currentRows, refreshDueRows } from '../../shared/training/rows.ts';
import { stageOutcomes } from '../../shared/training/stage-facts.ts';
import { assigneeRowView, stageEntry } from '../../shared/views/course-assignment-views.ts';
import type {
  CourseReportView,
  CourseRowReportView,
  CourseUserReportView,
  TeamReportView,
  TeamSummaryReportView,
  UserReportView,
  UserSummaryReportView,
} from '../../shared/views/training-report-views.ts';
import {
  assertManagesTeam,
  assertReadsCourseTraining,
  assertReadsTeam,
  assertReadsUser,
  requireTeam,
  requireUser,
} from './access.ts';
import { activeTeamAssignments, progressOf } from './assignments.service.ts';
import type { Page } from '../../shared/db/paging.ts';

const NO_COUNTS: RowCounts = { rows_total: 0, rows_completed: 0, rows_in_progress: 0 };

/** One of a trainee's courses in a report. */
async function rowReports(rows: TrainingRowRecord[]): Promise<CourseRowReportView[]> {
  const now = nowSeconds();
  const fresh = await currentRows(rows, now);
  const titles = new Map(
    (await getCourses([...new Set(fresh.map((row) => row.wikiid))])).map((course) => [course.wikiid, course.title]),
  );
  return fresh.map((row) => ({
    ...assigneeRowView(row, now, siteUrl()),
    wikiid: row.wikiid,
    course_title: titles.get(row.wikiid) ?? null,
    source: row.teamid === null ? ('user' as const) : ('team' as const),
  }));
}

/** A trainee's courses and counters (all of them, or those given through one team). */
async function buildUserReport(userid: number, onlyTeam?: number): Promise<UserReportView> {
  const user = await requireUser(userid);
  await refreshDueRows();
  const rows = (await listTraineeRows(userid)).filter((row) => onlyTeam === undefined || row.teamid === onlyTeam);
  const courses = await rowReports(rows);
  const summary = onlyTeam === undefined ? ((await getSummary({ userid })) ?? NO_COUNTS) : countsOf(courses);
  return { userid, username: user.username, progress: progressOf(summary), courses };
}

function countsOf(rows: Array<{ status_code: string }>): RowCounts {
  return {
    rows_total: rows.length,
    rows_completed: rows.filter((row) => row.status_code === 'completed').length,
    rows_in_progress: rows.filter((row) => row.status_code === 'in_progress').length,
  };
}

export async function userReport(caller: Caller, userid: number) {
  await requireUser(userid);
  await assertReadsUser(caller, userid);
  return buildUserReport(userid);
}

/** A member's courses given through one team: the member, the team's owner and Admins. */
export async function teamUserReport(caller: Caller, teamid: number, userid: number) {
  const team = await requireTeam(teamid);
  await requireUser(userid);
  if (caller.userid !== userid) assertManagesTeam(caller, team);
  return { teamid, ...(await buildUserReport(userid, teamid)) };
}

export async function teamReport(caller: Caller, teamid: number): Promise<TeamReportView> {
  const team = await requireTeam(teamid);
  assertReadsTeam(caller, team);
  await refreshDueRows();
  const [summary, assignments] = await Promise.all([getSummary({ teamid }), activeTeamAssignments(teamid)]);
  return {
    teamid,
    name: team.name,
    member_count: team.member_count,
    progress: progressOf(summary ?? NO_COUNTS),
    assignments: assignments.map(({ assignment, title }) => ({
      course_assignmentid: assignment.course_assignmentid,
      wikiid: assignment.wikiid,
      course_title: title,
      due_within: assignment.due_within,
      created_date: assignment.created_date,
      due_date: assignment.due_within === null ? null : assignment.created_date + assignment.due_within,
      progress: progressOf(assignment),
    })),
  };
}

export async function courseReport(
  caller: Caller,
  wikiid: number,
  page: Page = { limit: 20, offset: 0 },
): Promise<CourseReportView> {
  const { wiki, course } = await requireCourse(wikiid);
  assertReadsCourseTraining(caller);
  await refreshDueRows();
  const current = (await requireCourse(wikiid)).course;
  const assignments = await listCourseAssignments(wikiid, undefined, page);
  return {
    wikiid,
    title: wiki.title,
    stage_count: course.stages.length,
    assignee_count: current.assignee_count,
    progress: progressOf(current),
    assignments: assignments.map((assignment) => ({
      course_assignmentid: assignment.course_assignmentid,
      assignee_userid: assignment.assignee_userid,
      assignee_teamid: assignment.assignee_teamid,
      assignee_name: assignment.assignee_name,
      due_within: assignment.due_within,
      created_date: assignment.created_date,
      progress: progressOf(assignment),
    })),
  };
}

/** One trainee on one course: their row(s) and each stage's entry, decided now by the stage rule. */
export async function courseUserReport(caller: Caller, wikiid: number, userid: number): Promise<CourseUserReportView> {
  const { course } = await requireCourse(wikiid);
  const user = await requireUser(userid);
  await assertReadsUser(caller, userid);
  const rows = await rowReports(await listTraineeRows(userid, wikiid));
  const [outcomes, documents] = await Promise.all([
    stageOutcomes([userid], course.stages),
    stageDocuments(course.stages),
  ]);
  const due = rows.map((row) => row.due_date).filter((date): date is number => date !== null);
  const dueRow = { due_date: due.length ? Math.min(...due) : null };
  return {
    wikiid,
    userid,
    username: user.username,
    assigned: rows.length > 0,
    courses: rows,
    stages: outcomes
      .get(userid)!
      .map((outcome) => stageEntry(outcome, dueRow, documents.get(`${outcome.stage.doctype}#${outcome.stage.docid}`))),
  };
}

/** Reports for several ids at once (POST variants); unknown ids are 422, not a partial answer. */
export async function many<T>(
  ids: number[],
  field: string,
  exists: (id: number) => Promise<boolean>,
  report: (id: number) => Promise<T>,
) {
  const unique = [...new Set(ids)];
  const known = await Promise.all(unique.map(exists));
  const missing = unique.filter((_, index) => !known[index]);
  if (missing.length > 0) {
    throw new ValidationError(
      `Unknown ${field}: ${missing.join(', ')}`,
      missing.map((id) => ({ field, code: 'not_found', message: `No record with id ${id}` })),
    );
  }
  return { reports: await Promise.all(unique.map(report)) };
}

export async function individualSummaries(page: Page): Promise<UserSummaryReportView[]> {
  await refreshDueRows();
  const summaries = await listSummaries('users', page);
  const users = new Map(
    (await getUsers(summaries.map((summary) => summary.userid!))).map((user) => [user.userid, user]),
  );
  return summaries.map((summary) => ({
    userid: summary.userid!,
    username: users.get(summary.userid!)?.username ?? null,
    ...progressOf(summary),
  }));
}

export async function individualSummary(caller: Caller, userid: number): Promise<UserSummaryReportView> {
  const user = await requireUser(userid);
  await assertReadsUser(caller, userid);
  await refreshDueRows();
  return { userid, username: user.username, ...progressOf((await getSummary({ userid })) ?? NO_COUNTS) };
}

export async function teamSummaries(page: Page): Promise<TeamSummaryReportView[]> {
  await refreshDueRows();
  const summaries = await listSummaries('teams', page);
  const teams = new Map(
    (await getTeams(summaries.map((summary) => summary.teamid!))).map((team) => [team.teamid, team]),
  );
  return summaries.map((summary) => ({
    teamid: summary.teamid!,
    name: teams.get(summary.teamid!)?.name ?? null,
    ...progressOf(summary),
  }));
}

export async function teamSummary(caller: Caller, teamid: number): Promise<TeamSummaryReportView> {
  const team = await requireTeam(teamid);
  assertReadsTeam(caller, team);
  await refreshDueRows();
  return {
    teamid,
    name: team.name,
    member_count: team.member_count,
    ...progressOf((await getSummary({ teamid })) ?? NO_COUNTS),
  };
}
