/**
 * Assigning a course and cancelling an assignment (used by the course-assignment endpoints
 * and by course deletion). The assignment record, its (assignee, course) claim, the team's
 * side index and the course's assignee count change in one transaction; the rows of the users
 * it covers follow in bounded transactions (rows.ts). Both steps are idempotent, so a repeated
 * cancel finishes what an interrupted one started.
 */
import { ConflictError, NotFoundError } from '../domain/errors.ts';
import { nextId } from '../db/counters.ts';
import { nowSeconds } from '../clock.ts';
import { TransactionConditionFailed, type LabelledWrite } from '../db/transactions.ts';
import { appendAudit, type AuditEvent, auditSubject } from '../db/audit.ts';
import {
  activeAssignmentIdFor,
  assignmentCancelWrites,
  assignmentCreateWrites,
  getAssignment,
  type AssignmentRecord,
} from '../db/entities/course-assignment.ts';
import type { CourseRecord } from '../db/entities/course.ts';
import { listMembers, type TeamRecord } from '../db/entities/team.ts';
import { assignmentRowChunks } from '../db/entities/training-row.ts';
import type { UserRecord } from '../db/entities/user.ts';
import { activateRows, deactivateRows } from './rows.ts';
import { outboxPut } from '../db/entities/outbox.ts';
import { domainEvent } from '../domain/events/catalogue.ts';
import { actorFields, auditActor, type Caller } from '../domain/caller.ts';

export type Assignee = { kind: 'user'; user: UserRecord } | { kind: 'team'; team: TeamRecord };

/** The course is already assigned to this assignee: the active assignment's id. */
export class AlreadyAssigned extends Error {
  constructor(readonly course_assignmentid: number | undefined) {
    super('The course is already assigned to this assignee');
  }
}

const MEMBER_PAGE = 1000;

/** Assignments are training records too: each change joins the assignee's audit chain in its transaction. */
function auditEvent(
  action: string,
  assignment: AssignmentRecord,
  actor: Caller,
  details: Record<string, unknown>,
): AuditEvent {
  return {
    action,
    ...auditActor(actor),
    subjects: [
      assignment.assignee_teamid !== null
        ? auditSubject.team(assignment.assignee_teamid)
        : auditSubject.user(assignment.assignee_userid!),
    ],
    details: {
      course_assignmentid: assignment.course_assignmentid,
      wikiid: assignment.wikiid,
      due_within: assignment.due_within,
      ...details,
    },
  };
}

/** Every member of a team with when they joined, a page of 1000 at a time. */
export async function teamMembers(teamid: number): Promise<Array<{ userid: number; joined: number }>> {
  const members: Array<{ userid: number; joined: number }> = [];
  for (let offset = 0; ; offset += MEMBER_PAGE) {
    const page = await listMembers(teamid, { limit: MEMBER_PAGE, offset });
    members.push(...page.map((member) => ({ userid: member.userid, joined: member.joined })));
    if (page.length < MEMBER_PAGE) return members;
  }
}

export async function assignCourse(input: {
  course: CourseRecord;
  assignee: Assignee;
  due_within: number | null;
  /** Who assigns: a person, or a site API token (stored as created_by null + created_by_token, decision 260). */
  by: Caller;
  /** Writes that must happen with the assignment or not at all (a retraining's cause marker and notice). */
  extraWrites?: (assignment: AssignmentRecord) => LabelledWrite[];
}): Promise<AssignmentRecord> {
  const { course, assignee } = input;
  const now = nowSeconds();
  const assignment: AssignmentRecord = {
    course_assignmentid: await nextId('course_assignment'),
    wikiid: course.wikiid,
    assignee_userid: assignee.kind === 'user' ? assignee.user.userid : null,
    assignee_teamid: assignee.kind === 'team' ? assignee.team.teamid : null,
    assignee_name: assignee.kind === 'user' ? assignee.user.username : assignee.team.name,
    due_within: input.due_within,
    created_date: now,
    ...actorFields('created_by', input.by),
    cancelled: 0,
    cancelled_at: null,
    cancelled_by: null,
    cancellation_reason: null,
    rows_total: 0,
    rows_completed: 0,
    rows_in_progress: 0,
  };
  try {
    await appendAudit(auditEvent('course.assigned', assignment, input.by, {}), [
      ...assignmentCreateWrites(assignment),
      outboxPut(
        domainEvent('course_assignment.created', `ASSIGNMENT#${assignment.course_assignmentid}`, {
          course_assignmentid: assignment.course_assignmentid,
          wikiid: assignment.wikiid,
          userid: assignment.assignee_userid,
          teamid: assignment.assignee_teamid,
          due_within: assignment.due_within,
          created_by: assignment.created_by,
        }),
      ),
      ...(input.extraWrites?.(assignment) ?? []),
    ]);
  } catch (error) {
    if (error instanceof TransactionConditionFailed) {
      if (error.failedLabels.includes('COURSE_ASSIGNEE')) {
        throw new AlreadyAssigned(
          await activeAssignmentIdFor(
            { userid: assignment.assignee_userid, teamid: assignment.assignee_teamid },
            course.wikiid,
          ),
        );
      }
      if (error.failedLabels.some((label) => label.startsWith('course-counters')))
        throw new NotFoundError(`No course with wikiid ${course.wikiid}`);
    }
    throw error;
  }
  // A team assignment covers the members it has now from now on; later members from when they join.
  const members =
    assignee.kind === 'user'
      ? [{ userid: assignee.user.userid, assignment_date: now }]
      : (await teamMembers(assignee.team.teamid)).map((member) => ({ userid: member.userid, assignment_date: now }));
  await activateRows(assignment, course, members);
  return assignment;
}

/** Cancels (or finishes cancelling) an assignment; 409 when it was cancelled before this call. */
export async function cancelAssignment(
  assignment: AssignmentRecord,
  cancel: { by: Caller; reason: string | null },
): Promise<AssignmentRecord> {
  let alreadyCancelled = assignment.cancelled === 1;
  if (!alreadyCancelled) {
    try {
      await appendAudit(
        auditEvent('course.assignment_cancelled', assignment, cancel.by, { cancellation_reason: cancel.reason }),
        assignmentCancelWrites(assignment, {
          ...actorFields('by', cancel.by),
          at: nowSeconds(),
          reason: cancel.reason,
        }),
      );
    } catch (error) {
      if (!(error instanceof TransactionConditionFailed) || !error.failedLabels.includes('assignment')) throw error;
      alreadyCancelled = true;
    }
  }
  const cancelled = (await getAssignment(assignment.course_assignmentid, { consistent: true }))!;
  for await (const rows of assignmentRowChunks(assignment.course_assignmentid)) {
    const active = rows.filter((row) => row.active).map((row) => row.userid);
    if (active.length > 0) await deactivateRows(cancelled, active, 'cancel');
  }
  if (alreadyCancelled)
    throw new ConflictError(`Course assignment ${assignment.course_assignmentid} is already cancelled`);
  return cancelled;
}
