/**
 * Training rows: the stored progress of one user on one assignment, pk ASSIGNMENT#<id> /
 * sk ROW#<padded userid> — one row for a user assignment, one per member for a team
 * assignment. A row keeps each stage's {status, reason} as last computed by the stage rule,
 * the counts and dates lists sort by, and `version` (every change is conditional on it, so
 * the aggregates moved with it are exact). While the assignment is active the row is in the
 * trainee's rows (gsi1 TRAINEE#<userid>) and, when a recurrence will expire one of its
 * stages, in the due queue (gsi2 TRAINING#DUE, sorted by that time). Rows of user
 * assignments are also placed in the course's user-assignee orders (sorted-refs).
 *
 * Stored aggregates moved in the same transaction as a row: the assignment's and the
 * course's row counts by status, the trainee's summary (pk USER#<id> / sk TRAINSUMMARY, listed
 * in gsi1 TRAINEES) and, for team rows, the team's summary (pk TEAM#<id> / sk TRAINSUMMARY,
 * gsi1 TRAINTEAMS). Coverage (pk USER#<id> / sk COVERAGE#COURSE#<padded wikiid>) counts the
 * active rows of a user on a course; the enrollment item of course-enrollment.ts exists exactly
 * while that count is positive.
 */
import { tableName } from '../client.ts';
import { getItem } from '../items.ts';
import { padId } from '../keys.ts';
import { INDEXES } from '../table.ts';
import { batchGetInOrder } from '../batch.ts';
import { queryAll, queryChunks, queryPage, type PageQuery } from '../paging.ts';
import type { LabelledWrite } from '../transactions.ts';
import { STAGE_REASONS, STAGE_STATUSES } from '../../domain/stage-status.ts';
import { enrollmentDelete, enrollmentWrite } from './course-enrollment.ts';
import { parseStored, recordFrom, type StoredRecord } from '../stored-item.ts';
import * as z from 'zod/mini';

export type RowStatus = 'not_started' | 'in_progress' | 'completed';

export interface RowCounts {
  rows_total: number;
  rows_completed: number;
  rows_in_progress: number;
}

const stageSnapshotSchema = z.object({
  course_stageid: z.int(),
  status: z.enum(STAGE_STATUSES),
  reason: z.enum(STAGE_REASONS),
  end_date: z.nullable(z.number()),
});
export type StageSnapshot = z.output<typeof stageSnapshotSchema>;

/** A TrainingRow, put whole on every change (index keys only while active). */
export const trainingRowItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.string(),
  entity: z.literal('TrainingRow'),
  gsi1pk: z.optional(z.string()),
  gsi1sk: z.optional(z.string()),
  gsi2pk: z.optional(z.string()),
  gsi2sk: z.optional(z.string()),
  course_assignmentid: z.int().check(z.positive()),
  wikiid: z.int().check(z.positive()),
  userid: z.int().check(z.positive()),
  /** The assigned team, for a member's row of a team assignment. */
  teamid: z.nullable(z.int()),
  username: z.string(),
  /** Lower-case username for search filters. */
  username_search: z.string(),
  user_avatar: z.nullable(z.string()),
  /** When the assignment came to cover this user (a later team member: when they joined). */
  assignment_date: z.number(),
  due_date: z.nullable(z.number()),
  stages: z.array(stageSnapshotSchema),
  total_stages: z.int(),
  completed_stages: z.int(),
  status: z.enum(['not_started', 'in_progress', 'completed']),
  /** When the last stage was completed, while all are. */
  course_completion_date: z.nullable(z.number()),
  /** The earliest time a recurrence expires one of the completed stages. */
  recurrent_date: z.nullable(z.number()),
  /** 0 once the assignment is cancelled (the row stays for the record). */
  active: z.union([z.literal(0), z.literal(1)]),
  /** Where a user-assignment row sits in the course's user-assignee orders. */
  placement: z.nullable(
    z.object({ values: z.record(z.string(), z.string()), attributes: z.record(z.string(), z.unknown()) }),
  ),
  version: z.int(),
});

export type TrainingRowRecord = StoredRecord<typeof trainingRowItemSchema>;

