import * as z from 'zod/mini';
import { featureEnabled } from '../config.ts';
import type { CourseRecord, CourseStageRecord, StageDoctype } from '../db/entities/course.ts';
import { completionPercent } from '../domain/course-completion.ts';
import type { CompletionRecord } from '../db/entities/training-record.ts';
import type { UserRecord } from '../db/entities/user.ts';
import type { WikiRecord } from '../db/entities/wiki.ts';
import { STAGE_REASONS, STAGE_STATUSES, type StageState } from '../domain/stage-status.ts';
import type { DocNode } from '../domain/wiki-syntax/types.ts';
import { authorSummary } from './user-views.ts';
import { userSummarySchema } from './common-schemas.ts';
import { renderWiki } from '../domain/wiki-syntax/index.ts';

const id = z.int();
const nullableId = z.nullable(z.int());
const timestamp = z.int();
const stageDoctype = z.enum(['guide', 'wiki', 'external_training_module']);
const frequencyUnit = z.enum(['day', 'week', 'month', 'year']);

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

/** The parsed wiki tree of `contents_json` (its nodes are described in docs/wikis.md). */
const docNodeSchema = z.custom<DocNode>(
  (value) => typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string',
);

/** The legacy `status` and, when both flags are on, `stage_status` (same rule, with its reason). */
export const stageStatusFields = {
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

export type CompletionView = z.output<typeof completionSchema>;
export type StageView = z.output<typeof stageSchema>;
export type CourseView = z.output<typeof courseSchema>;

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

export function statusFields(state: StageState | null | undefined) {
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
