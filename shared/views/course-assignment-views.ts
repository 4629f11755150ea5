import * as z from 'zod/mini';
import type { AssignmentRecord } from '../db/entities/course-assignment.ts';
import type { TrainingRowRecord } from '../db/entities/training-row.ts';
import { STAGE_STATUSES } from '../domain/stage-status.ts';
import { urlSlug } from '../domain/text.ts';
import { defaultAvatarUrl } from './user-views.ts';
import { actingTokenSchema, actingTokenView } from './common-schemas.ts';
import { actorUserid } from '../domain/caller.ts';
import {
  completionSchema,
  completionView,
  stageSchema,
  stageStatusFields,
  stageView,
  statusFields,
  courseSchema,
  type StageDocument,
  type StageOutcome,
  type CourseView,
} from './course-views.ts';

const id = z.int();
const nullableId = z.nullable(z.int());
const timestamp = z.int();
const stageDoctype = z.enum(['guide', 'wiki', 'external_training_module']);
const ROW_STATUSES = ['not_started', 'in_progress', 'completed'] as const;

/** One element of completion_status[].stages (spec: Stage entry). */
export const stageEntrySchema = z.object({
  course_stageid: id,
  due_date: z.nullable(timestamp),
  doc_url: z.nullable(z.string()),
  last_completion: z.nullable(completionSchema),
  manager_override_userid: nullableId,
  stage: stageSchema,
  ...stageStatusFields,
  title: z.string(),
});

export const assignmentSchema = z.object({
  course_assignmentid: id,
  wikiid: id,
  assignee_userid: nullableId,
  assignee_teamid: nullableId,
  assignee_name: z.string(),
  assignee_url: z.string(),
  completion_status: z.array(z.object({ userid: id, stages: z.array(stageEntrySchema) })),
  user_completion_status: z.null(),
  due_within: z.nullable(z.int()),
  created_date: timestamp,
  cancelled: z.int(),
  cancelled_at: z.nullable(timestamp),
  /** null when a site API token cancelled it, named by cancelled_by_token (decision 260). */
  cancelled_by: nullableId,
  cancelled_by_token: z.optional(actingTokenSchema),
  cancellation_reason: z.nullable(z.string()),
  course: z.nullable(courseSchema),
});

const EXPERIMENTAL =
  'EXPERIMENTAL: must not be used for integrations (the spec says so); true when the due date has passed ' +
  'and the course is not completed.';

/** A row of the assignee lists (wire notes §3.19). */
export const assigneeRowSchema = z.object({
  course_assignmentid: id,
  userid: id,
  teamid: nullableId,
  username: z.string(),
  user_avatar: z
    .string()
    .check(z.meta({ description: "The 140x105 URL of the user's avatar, or of the default avatar: never null" })),
  total_stages: z.int(),
  completed_stages: z.int(),
  status: z.enum(['Not Started', 'In Progress', 'Completed']),
  status_code: z.enum(ROW_STATUSES),
  course_completion_date: z.nullable(timestamp),
  assignment_date: timestamp,
  recurrent_date: z.nullable(timestamp),
  due_date: z.nullable(timestamp),
  is_overdue: z.boolean().check(z.meta({ description: EXPERIMENTAL, 'x-experimental': true })),
});

/** Stored progress counters of an assignment, a user, a team or a course. */
export const progressSchema = z.object({
  users: z.int(),
  completed: z.int(),
  in_progress: z.int(),
  not_started: z.int(),
  completion_percentage: z.number(),
});

/** GET /course_assignments/courseAssignmentDetails/{id}: the record without per-trainee entries. */
export const assignmentDetailsSchema = z.object({
  course_assignmentid: id,
  wikiid: id,
  assignee_userid: nullableId,
  assignee_teamid: nullableId,
  assignee_name: z.string(),
  due_within: z.nullable(z.int()),
  created_date: timestamp,
  /** null when a site API token assigned it, named by created_by_token (decision 260). */
  created_by: nullableId,
  created_by_token: z.optional(actingTokenSchema),
  cancelled: z.int(),
  cancelled_at: z.nullable(timestamp),
  /** null when a site API token cancelled it, named by cancelled_by_token (decision 260). */
  cancelled_by: nullableId,
  cancelled_by_token: z.optional(actingTokenSchema),
  cancellation_reason: z.nullable(z.string()),
  due_date: z.nullable(timestamp),
  course: z.nullable(z.object({ wikiid: id, title: z.string(), revisionid: id, stage_count: z.int() })),
  progress: progressSchema,
});

export const userSourceSchema = z.object({
  course_assignmentid: id,
  wikiid: id,
  course_title: z.nullable(z.string()),
  source: z.enum(['user', 'team']),
  assignee_userid: nullableId,
  assignee_teamid: nullableId,
  team_name: z.nullable(z.string()),
  assignment_date: timestamp,
  due_date: z.nullable(timestamp),
});

export const teamSourceSchema = z.object({
  course_assignmentid: id,
  wikiid: id,
  course_title: z.nullable(z.string()),
  source: z.literal('team'),
  assignee_teamid: id,
  due_within: z.nullable(z.int()),
  created_date: timestamp,
  progress: progressSchema,
});

