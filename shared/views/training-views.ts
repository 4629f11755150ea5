/**
 * Wire shapes of courses and course assignments (spec: Course assignment, Stage entry, Stage
 * completion, Stage, Course object; wire notes §2.13–2.14). Pure: callers load the records.
 * `stage_status` appears only when both feature flags are on (stageStatusShown), and then the
 * legacy `status` carries the same value: both come from the one stage rule.
 */
import { featureEnabled } from '../config.ts';
import type { AssignmentRecord } from '../db/entities/course-assignment.ts';
import { completionPercent, type CourseRecord, type CourseStageRecord } from '../db/entities/course.ts';
import type { CompletionRecord } from '../db/entities/training-record.ts';
import type { TrainingRowRecord } from '../db/entities/training-row.ts';
import type { UserRecord } from '../db/entities/user.ts';
import type { WikiRecord } from '../db/entities/wiki.ts';
import type { StageState } from '../domain/stage-status.ts';
import { urlSlug } from '../domain/text.ts';
import { userSummary } from './user-views.ts';
import { renderWiki } from '../domain/wiki-syntax/index.ts';
import type { StageDocument } from '../training/documents.ts';
import type { StageOutcome } from '../training/stage-facts.ts';

export const STAGE_STATUS_FLAGS = ['dev-unify-completion-status-logic', 'dev-use-status-and-reason'] as const;

/** Both flags on: stage entries carry `stage_status`, the single source of truth. */
export function stageStatusShown(): boolean {
  return STAGE_STATUS_FLAGS.every((flag) => featureEnabled(flag));
}

const trimSite = (siteUrl: string) => siteUrl.replace(/\/+$/, '');

export function coursePath(wikiid: number): string {
  return `/Courses/View/${wikiid}`;
}

export function completionView(completion: CompletionRecord | null) {
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
  return { status: state?.status ?? null, ...(stageStatusShown() ? { stage_status: state ? { status: state.status, reason: state.reason } : null } : {}) };
}

/** A stage (`stage` of a stage entry, element of course.stages without the status fields). */
export function stageView(stage: CourseStageRecord, document: StageDocument | undefined) {
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
    assessment: stage.stage_assessmentid === null ? null : { stage_assessmentid: stage.stage_assessmentid, type: 'signoff', teamid: stage.assessment_teamid },
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
}

export function courseView(wiki: WikiRecord, course: CourseRecord, context: CourseViewContext) {
  const { json, html } = renderWiki(wiki.contents_raw, { siteUrl: context.siteUrl });
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
    stages: stages.map((stage) => ({ ...stageView(stage, context.documents?.get(`${stage.doctype}#${stage.docid}`)), ...statusFields(context.states?.get(stage.course_stageid)) })),
    stage_count: stages.length,
    assigneeCount: context.canSeeAggregates ? course.assignee_count : null,
    assignees: null,
    completionPercent: context.canSeeAggregates ? completionPercent(course) : null,
    url: path,
    fullUrl: trimSite(context.siteUrl) + path,
    editUrl: `/Courses/Edit/${wiki.wikiid}`,
    viewUrl: path,
    author: context.author ? userSummary(context.author, context.siteUrl) : null,
  };
}

export type CourseView = ReturnType<typeof courseView>;

/** One element of completion_status[].stages. */
export function stageEntry(outcome: StageOutcome, row: Pick<TrainingRowRecord, 'due_date'> | null, document: StageDocument | undefined) {
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

export function assigneeUrl(assignment: Pick<AssignmentRecord, 'assignee_userid' | 'assignee_teamid' | 'assignee_name'>): string {
  return assignment.assignee_teamid !== null
    ? `/Team/Contributions/${assignment.assignee_teamid}/${urlSlug(assignment.assignee_name)}`
    : `/User/${assignment.assignee_userid}/${urlSlug(assignment.assignee_name)}`;
}

/** The course assignment record of GET/DELETE /course_assignments/{id}, field by field. */
export function assignmentView(
  assignment: AssignmentRecord,
  completionStatus: Array<{ userid: number; stages: ReturnType<typeof stageEntry>[] }>,
  /** Null once the course itself was deleted. */
  course: CourseView | null,
) {
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
    cancelled_by: assignment.cancelled_by,
    cancellation_reason: assignment.cancellation_reason,
    course,
  };
}

const DISPLAY_STATUS = { not_started: 'Not Started', in_progress: 'In Progress', completed: 'Completed' } as const;

/**
 * A row of the assignee lists (wire notes §3.19): display status, counts and dates, plus our
 * ids. `is_overdue` is experimental (documented so in the OpenAPI document).
 */
export function assigneeRowView(row: TrainingRowRecord, now: number) {
  return {
    course_assignmentid: row.course_assignmentid,
    userid: row.userid,
    teamid: row.teamid,
    username: row.username,
    user_avatar: row.user_avatar,
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