/** A user's or team's training summary (no `entity`: named by its key, decision 116). */
export const trainingSummaryItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.literal('TRAINSUMMARY'),
  gsi1pk: z.enum(['TRAINEES', 'TRAINTEAMS']),
  gsi1sk: z.string(),
  userid: z.optional(z.int().check(z.positive())),
  teamid: z.optional(z.int().check(z.positive())),
  rows_total: z.int(),
  rows_completed: z.int(),
  rows_in_progress: z.int(),
});

export const courseCoverageItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.string(),
  entity: z.literal('CourseCoverage'),
  userid: z.int().check(z.positive()),
  wikiid: z.int().check(z.positive()),
  count: z.int(),
});

export function rowKey(course_assignmentid: number, userid: number) {
  return { pk: `ASSIGNMENT#${course_assignmentid}`, sk: `ROW#${padId(userid)}` };
}

export const DUE_PARTITION = 'TRAINING#DUE';

function rowIndexes(row: TrainingRowRecord): Record<string, string> {
  if (!row.active) return {};
  return {
    [INDEXES.gsi1.pk]: `TRAINEE#${row.userid}`,
    [INDEXES.gsi1.sk]: `${padId(row.wikiid)}#${padId(row.course_assignmentid)}`,
    ...(row.recurrent_date !== null
      ? {
          [INDEXES.gsi2.pk]: DUE_PARTITION,
          [INDEXES.gsi2.sk]: `${padId(row.recurrent_date)}#${padId(row.course_assignmentid)}#${padId(row.userid)}`,
        }
      : {}),
  };
}

export function rowFromItem(item: Record<string, unknown>): TrainingRowRecord {
  return recordFrom(trainingRowItemSchema, item);
}

/** How one row counts in the aggregates (zero when inactive). */
export function rowCounts(row: TrainingRowRecord | null): RowCounts {
  if (!row?.active) return { rows_total: 0, rows_completed: 0, rows_in_progress: 0 };
  return {
    rows_total: 1,
    rows_completed: row.status === 'completed' ? 1 : 0,
    rows_in_progress: row.status === 'in_progress' ? 1 : 0,
  };
}

export function countsDelta(before: RowCounts, after: RowCounts): RowCounts {
  return {
    rows_total: after.rows_total - before.rows_total,
    rows_completed: after.rows_completed - before.rows_completed,
    rows_in_progress: after.rows_in_progress - before.rows_in_progress,
  };
}

export const isZeroDelta = (delta: RowCounts) => !delta.rows_total && !delta.rows_completed && !delta.rows_in_progress;

/** Writes the row as it is now, on condition that the stored one is `expectedVersion` (null: none). */
export function rowPutWrite(row: TrainingRowRecord, expectedVersion: number | null): LabelledWrite {
  return {
    label: `row:${row.course_assignmentid}:${row.userid}`,
    item: {
      Put: {
        TableName: tableName(),
        Item: {
          ...rowKey(row.course_assignmentid, row.userid),
          entity: 'TrainingRow',
          ...rowIndexes(row),
          ...row,
        } satisfies z.input<typeof trainingRowItemSchema>,
        ConditionExpression: expectedVersion === null ? 'attribute_not_exists(pk)' : 'version = :version',
        ExpressionAttributeValues: expectedVersion === null ? undefined : { ':version': expectedVersion },
      },
    },
  };
}

export function rowDeleteWrite(row: TrainingRowRecord): LabelledWrite {
  return {
    label: `row:${row.course_assignmentid}:${row.userid}`,
    item: {
      Delete: {
        TableName: tableName(),
        Key: rowKey(row.course_assignmentid, row.userid),
        ConditionExpression: 'version = :version',
        ExpressionAttributeValues: { ':version': row.version },
      },
    },
  };
}

function summaryWrite(
  key: { pk: string; sk: string },
  index: { partition: string; sort: string },
  id: { name: string; value: number },
  delta: RowCounts,
  label: string,
): LabelledWrite | undefined {
  if (isZeroDelta(delta)) return undefined;
  return {
    label,
    item: {
      Update: {
        TableName: tableName(),
        Key: key,
        UpdateExpression:
          'ADD rows_total :total, rows_completed :completed, rows_in_progress :progress SET #g1pk = :g1pk, ' +
          '#g1sk = :g1sk, #id = :id',
        ExpressionAttributeNames: { '#g1pk': INDEXES.gsi1.pk, '#g1sk': INDEXES.gsi1.sk, '#id': id.name },
        ExpressionAttributeValues: {
          ':total': delta.rows_total,
          ':completed': delta.rows_completed,
          ':progress': delta.rows_in_progress,
          ':g1pk': index.partition,
          ':g1sk': index.sort,
          ':id': id.value,
        },
      },
    },
  };
}