/** What start/complete/invalidate answer: the document's last completion and the stages it touched. */
export const progressChangeSchema = z.object({
  userid: id,
  doctype: stageDoctype,
  docid: id,
  last_completion: z.nullable(completionSchema),
  stages: z.array(
    z.object({
      course_assignmentid: id,
      wikiid: id,
      course_stageid: id,
      title: z.string(),
      ...stageStatusFields,
      status: z.enum(STAGE_STATUSES),
    }),
  ),
});

/** A team's assignment in the course assignee lists, with (some of) its members' rows. */
export const teamAssigneeSchema = z.object({
  course_assignmentid: id,
  teamid: nullableId,
  name: z.string(),
  team: z.nullable(z.object({ teamid: id, name: z.string(), owner: z.nullable(id), member_count: z.int() })),
  assignment_date: timestamp,
  due_within: z.nullable(z.int()),
  due_date: z.nullable(timestamp),
  member_count: z.int(),
  completed_members: z.int(),
  in_progress_members: z.int(),
  not_started_members: z.int(),
  completion_percentage: z.number(),
  is_overdue: z.boolean().check(z.meta({ description: EXPERIMENTAL, 'x-experimental': true })),
  members: z.array(assigneeRowSchema),
});

export type AssignmentDetailsView = z.output<typeof assignmentDetailsSchema>;
export type UserSourceView = z.output<typeof userSourceSchema>;
export type TeamSourceView = z.output<typeof teamSourceSchema>;
export type ProgressChangeView = z.output<typeof progressChangeSchema>;
export type TeamAssigneeView = z.output<typeof teamAssigneeSchema>;
export type StageEntryView = z.output<typeof stageEntrySchema>;
export type AssignmentView = z.output<typeof assignmentSchema>;
export type AssigneeRowView = z.output<typeof assigneeRowSchema>;
export type ProgressView = z.output<typeof progressSchema>;

/** One element of completion_status[].stages. */
export function stageEntry(
  outcome: StageOutcome,
  row: Pick<TrainingRowRecord, 'due_date'> | null,
  document: StageDocument | undefined,
): StageEntryView {
  return {
    course_stageid: outcome.stage.course_stageid,
    due_date: row?.due_date ?? null,
    doc_url: document?.url ?? null,
    last_completion: completionView(outcome.completion),
    manager_override_userid: outcome.completion?.manager_override_userid ?? null,
    stage: stageView(outcome.stage, document),
    ...statusFields(outcome.state),
    title: document?.title ?? outcome.stage.title,
  };
}

export function assigneeUrl(
  assignment: Pick<AssignmentRecord, 'assignee_userid' | 'assignee_teamid' | 'assignee_name'>,
): string {
  return assignment.assignee_teamid !== null
    ? `/Team/Contributions/${assignment.assignee_teamid}/${urlSlug(assignment.assignee_name)}`
    : `/User/${assignment.assignee_userid}/${urlSlug(assignment.assignee_name)}`;
}

/** The course assignment record of GET/DELETE /course_assignments/{id}, field by field. */
export function assignmentView(
  assignment: AssignmentRecord,
  completionStatus: Array<{ userid: number; stages: StageEntryView[] }>,
  /** Null once the course itself was deleted. */
  course: CourseView | null,
): AssignmentView {
  return {
    course_assignmentid: assignment.course_assignmentid,
    wikiid: assignment.wikiid,
    assignee_userid: assignment.assignee_userid,
    assignee_teamid: assignment.assignee_teamid,
    assignee_name: assignment.assignee_name,
    assignee_url: assigneeUrl(assignment),
    completion_status: completionStatus,
    user_completion_status: null,
    due_within: assignment.due_within,
    created_date: assignment.created_date,
    cancelled: assignment.cancelled,
    cancelled_at: assignment.cancelled_at,
    cancelled_by: actorUserid(assignment.cancelled_by),
    ...actingTokenView('cancelled_by', assignment.cancelled_by_token),
    cancellation_reason: assignment.cancellation_reason,
    course,
  };
}

const DISPLAY_STATUS = { not_started: 'Not Started', in_progress: 'In Progress', completed: 'Completed' } as const;

/**
 * A row of the assignee lists (wire notes §3.19): display status, counts and dates, plus our
 * ids. `is_overdue` is experimental (documented so in the OpenAPI document).
 */
export function assigneeRowView(row: TrainingRowRecord, now: number, siteUrl: string): AssigneeRowView {
  return {
    course_assignmentid: row.course_assignmentid,
    userid: row.userid,
    teamid: row.teamid,
    username: row.username,
    user_avatar: row.user_avatar ?? defaultAvatarUrl(siteUrl),
    total_stages: row.total_stages,
    completed_stages: row.completed_stages,
    status: DISPLAY_STATUS[row.status],
    status_code: row.status,
    course_completion_date: row.course_completion_date,
    assignment_date: row.assignment_date,
    recurrent_date: row.recurrent_date,
    due_date: row.due_date,
    is_overdue: row.due_date !== null && row.status !== 'completed' && now > row.due_date,
  };
}
