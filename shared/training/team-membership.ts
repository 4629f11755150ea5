/**
 * The teams hook: when members join a team, every active course assignment of the team starts
 * covering them (a row computed from their own completions, dated when they joined); when they
 * leave, their rows of the team's assignments go (their completions and audit trail stay).
 * A team without active assignments costs one Query of its assignment index.
 */
import { listTeamAssignmentRefs } from '../db/entities/course-assignment-index.ts';
import { getAssignment } from '../db/entities/course-assignment.ts';
import { getCourse } from '../db/entities/course.ts';
import { activateRows, deactivateRows } from './rows.ts';

const REF_PAGE = 200;

async function activeAssignmentIds(teamid: number): Promise<number[]> {
  const ids: number[] = [];
  for (let offset = 0; ; offset += REF_PAGE) {
    const refs = await listTeamAssignmentRefs(teamid, { limit: REF_PAGE, offset });
    ids.push(...refs.filter((ref) => !ref.cancelled).map((ref) => ref.course_assignmentid));
    if (refs.length < REF_PAGE) return ids;
  }
}

export async function teamMembershipChanged(
  teamid: number,
  joined: number[],
  left: number[],
  at: number,
): Promise<void> {
  if (joined.length === 0 && left.length === 0) return;
  for (const id of await activeAssignmentIds(teamid)) {
    const assignment = await getAssignment(id, { consistent: true });
    if (!assignment || assignment.cancelled) continue;
    const course = await getCourse(assignment.wikiid);
    if (!course) continue;
    if (left.length > 0) await deactivateRows(assignment, left, 'left');
    if (joined.length > 0)
      await activateRows(
        assignment,
        course,
        joined.map((userid) => ({ userid, assignment_date: at })),
      );
  }
}
