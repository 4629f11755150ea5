/**
 * Wire shapes of courses and course assignments (spec: Course assignment, Stage entry, Stage
 * completion, Stage, Course object; wire notes §2.13–2.14). Pure: callers load the records.
 * `stage_status` appears only when both feature flags are on (stageStatusShown), and then the
 * legacy `status` carries the same value: both come from the one stage rule.
 */
import { authenticatedBySchema, BY_PASSWORD } from '../domain/signature-auth.ts';
import * as z from 'zod/mini';
import { featureEnabled } from '../config.ts';
import type { AssignmentRecord } from '../db/entities/course-assignment.ts';
import type { SignoffRequestRecord } from '../db/entities/signoff.ts';
import type { CourseRecord, CourseStageRecord, StageDoctype } from '../db/entities/course.ts';
import { completionPercent } from '../domain/course-completion.ts';
import type { CompletionRecord } from '../db/entities/training-record.ts';
import type { TrainingRowRecord } from '../db/entities/training-row.ts';
import type { UserRecord } from '../db/entities/user.ts';
import type { WikiRecord } from '../db/entities/wiki.ts';
import { STAGE_REASONS, STAGE_STATUSES, type StageState } from '../domain/stage-status.ts';
import type { DocNode } from '../domain/wiki-syntax/types.ts';
import { urlSlug } from '../domain/text.ts';
import { authorSummary, defaultAvatarUrl } from './user-views.ts';
import { actingTokenSchema, actingTokenView, userSummarySchema } from './common-schemas.ts';
import { actorUserid } from '../domain/caller.ts';
import { renderWiki } from '../domain/wiki-syntax/index.ts';

/** A document a course stage points at, as the training views show it (shared/training/documents.ts reads them). */
export interface StageDocument {
  doctype: StageDoctype;
  docid: number;
  title: string;
  /** Relative URL path of the document on the site. */
  url: string;
  revisionid: number | null;
}

/** A stage with its decided state (shared/training/stage-facts.ts decides them). */
export interface StageOutcome {
  stage: CourseStageRecord;
  state: StageState;
  completion: CompletionRecord | null;
}

const id = z.int();
const nullableId = z.nullable(z.int());
const timestamp = z.int();
const stageDoctype = z.enum(['guide', 'wiki', 'external_training_module']);
const frequencyUnit = z.enum(['day', 'week', 'month', 'year']);
const ROW_STATUSES = ['not_started', 'in_progress', 'completed'] as const;

/** The parsed wiki tree of `contents_json` (its nodes are described in docs/wikis.md). */
const docNodeSchema = z.custom<DocNode>(
  (value) => typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string',
);

/** The legacy `status` and, when both flags are on, `stage_status` (same rule, with its reason). */
const stageStatusFields = {
  status: z.nullable(z.enum(STAGE_STATUSES)),
  stage_status: z.optional(z.nullable(z.object({ status: z.enum(STAGE_STATUSES), reason: z.enum(STAGE_REASONS) }))),
};

export const completionSchema = z.object({
  course_assignment_stage_completionid: id,
  doctype: stageDoctype,
  docid: id,
  course_stage_doc_revisionid: nullableId,
  assignee_userid: id,
  manager_override_userid: nullableId,
  init_date: timestamp,
  end_date: z.nullable(timestamp),
  work_log_entryid: nullableId,
});

export const stageSchema = z.object({
  course_stageid: id,
  docid: id,
  doctype: stageDoctype,
  doc_url: z.nullable(z.string()),
  orderby: z.int(),
  strictness: z.nullable(z.enum(['major', 'minor'])),
  title: z.string(),
  frequency_quantity: z.nullable(z.int()),
  frequency_unit: z.nullable(frequencyUnit),
  completion: z.null(),
  stage_assessmentid: nullableId,
  assessment: z.nullable(z.object({ stage_assessmentid: id, type: z.literal('signoff'), teamid: nullableId })),
});

