/**
 * Course: a COURSE-namespace wiki page (wiki.ts: pk WIKI#<wikiid> / sk WIKI, its revisions and
 * title claim) plus the course item pk WIKI#<wikiid> / sk COURSE with the ordered stages, the
 * enabled flag and the stored aggregates (active assignments, assignee rows by status) that
 * course reads and reports show. A stage assessed by a signoff has an assessment item,
 * pk ASSESSMENT#<stage_assessmentid> / sk ASSESSMENT, naming the course, the stage and the team
 * whose members sign. Courses are listed in several orders through sorted references
 * (sorted-refs.ts, collection COURSES), moved by `reindexCourse` after any change of a sort value.
 */
import { completionPercent } from '../../domain/course-completion.ts';
import { tableName } from '../client.ts';
import { getItem } from '../items.ts';
import { padId } from '../keys.ts';
import { recordFrom, type StoredRecord, type FilledRecord } from '../stored-item.ts';
import { batchGetInOrder } from '../batch.ts';
import { transactWrite, type LabelledWrite } from '../transactions.ts';
import { retryOnLostRace } from '../retry.ts';
import { searchTokenWrites } from '../search-index.ts';
import { NULL_LAST, sortedRefWrites, type SortedPlacement } from '../sorted-refs.ts';
import { moduleUsageDelete, moduleUsageWrite } from './module-usage.ts';
import { wikiKey } from './wiki.ts';
import { canonicalJson } from '../../domain/canonical-json.ts';
import * as z from 'zod/mini';
import { serviceAuthorSchema } from './api-token.ts';

export type StageDoctype = 'guide' | 'wiki' | 'external_training_module';

export const COURSE_ORDERS = [
  'title',
  'status',
  'stages_count',
  'modified_date',
  'assignee_count',
  'completion_percentage',
] as const;
export type CourseOrder = (typeof COURSE_ORDERS)[number];
export const COURSES_COLLECTION = 'COURSES';

const courseStageSchema = z.object({
  course_stageid: z.int(),
  doctype: z.enum(['guide', 'wiki', 'external_training_module']),
  docid: z.int(),
  /** Zero-based position in the course. */
  orderby: z.int(),
  strictness: z.nullable(z.enum(['major', 'minor'])),
  frequency_quantity: z.nullable(z.number()),
  frequency_unit: z.nullable(z.enum(['day', 'week', 'month', 'year'])),
  /** The document's title when the stage was saved (lists); detailed views read it live. */
  title: z.string(),
  /** Set when the stage is assessed by a signoff from members of `assessment_teamid`. */
  stage_assessmentid: z.nullable(z.int()),
  assessment_teamid: z.nullable(z.int()),
});

export type CourseStageRecord = StoredRecord<typeof courseStageSchema>;

/**
 * A Course item as the create put, the change update, the counter ADDs and the reorder leave it.
 * The stored aggregates are optional: courseFromItem reads a missing one as 0 / null.
 */
export const courseItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.literal('COURSE'),
  entity: z.literal('Course'),
  wikiid: z.int().check(z.positive()),
  title: z.string(),
  enabled: z.union([z.literal(0), z.literal(1)]),
  publish_date: z.number(),
  stages: z.array(courseStageSchema),
  author_userid: z.int(),
  /** The site API token that made it (decision 244), beside author_userid 0. */
  service_author: z.optional(serviceAuthorSchema),
  created_date: z.number(),
  /** Null until the course is first changed. */
  modified_date: z.nullable(z.number()),
  search_tokens: z.array(z.string()),
  /** Active assignments (each names one assignee: a user or a team). */
  assignee_count: z.optional(z.int()),
  /** Active (assignment, user) rows, and how many of them are completed / in progress. */
  rows_total: z.optional(z.int()),
  rows_completed: z.optional(z.int()),
  rows_in_progress: z.optional(z.int()),
  /** Where the course sits in the list orders (sorted-refs), and its guard. */
  order_placement: z.optional(
    z.nullable(z.object({ values: z.record(z.string(), z.string()), attributes: z.record(z.string(), z.unknown()) })),
  ),
  order_version: z.optional(z.int()),
});

/** Counters and list placement absent on courses made before them read as 0 / null (courseFromItem). */
export type CourseRecord = FilledRecord<
  typeof courseItemSchema,
  'assignee_count' | 'rows_total' | 'rows_completed' | 'rows_in_progress' | 'order_placement' | 'order_version'
>;

export const stageAssessmentItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.literal('ASSESSMENT'),
  entity: z.literal('StageAssessment'),
  stage_assessmentid: z.int().check(z.positive()),
  wikiid: z.int(),
  course_stageid: z.int(),
  teamid: z.int(),
});

