/**
 * Finding what a course-assignment path names (unknown ids are 404, before any 422) and who
 * may act on it. Managers of an assignment: Admins, the owner of the assigned team, and for a
 * user assignment the owner of a team the user is in (shared/training/managers.ts). Authors
 * and Admins read every course's assignee lists and reports.
 */
import { ForbiddenError, NotFoundError } from '../../shared/domain/errors.ts';
import { hasRole, type Caller } from '../../shared/domain/caller.ts';
import { getAssignment, type AssignmentRecord } from '../../shared/db/entities/course-assignment.ts';
import type { StageDoctype } from '../../shared/db/entities/course.ts';
import { getTeam, type TeamRecord } from '../../shared/db/entities/team.ts';
import { getUser, type UserRecord } from '../../shared/db/entities/user.ts';
import { stageDocument, type StageDocument } from '../../shared/training/documents.ts';
import { managesTeam, managesUser } from '../../shared/training/managers.ts';

export async function requireAssignment(id: number): Promise<AssignmentRecord> {
  const assignment = await getAssignment(id, { consistent: true });
  if (!assignment) throw new NotFoundError(`No course assignment with course_assignmentid ${id}`);
  return assignment;
}

export async function requireUser(userid: number): Promise<UserRecord> {
  const user = await getUser(userid);
  if (!user) throw new NotFoundError(`No user with userid ${userid}`);
  return user;
}

export async function requireTeam(teamid: number): Promise<TeamRecord> {
  const team = await getTeam(teamid);
  if (!team) throw new NotFoundError(`No team with teamid ${teamid}`);
  return team;
}

const STAGE_DOCTYPES: readonly StageDoctype[] = ['guide', 'wiki', 'external_training_module'];

/** A doctype named in a path (any case); anything else names no document: 404. */
export function parseDoctype(raw: string): StageDoctype {
  const doctype = raw.toLowerCase() as StageDoctype;
  if (!STAGE_DOCTYPES.includes(doctype)) throw new NotFoundError(`Unknown doctype ${raw}`);
  return doctype;
}

export async function requireDocument(rawDoctype: string, docid: number): Promise<StageDocument> {
  const doctype = parseDoctype(rawDoctype);
  const document = await stageDocument({ doctype, docid });
  if (!document) throw new NotFoundError(`No ${doctype} with id ${docid}`);
  return document;
}

export async function managesAssignment(caller: Caller, assignment: AssignmentRecord): Promise<boolean> {
  if (assignment.assignee_teamid !== null) {
    const team = await getTeam(assignment.assignee_teamid);
    return team ? managesTeam(caller, team) : hasRole(caller, 'Admin');
  }
  return managesUser(caller, assignment.assignee_userid!);
}

export async function assertManagesUser(caller: Caller, userid: number): Promise<void> {
  if (!(await managesUser(caller, userid)))
    throw new ForbiddenError("Only Admins and owners of the user's teams manage their training");
}

export function assertManagesTeam(caller: Caller, team: TeamRecord): void {
  if (!managesTeam(caller, team)) throw new ForbiddenError("Only Admins and the team owner manage the team's training");
}

/** The user themself, their managers and Admins read a user's training. */
export async function assertReadsUser(caller: Caller, userid: number): Promise<void> {
  if (caller.userid !== userid) await assertManagesUser(caller, userid);
}

/** Members, the owner and Admins read a team's training. */
export function assertReadsTeam(caller: Caller, team: TeamRecord): void {
  if (!managesTeam(caller, team) && !caller.teams.includes(team.teamid))
    throw new ForbiddenError("Only members, the owner and Admins see the team's training");
}

/** Course-wide assignee lists and reports: Authors and Admins. */
export function assertReadsCourseTraining(caller: Caller): void {
  if (!hasRole(caller, 'Author')) throw new ForbiddenError("Only Authors and Admins see a course's assignees");
}