export const courseSchema = z.object({
  wikiid: id,
  langid: z.string(),
  namespace: z.literal('COURSE'),
  title: z.string(),
  revisionid: id,
  contents_raw: z.string(),
  contents_json: docNodeSchema,
  contents_rendered: z.string(),
  can_edit: z.boolean(),
  flags: z.array(z.string()),
  image: z.null(),
  documents: z.array(z.unknown()),
  publish_date: timestamp,
  created_date: timestamp,
  modified_date: z.nullable(timestamp),
  enabled: z.int(),
  stages: z.array(z.object({ ...stageSchema.shape, ...stageStatusFields })),
  stage_count: z.int(),
  assigneeCount: z.nullable(z.int()),
  assignees: z.null(),
  completionPercent: z.nullable(z.number()),
  url: z.string(),
  fullUrl: z.string(),
  editUrl: z.string(),
  viewUrl: z.string(),
  author: z.nullable(userSummarySchema),
});

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

/** A trainee's course in the reports: the assignee row plus the course and where it came from. */
export const courseRowReportSchema = z.object({
  ...assigneeRowSchema.shape,
  wikiid: id,
  course_title: z.nullable(z.string()),
  source: z.enum(['user', 'team']),
});

export const userReportSchema = z.object({
  userid: id,
  username: z.string(),
  progress: progressSchema,
  courses: z.array(courseRowReportSchema),
});
export const teamUserReportSchema = z.object({ teamid: id, ...userReportSchema.shape });

export const teamReportSchema = z.object({
  teamid: id,
  name: z.string(),
  member_count: z.int(),
  progress: progressSchema,
  assignments: z.array(
    z.object({
      course_assignmentid: id,
      wikiid: id,
      course_title: z.nullable(z.string()),
      due_within: z.nullable(z.int()),
      created_date: timestamp,
      due_date: z.nullable(timestamp),
      progress: progressSchema,
    }),
  ),
});

export const courseReportSchema = z.object({
  wikiid: id,
  title: z.string(),
  stage_count: z.int(),
  assignee_count: z.int(),
  progress: progressSchema,
  assignments: z.array(
    z.object({
      course_assignmentid: id,
      assignee_userid: nullableId,
      assignee_teamid: nullableId,
      assignee_name: z.string(),
      due_within: z.nullable(z.int()),
      created_date: timestamp,
      progress: progressSchema,
    }),
  ),
});

export const courseUserReportSchema = z.object({
  wikiid: id,
  userid: id,
  username: z.string(),
  assigned: z.boolean(),
  courses: z.array(courseRowReportSchema),
  stages: z.array(stageEntrySchema),
});