/**
 * A summary item as its counter updates leave it, written whole (the explicit-id path: a
 * migration carries the source's stored counts).
 */
export function summaryPutWrite(owner: { userid: number } | { teamid: number }, counts: RowCounts): LabelledWrite {
  const isUser = 'userid' in owner;
  const id = isUser ? owner.userid : owner.teamid;
  return {
    label: `${isUser ? 'user' : 'team'}-summary:${id}`,
    item: {
      Put: {
        TableName: tableName(),
        Item: {
          pk: `${isUser ? 'USER' : 'TEAM'}#${id}`,
          sk: 'TRAINSUMMARY',
          [INDEXES.gsi1.pk]: isUser ? 'TRAINEES' : 'TRAINTEAMS',
          [INDEXES.gsi1.sk]: padId(id),
          [isUser ? 'userid' : 'teamid']: id,
          rows_total: counts.rows_total,
          rows_completed: counts.rows_completed,
          rows_in_progress: counts.rows_in_progress,
        } satisfies z.input<typeof trainingSummaryItemSchema>,
      },
    },
  };
}

/** The trainee's summary counters after one of their rows' counts moved. */
export function userSummaryWrite(userid: number, delta: RowCounts): LabelledWrite | undefined {
  return summaryWrite(
    { pk: `USER#${userid}`, sk: 'TRAINSUMMARY' },
    { partition: 'TRAINEES', sort: padId(userid) },
    { name: 'userid', value: userid },
    delta,
    `user-summary:${userid}`,
  );
}

/** A team's summary counters after its members' rows' counts moved. */
export function teamSummaryWrite(teamid: number, delta: RowCounts): LabelledWrite | undefined {
  return summaryWrite(
    { pk: `TEAM#${teamid}`, sk: 'TRAINSUMMARY' },
    { partition: 'TRAINTEAMS', sort: padId(teamid) },
    { name: 'teamid', value: teamid },
    delta,
    `team-summary:${teamid}`,
  );
}

export function coverageKey(userid: number, wikiid: number) {
  return { pk: `USER#${userid}`, sk: `COVERAGE#COURSE#${padId(wikiid)}` };
}

export async function getCoverageCount(userid: number, wikiid: number): Promise<number> {
  const item = await getItem(coverageKey(userid, wikiid), { consistent: true });
  return Number(item?.count ?? 0);
}

/**
 * A row became active: coverage +1 on condition it was `readCount`, and the enrollment item
 * (idempotent put). Label coverage:<userid>:<wikiid> fails when the count moved meanwhile.
 */
export function coverageGainWrites(userid: number, wikiid: number, readCount: number): LabelledWrite[] {
  return [
    {
      label: `coverage:${userid}:${wikiid}`,
      item: {
        Put: {
          TableName: tableName(),
          Item: {
            ...coverageKey(userid, wikiid),
            entity: 'CourseCoverage',
            userid,
            wikiid,
            count: readCount + 1,
          } satisfies z.input<typeof courseCoverageItemSchema>,
          ConditionExpression: readCount === 0 ? 'attribute_not_exists(pk) OR #count = :zero' : '#count = :count',
          ExpressionAttributeNames: { '#count': 'count' },
          ExpressionAttributeValues: readCount === 0 ? { ':zero': 0 } : { ':count': readCount },
        },
      },
    },
    enrollmentWrite(userid, wikiid),
  ];
}

/** A row stopped being active: coverage −1 (from `readCount`), and the enrollment goes with the last one. */
export function coverageLossWrites(userid: number, wikiid: number, readCount: number): LabelledWrite[] {
  const guard = {
    ConditionExpression: '#count = :count',
    ExpressionAttributeNames: { '#count': 'count' },
    ExpressionAttributeValues: { ':count': readCount },
  };
  if (readCount <= 1) {
    return [
      {
        label: `coverage:${userid}:${wikiid}`,
        item: {
          Delete: { TableName: tableName(), Key: coverageKey(userid, wikiid), ...(readCount === 1 ? guard : {}) },
        },
      },
      enrollmentDelete(userid, wikiid),
    ];
  }
  return [
    {
      label: `coverage:${userid}:${wikiid}`,
      item: {
        Update: {
          TableName: tableName(),
          Key: coverageKey(userid, wikiid),
          UpdateExpression: 'SET #count = :next',
          ...guard,
          ExpressionAttributeValues: { ':count': readCount, ':next': readCount - 1 },
        },
      },
    },
  ];
}