export type AssessmentRecord = StoredRecord<typeof stageAssessmentItemSchema>;

export function courseKey(wikiid: number) {
  return { pk: `WIKI#${wikiid}`, sk: 'COURSE' } as const;
}

export function assessmentKey(stage_assessmentid: number) {
  return { pk: `ASSESSMENT#${stage_assessmentid}`, sk: 'ASSESSMENT' } as const;
}

function courseFromItem(item: Record<string, unknown>): CourseRecord {
  const record = recordFrom(courseItemSchema, item);
  return {
    ...record,
    assignee_count: record.assignee_count ?? 0,
    rows_total: record.rows_total ?? 0,
    rows_completed: record.rows_completed ?? 0,
    rows_in_progress: record.rows_in_progress ?? 0,
    order_placement: record.order_placement ?? null,
    order_version: record.order_version ?? 0,
  };
}

const moduleIds = (stages: CourseStageRecord[]) =>
  new Set(stages.filter((stage) => stage.doctype === 'external_training_module').map((stage) => stage.docid));

function assessmentWrites(wikiid: number, before: CourseStageRecord[], after: CourseStageRecord[]): LabelledWrite[] {
  const kept = new Set(after.map((stage) => stage.stage_assessmentid).filter(Boolean));
  const removed = before.filter((stage) => stage.stage_assessmentid && !kept.has(stage.stage_assessmentid));
  const existing = new Map(before.map((stage) => [stage.stage_assessmentid, stage]));
  const written = after.filter((stage) => {
    if (!stage.stage_assessmentid) return false;
    const old = existing.get(stage.stage_assessmentid);
    return !old || old.assessment_teamid !== stage.assessment_teamid || old.course_stageid !== stage.course_stageid;
  });
  return [
    ...removed.map((stage) => ({
      label: `assessment:${stage.stage_assessmentid}`,
      item: { Delete: { TableName: tableName(), Key: assessmentKey(stage.stage_assessmentid!) } },
    })),
    ...written.map((stage) => {
      const assessment: AssessmentRecord = {
        stage_assessmentid: stage.stage_assessmentid!,
        wikiid,
        course_stageid: stage.course_stageid,
        teamid: stage.assessment_teamid!,
      };
      return {
        label: `assessment:${stage.stage_assessmentid}`,
        item: {
          Put: {
            TableName: tableName(),
            Item: {
              ...assessmentKey(assessment.stage_assessmentid),
              entity: 'StageAssessment',
              ...assessment,
            } satisfies z.input<typeof stageAssessmentItemSchema>,
          },
        },
      };
    }),
  ];
}

/** Module usage items follow the course's module stages (module-usage.ts contract). */
function moduleUsageWrites(
  course: { wikiid: number; title: string },
  before: CourseStageRecord[],
  after: CourseStageRecord[],
): LabelledWrite[] {
  const old = moduleIds(before);
  const now = moduleIds(after);
  return [
    ...[...old].filter((id) => !now.has(id)).map((id) => moduleUsageDelete(id, course.wikiid)),
    ...[...now].map((id) => moduleUsageWrite(id, course)),
  ];
}