export const userSummaryReportSchema = z.object({
  userid: id,
  username: z.nullable(z.string()),
  ...progressSchema.shape,
});
export const teamSummaryReportSchema = z.object({
  teamid: id,
  name: z.nullable(z.string()),
  member_count: z.optional(z.int()),
  ...progressSchema.shape,
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

/** A stage signoff request in the signoff routes' answers (wire notes §3.20; the fields are ours). */
export const signoffRequestSchema = z.object({
  signoff_requestid: id,
  stage_assessmentid: id,
  wikiid: id,
  course_title: z.nullable(z.string()),
  course_stageid: id,
  doctype: stageDoctype,
  docid: id,
  doc_title: z.nullable(z.string()),
  doc_url: z.nullable(z.string()),
  doc_revisionid: nullableId,
  userid: id,
  username: z.nullable(z.string()),
  teamid: id,
  state: z.enum(['requested', 'responded', 'acknowledged', 'cancelled']),
  comments: z.string(),
  requested_date: timestamp,
  response: z.nullable(
    z.object({
      approved: z.boolean(),
      comments: z.string(),
      responder_userid: id,
      response_date: timestamp,
      method: z.enum(['signer', 'password']),
      /** How an e-signature (`password`) was proven (decision 237); null for `signer`. */
      authenticated_by: z.nullable(authenticatedBySchema),
      responder_username: z.nullable(z.string()),
    }),
  ),
  acknowledged_date: z.nullable(timestamp),
  cancelled_date: z.nullable(timestamp),
  cancelled_by: nullableId,
  cancelled_by_token: z.optional(actingTokenSchema),
});

/** Over-the-shoulder signoff, step 1: the single-use token and where to use it. */
export const signoffFinalizeTokenSchema = z.object({
  signoff_requestid: id,
  signer_userid: id,
  token: z.string(),
  expires_in: z.int(),
  expires_at: timestamp,
  finalize: z.object({ method: z.literal('PATCH'), path: z.string() }),
});

export type SignoffRequestView = z.output<typeof signoffRequestSchema>;
export type CourseRowReportView = z.output<typeof courseRowReportSchema>;
export type UserReportView = z.output<typeof userReportSchema>;
export type TeamReportView = z.output<typeof teamReportSchema>;
export type CourseReportView = z.output<typeof courseReportSchema>;
export type CourseUserReportView = z.output<typeof courseUserReportSchema>;
export type UserSummaryReportView = z.output<typeof userSummaryReportSchema>;
export type TeamSummaryReportView = z.output<typeof teamSummaryReportSchema>;
export type AssignmentDetailsView = z.output<typeof assignmentDetailsSchema>;
export type UserSourceView = z.output<typeof userSourceSchema>;
export type TeamSourceView = z.output<typeof teamSourceSchema>;
export type ProgressChangeView = z.output<typeof progressChangeSchema>;
export type TeamAssigneeView = z.output<typeof teamAssigneeSchema>;
export type CompletionView = z.output<typeof completionSchema>;
export type StageView = z.output<typeof stageSchema>;
export type CourseView = z.output<typeof courseSchema>;
export type StageEntryView = z.output<typeof stageEntrySchema>;
export type AssignmentView = z.output<typeof assignmentSchema>;
export type AssigneeRowView = z.output<typeof assigneeRowSchema>;
export type ProgressView = z.output<typeof progressSchema>;

export const STAGE_STATUS_FLAGS = ['dev-unify-completion-status-logic', 'dev-use-status-and-reason'] as const;

/** Both flags on: stage entries carry `stage_status`, the single source of truth. */
export function stageStatusShown(): boolean {
  return STAGE_STATUS_FLAGS.every((flag) => featureEnabled(flag));
}

const trimSite = (siteUrl: string) => siteUrl.replace(/\/+$/, '');

export function coursePath(wikiid: number): string {
  return `/Courses/View/${wikiid}`;
}

export function completionView(completion: CompletionRecord | null): CompletionView | null {
  if (!completion) return null;
  return {
    course_assignment_stage_completionid: completion.course_assignment_stage_completionid,
    doctype: completion.doctype,
    docid: completion.docid,
    course_stage_doc_revisionid: completion.course_stage_doc_revisionid,
    assignee_userid: completion.userid,
    manager_override_userid: completion.manager_override_userid,
    init_date: completion.init_date,
    end_date: completion.end_date,
    work_log_entryid: completion.work_log_entryid,
  };
}

function statusFields(state: StageState | null | undefined) {
  return {
    status: state?.status ?? null,
    ...(stageStatusShown() ? { stage_status: state ? { status: state.status, reason: state.reason } : null } : {}),
  };
}

/** A stage (`stage` of a stage entry, element of course.stages without the status fields). */
export function stageView(stage: CourseStageRecord, document: StageDocument | undefined): StageView {
  return {
    course_stageid: stage.course_stageid,
    docid: stage.docid,
    doctype: stage.doctype,
    doc_url: document?.url ?? null,
    orderby: stage.orderby,
    strictness: stage.strictness,
    title: document?.title ?? stage.title,
    frequency_quantity: stage.frequency_quantity,
    frequency_unit: stage.frequency_unit,
    completion: null,
    stage_assessmentid: stage.stage_assessmentid,
    assessment:
      stage.stage_assessmentid === null
        ? null
        : { stage_assessmentid: stage.stage_assessmentid, type: 'signoff' as const, teamid: stage.assessment_teamid },
  };
}

export interface CourseViewContext {
  siteUrl: string;
  author: UserRecord | undefined;
  canEdit: boolean;
  /** Authors and Admins see assignee counts and completion; others get null. */
  canSeeAggregates: boolean;
  /** Live document titles and URLs (detailed views); lists use the titles stored with the stages. */
  documents?: Map<string, StageDocument>;
  /** The viewer's own stage states, when the course is assigned to them. */
  states?: Map<number, StageState> | null;
  /** Guids of the library images the course page names (shared/read-models/wiki-images.ts). */
  imageGuids?: ReadonlyMap<number, string>;
}

export function courseView(wiki: WikiRecord, course: CourseRecord, context: CourseViewContext): CourseView {
  const { json, html } = renderWiki(wiki.contents_raw, { siteUrl: context.siteUrl, imageGuids: context.imageGuids });
  const path = coursePath(wiki.wikiid);
  const stages = [...course.stages].sort((a, b) => a.orderby - b.orderby);
  return {
    wikiid: wiki.wikiid,
    langid: wiki.langid,
    namespace: 'COURSE' as const,
    title: wiki.title,
    revisionid: wiki.revisionid,
    contents_raw: wiki.contents_raw,
    contents_json: json,
    contents_rendered: html,
    can_edit: context.canEdit,
    flags: wiki.flags,
    image: null,
    documents: [],
    publish_date: course.publish_date,
    created_date: wiki.created_date,
    modified_date: course.modified_date,
    enabled: course.enabled,
    stages: stages.map((stage) => ({
      ...stageView(stage, context.documents?.get(`${stage.doctype}#${stage.docid}`)),
      ...statusFields(context.states?.get(stage.course_stageid)),
    })),
    stage_count: stages.length,
    assigneeCount: context.canSeeAggregates ? course.assignee_count : null,
    assignees: null,
    completionPercent: context.canSeeAggregates ? completionPercent(course) : null,
    url: path,
    fullUrl: trimSite(context.siteUrl) + path,
    editUrl: `/Courses/Edit/${wiki.wikiid}`,
    viewUrl: path,
    // A token that wrote the course shows as itself (decision 244); a gone account as null.
    author:
      context.author || wiki.service_author
        ? authorSummary(context.author, wiki.author_userid, context.siteUrl, wiki.service_author)
        : null,
  };
}

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

/** A signoff request as the signoff routes answer it, with the names and titles looked up by the caller. */
export function signoffRequestView(
  request: SignoffRequestRecord,
  names: {
    courseTitle: string | null;
    document: StageDocument | undefined;
    username: string | null;
    responderUsername: string | null;
  },
): SignoffRequestView {
  return {
    signoff_requestid: request.signoff_requestid,
    stage_assessmentid: request.stage_assessmentid,
    wikiid: request.wikiid,
    course_title: names.courseTitle,
    course_stageid: request.course_stageid,
    doctype: request.doctype,
    docid: request.docid,
    doc_title: names.document?.title ?? null,
    doc_url: names.document?.url ?? null,
    doc_revisionid: request.doc_revisionid,
    userid: request.userid,
    username: names.username,
    teamid: request.teamid,
    state: request.state,
    comments: request.comments,
    requested_date: request.requested_date,
    response: request.response
      ? {
          ...request.response,
          authenticated_by:
            request.response.method === 'signer' ? null : (request.response.authenticated_by ?? BY_PASSWORD),
          responder_username: names.responderUsername,
        }
      : null,
    acknowledged_date: request.acknowledged_date,
    cancelled_date: request.cancelled_date,
    cancelled_by: actorUserid(request.cancelled_by),
    ...actingTokenView('cancelled_by', request.cancelled_by_token),
  };
}
