/**
 * Course assignees (wire notes §3.19): `{"response": [...]}` pages by `page`/`limit`.
 * - users: the course's active user assignments, one row each, in any of seven orders
 *   through the course's sorted references, filtered by status and username search: a page
 *   is one Query plus one BatchGet of rows, whatever the number of assignees.
 * - teams: the course's active team assignments with their stored progress and the first
 *   members' rows.
 * - one team: its members' rows, paged straight off the assignment's rows (O(page) for a team
 *   of any size).
 * `is_overdue` is experimental (the spec says integrations must not rely on it).
 */
import { siteUrl } from '../../shared/config.ts';
import { NotFoundError } from '../../shared/domain/errors.ts';
import { actorUserid, hasRole, type Caller } from '../../shared/domain/caller.ts';
import { nowSeconds } from '../../shared/clock.ts';
import type { PageQuery } from '../../shared/db/paging.ts';
import { sortedRefPage } from '../../shared/db/sorted-refs.ts';
import {
  activeAssignmentIdFor,
  getAssignment,
  listCourseAssignments,
  type AssignmentRecord,
} from '../../shared/db/entities/course-assignment.ts';
import { getTeams, type TeamRecord } from '../../shared/db/entities/team.ts';
import { getRows, listAssignmentRows } from '../../shared/db/entities/training-row.ts';
import { requireCourse } from '../../shared/training/course-pages.ts';
import { managesTeam } from '../../shared/training/managers.ts';
import { currentRows, refreshDueRows, usersCollectionOf } from '../../shared/training/rows.ts';
import { assigneeRowView, type TeamAssigneeView } from '../../shared/views/course-assignment-views.ts';
import { assertReadsCourseTraining, requireTeam } from './access.ts';
import { progressOf } from './assignments.service.ts';
import type { TeamAssigneesQuery, TeamMembersQuery, UserAssigneesQuery } from './course-assignments.schemas.ts';

type AssigneeQuery = Pick<UserAssigneesQuery, 'page' | 'limit' | 'status' | 'search'>;

/** Members shown inline with each team of the teams list. */
export const MEMBERS_PREVIEW = 10;

const pageOf = (query: Pick<AssigneeQuery, 'page' | 'limit'>) => ({
  limit: query.limit,
  offset: (query.page - 1) * query.limit,
});

/** The status/search filter of a rows or references Query. */
function rowFilter(query: Pick<AssigneeQuery, 'status' | 'search'>): PageQuery['filter'] {
  const parts: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  if (query.status?.length) {
    names['#status'] = 'status';
    for (const [index, status] of query.status.entries()) values[`:status${index}`] = status;
    parts.push(`#status IN (${query.status.map((_, index) => `:status${index}`).join(', ')})`);
  }
  if (query.search) {
    values[':search'] = query.search.trim().toLowerCase();
    parts.push('contains(username_search, :search)');
  }
  if (parts.length === 0) return undefined;
  return {
    FilterExpression: parts.join(' AND '),
    ExpressionAttributeNames: Object.keys(names).length ? names : undefined,
    ExpressionAttributeValues: values,
  };
}

export async function users(caller: Caller, wikiid: number, query: UserAssigneesQuery) {
  await requireCourse(wikiid);
  assertReadsCourseTraining(caller);
  await refreshDueRows();
  const now = nowSeconds();
  const refs = await sortedRefPage(
    usersCollectionOf(wikiid),
    query.orderby,
    { descending: query.direction === 'DESC', filter: rowFilter(query) },
    pageOf(query),
  );
  const rows = await currentRows(
    await getRows(
      refs.map((ref) => ({ course_assignmentid: Number(ref.course_assignmentid), userid: Number(ref.userid) })),
    ),
    now,
  );
  return { response: rows.map((row) => assigneeRowView(row, now, siteUrl())) };
}

function teamEntry(
  assignment: AssignmentRecord,
  team: TeamRecord | undefined,
  now: number,
): Omit<TeamAssigneeView, 'members'> {
  const due_date = assignment.due_within === null ? null : assignment.created_date + assignment.due_within;
  const progress = progressOf(assignment);
  return {
    course_assignmentid: assignment.course_assignmentid,
    teamid: assignment.assignee_teamid,
    name: team?.name ?? assignment.assignee_name,
    team: team
      ? { teamid: team.teamid, name: team.name, owner: actorUserid(team.owner), member_count: team.member_count }
      : null,
    assignment_date: assignment.created_date,
    due_within: assignment.due_within,
    due_date,
    member_count: progress.users,
    completed_members: progress.completed,
    in_progress_members: progress.in_progress,
    not_started_members: progress.not_started,
    completion_percentage: progress.completion_percentage,
    is_overdue: due_date !== null && now > due_date && progress.completed < progress.users,
  };
}

export async function teams(caller: Caller, wikiid: number, query: TeamAssigneesQuery) {
  await requireCourse(wikiid);
  assertReadsCourseTraining(caller);
  await refreshDueRows();
  const now = nowSeconds();
  const filter = query.search
    ? {
        FilterExpression: 'contains(assignee_search, :search)',
        ExpressionAttributeValues: { ':search': query.search.trim().toLowerCase() },
      }
    : undefined;
  const assignments = await listCourseAssignments(wikiid, 'TEAM', pageOf(query), {
    descending: query.direction === 'DESC',
    filter,
  });
  const teamOf = new Map(
    (await getTeams(assignments.map((a) => a.assignee_teamid!))).map((team) => [team.teamid, team]),
  );
  const previews = await Promise.all(
    assignments.map(async (a) =>
      currentRows(await listAssignmentRows(a.course_assignmentid, { limit: MEMBERS_PREVIEW, offset: 0 }), now),
    ),
  );
  return {
    response: assignments.map((assignment, index) => ({
      ...teamEntry(assignment, teamOf.get(assignment.assignee_teamid!), now),
      members: previews[index].map((row) => assigneeRowView(row, now, siteUrl())),
    })),
  };
}

/** One team's progress on the course: Authors, Admins and the team's owner. */
export async function team(caller: Caller, wikiid: number, teamid: number, query: TeamMembersQuery) {
  await requireCourse(wikiid);
  const found = await requireTeam(teamid);
  if (!hasRole(caller, 'Author') && !managesTeam(caller, found)) assertReadsCourseTraining(caller);
  const id = await activeAssignmentIdFor({ teamid }, wikiid);
  if (id === undefined) throw new NotFoundError(`The course ${wikiid} is not assigned to team ${teamid}`);
  await refreshDueRows();
  const assignment = await getAssignment(id, { consistent: true });
  if (!assignment || assignment.cancelled)
    throw new NotFoundError(`The course ${wikiid} is not assigned to team ${teamid}`);
  const now = nowSeconds();
  const rows = await currentRows(
    await listAssignmentRows(assignment.course_assignmentid, pageOf(query), rowFilter(query)),
    now,
  );
  return {
    response: {
      ...teamEntry(assignment, found, now),
      members: rows.map((row) => assigneeRowView(row, now, siteUrl())),
    },
  };
}