/** The course item, its assessments, module usages and title search words (join the wiki page's transaction). */
export function courseCreateWrites(course: CourseRecord): LabelledWrite[] {
  return [
    {
      label: 'course',
      item: {
        Put: {
          TableName: tableName(),
          Item: { ...courseKey(course.wikiid), entity: 'Course', ...course } satisfies z.input<typeof courseItemSchema>,
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    },
    ...assessmentWrites(course.wikiid, [], course.stages),
    ...moduleUsageWrites(course, [], course.stages),
    ...searchTokenWrites('COURSE', course.wikiid, [], course.search_tokens),
  ];
}

/** A content change: the stored aggregates are left alone (rows change them concurrently). */
export function courseUpdateWrites(before: CourseRecord, after: CourseRecord): LabelledWrite[] {
  return [
    {
      label: 'course',
      item: {
        Update: {
          TableName: tableName(),
          Key: courseKey(after.wikiid),
          UpdateExpression:
            'SET title = :title, enabled = :enabled, publish_date = :publish, stages = :stages, ' +
            'modified_date = :modified, search_tokens = :tokens',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: {
            ':title': after.title,
            ':enabled': after.enabled,
            ':publish': after.publish_date,
            ':stages': after.stages,
            ':modified': after.modified_date,
            ':tokens': after.search_tokens,
          },
        },
      },
    },
    ...assessmentWrites(after.wikiid, before.stages, after.stages),
    ...moduleUsageWrites(after, before.stages, after.stages),
    ...searchTokenWrites('COURSE', after.wikiid, before.search_tokens, after.search_tokens),
  ];
}

export function courseDeleteWrites(course: CourseRecord): LabelledWrite[] {
  return [
    { label: 'course', item: { Delete: { TableName: tableName(), Key: courseKey(course.wikiid) } } },
    ...assessmentWrites(course.wikiid, course.stages, []),
    ...moduleUsageWrites(course, course.stages, []),
    ...searchTokenWrites('COURSE', course.wikiid, course.search_tokens, []),
    ...sortedRefWrites(COURSES_COLLECTION, padId(course.wikiid), course.order_placement, null),
  ];
}

export interface CourseCounterDelta {
  assignee_count?: number;
  rows_total?: number;
  rows_completed?: number;
  rows_in_progress?: number;
}

/** Adds to the course's stored aggregates (in the transaction of the change that moves them). */
export function courseCounterWrite(wikiid: number, delta: CourseCounterDelta): LabelledWrite | undefined {
  const entries = Object.entries(delta).filter(([, value]) => value);
  if (entries.length === 0) return undefined;
  return {
    label: `course-counters:${wikiid}`,
    item: {
      Update: {
        TableName: tableName(),
        Key: courseKey(wikiid),
        UpdateExpression: `ADD ${entries.map(([name]) => `${name} :${name}`).join(', ')}`,
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: Object.fromEntries(entries.map(([name, value]) => [`:${name}`, value])),
      },
    },
  };
}

export async function getCourse(
  wikiid: number,
  options: { consistent?: boolean } = {},
): Promise<CourseRecord | undefined> {
  const item = await getItem(courseKey(wikiid), { consistent: options.consistent });
  return item ? courseFromItem(item) : undefined;
}

export async function getCourses(wikiids: number[]): Promise<CourseRecord[]> {
  return (await batchGetInOrder(wikiids.map(courseKey))).map(courseFromItem);
}

/** The wiki page and the course item of each id (pages first, then courses, in id order). */
export async function getCoursePages(
  wikiids: number[],
): Promise<Array<{ page: Record<string, unknown>; course: CourseRecord }>> {
  const items = await batchGetInOrder(wikiids.flatMap((wikiid) => [wikiKey(wikiid), courseKey(wikiid)]));
  const byKey = new Map(items.map((item) => [`${item.pk}|${item.sk}`, item]));
  return wikiids.flatMap((wikiid) => {
    const page = byKey.get(`WIKI#${wikiid}|WIKI`);
    const course = byKey.get(`WIKI#${wikiid}|COURSE`);
    return page && course ? [{ page, course: courseFromItem(course) }] : [];
  });
}

export async function getAssessment(stage_assessmentid: number): Promise<AssessmentRecord | undefined> {
  const item = await getItem(assessmentKey(stage_assessmentid));
  return item ? recordFrom(stageAssessmentItemSchema, item) : undefined;
}

/** Where a course belongs in each list order, from its current fields and aggregates. */
export function coursePlacement(course: CourseRecord): SortedPlacement {
  const id = padId(course.wikiid);
  const percent = Math.round(completionPercent(course) * 100);
  return {
    values: {
      title: course.title.toLowerCase(),
      status: String(course.enabled),
      stages_count: padId(course.stages.length),
      modified_date: padId(course.modified_date ?? course.created_date),
      assignee_count: padId(course.assignee_count),
      completion_percentage: course.rows_total === 0 ? NULL_LAST : padId(percent),
    },
    attributes: { wikiid: course.wikiid, enabled: course.enabled, ref: id },
  };
}

/**
 * Moves the course's list references to where its current values put them. Guarded by
 * `order_version`, so of two concurrent reindexers one wins and the other reads again; a
 * course read after the last change of its values is always placed right.
 */
export async function reindexCourse(wikiid: number): Promise<void> {
  await retryOnLostRace(
    async () => {
      const course = await getCourse(wikiid, { consistent: true });
      if (!course) return;
      const placement = coursePlacement(course);
      if (canonicalJson(placement) === canonicalJson(course.order_placement)) return;
      await transactWrite([
        ...sortedRefWrites(COURSES_COLLECTION, padId(wikiid), course.order_placement, placement),
        {
          label: 'course-order',
          item: {
            Update: {
              TableName: tableName(),
              Key: courseKey(wikiid),
              UpdateExpression: 'SET order_placement = :placement, order_version = :next',
              ConditionExpression:
                course.order_version === 0
                  ? 'attribute_exists(pk) AND (attribute_not_exists(order_version) OR order_version = :version)'
                  : 'order_version = :version',
              ExpressionAttributeValues: {
                ':placement': placement,
                ':next': course.order_version + 1,
                ':version': course.order_version,
              },
            },
          },
        },
      ]);
    },
    { attempts: 8, message: 'The course kept changing while its list places moved; try again' },
  );
}