export async function getRow(course_assignmentid: number, userid: number): Promise<TrainingRowRecord | undefined> {
  const item = await getItem(rowKey(course_assignmentid, userid), { consistent: true });
  return item ? rowFromItem(item) : undefined;
}

export async function getRows(
  keys: Array<{ course_assignmentid: number; userid: number }>,
): Promise<TrainingRowRecord[]> {
  return (await batchGetInOrder(keys.map((key) => rowKey(key.course_assignmentid, key.userid)))).map(rowFromItem);
}

export function assignmentRowsCollection(course_assignmentid: number): PageQuery {
  return { partition: `ASSIGNMENT#${course_assignmentid}`, sortPrefix: 'ROW#' };
}

/** One page of an assignment's rows by userid, optionally filtered (status, search). */
export async function listAssignmentRows(
  course_assignmentid: number,
  page: { limit: number; offset: number },
  filter?: PageQuery['filter'],
): Promise<TrainingRowRecord[]> {
  return (await queryPage({ ...assignmentRowsCollection(course_assignmentid), filter }, page)).map(rowFromItem);
}

/** Every row of an assignment, 100 at a time (cancel, course changes, the full record). */
export async function* assignmentRowChunks(course_assignmentid: number): AsyncGenerator<TrainingRowRecord[]> {
  for await (const items of queryChunks(assignmentRowsCollection(course_assignmentid), 100))
    yield items.map(rowFromItem);
}

/** The trainee's active rows (bounded by how many courses they are assigned), by course. */
export async function listTraineeRows(userid: number, wikiid?: number): Promise<TrainingRowRecord[]> {
  const items = await queryAll({
    index: INDEXES.gsi1,
    partition: `TRAINEE#${userid}`,
    sortPrefix: wikiid === undefined ? undefined : `${padId(wikiid)}#`,
  });
  return items.map(rowFromItem);
}

/** Rows whose recurrence deadline has passed by `now`, soonest first. */
export async function listDueRows(
  now: number,
  limit: number,
): Promise<Array<{ course_assignmentid: number; userid: number }>> {
  const items = await queryPage(
    { index: INDEXES.gsi2, partition: DUE_PARTITION, sortBetween: { from: '0', to: `${padId(now)}#~` } },
    { limit, offset: 0 },
  );
  return items.map((item) => {
    const row = parseStored(trainingRowItemSchema, item);
    return { course_assignmentid: row.course_assignmentid, userid: row.userid };
  });
}

/** A person's or a team's summary (userid or teamid) and its RowCounts. */
export type SummaryRecord = StoredRecord<typeof trainingSummaryItemSchema>;

function summaryFromItem(item: Record<string, unknown>): SummaryRecord {
  const record = recordFrom(trainingSummaryItemSchema, item);
  return {
    ...record,
    rows_total: Number(record.rows_total ?? 0),
    rows_completed: Number(record.rows_completed ?? 0),
    rows_in_progress: Number(record.rows_in_progress ?? 0),
  };
}

export async function getSummary(owner: { userid: number } | { teamid: number }): Promise<SummaryRecord | undefined> {
  const key =
    'userid' in owner
      ? { pk: `USER#${owner.userid}`, sk: 'TRAINSUMMARY' }
      : { pk: `TEAM#${owner.teamid}`, sk: 'TRAINSUMMARY' };
  const item = await getItem(key);
  return item ? summaryFromItem(item) : undefined;
}

/** Trainees (TRAINEES) or teams (TRAINTEAMS) with training summaries, by id. */
export async function listSummaries(
  kind: 'users' | 'teams',
  page: { limit: number; offset: number },
): Promise<SummaryRecord[]> {
  const items = await queryPage({ index: INDEXES.gsi1, partition: kind === 'users' ? 'TRAINEES' : 'TRAINTEAMS' }, page);
  return items.map(summaryFromItem);
}
