/**
 * Course assignment: pk ASSIGNMENT#<course_assignmentid> / sk ASSIGNMENT. A course is assigned
 * to one user or one team; while active it is in its course's assignments through gsi1
 * (COURSE#<wikiid>#ASSIGNMENTS, sk USER#|TEAM#<padded id>), and the pair (assignee, course) is
 * claimed by a uniqueness item, so a course is assigned to an assignee at most once at a time.
 * The assignment keeps the stored aggregates of its rows (training-row.ts). A team assignment
 * also has the team's side index item (course-assignment-index.ts), written in the same
 * transaction, as are the course's assignee count and (on cancel) the released claim.
 */
import { tableName } from '../client.ts';
import { getItem } from '../items.ts';
import { padId } from '../keys.ts';
import { parseStored, recordFrom, type StoredRecord } from '../stored-item.ts';
import { INDEXES } from '../table.ts';
import { batchGetInOrder } from '../batch.ts';
import { queryPage, type PageQuery } from '../paging.ts';
import { claimUnique, releaseUnique, uniqueKey } from '../uniqueness.ts';
import type { LabelledWrite } from '../transactions.ts';
import { teamAssignmentRefWrite } from './course-assignment-index.ts';
import { courseCounterWrite } from './course.ts';
import * as z from 'zod/mini';
import type { ServiceAuthor } from '../../domain/caller.ts';
import { serviceAuthorSchema } from './api-token.ts';

/** A CourseAssignment as assignmentCreateWrites puts it and the cancel / counter updates leave it. */
export const courseAssignmentItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.literal('ASSIGNMENT'),
  entity: z.literal('CourseAssignment'),
  /** The course's list; a cancel REMOVEs it. */
  gsi1pk: z.optional(z.string()),
  gsi1sk: z.optional(z.string()),
  course_assignmentid: z.int().check(z.positive()),
  wikiid: z.int().check(z.positive()),
  assignee_userid: z.nullable(z.int()),
  assignee_teamid: z.nullable(z.int()),
  /** The assignee's name when assigned (a user's username or a team's name). */
  assignee_name: z.string(),
  assignee_search: z.string(),
  due_within: z.nullable(z.number()),
  created_date: z.number(),
  /** null for a site API token, named by created_by_token (decision 260); 0: a token's, before it. */
  created_by: z.nullable(z.int()),
  created_by_token: z.optional(serviceAuthorSchema),
  cancelled: z.union([z.literal(0), z.literal(1)]),
  cancelled_at: z.nullable(z.number()),
  /** null when not cancelled or a site API token cancelled (then cancelled_by_token); 0: a token's, before. */
  cancelled_by: z.nullable(z.int()),
  cancelled_by_token: z.optional(serviceAuthorSchema),
  cancellation_reason: z.nullable(z.string()),
  /** Stored aggregates of the assignment's active rows. */
  rows_total: z.int(),
  rows_completed: z.int(),
  rows_in_progress: z.int(),
});

/** As read (assignmentFromItem): without assignee_search, the lower-case copy list filters match. */
export type AssignmentRecord = Omit<StoredRecord<typeof courseAssignmentItemSchema>, 'assignee_search'>;

export function assignmentKey(course_assignmentid: number) {
  return { pk: `ASSIGNMENT#${course_assignmentid}`, sk: 'ASSIGNMENT' } as const;
}

export function assigneeClaim(
  assignment: Pick<AssignmentRecord, 'assignee_userid' | 'assignee_teamid' | 'wikiid'>,
): string {
  return assignment.assignee_teamid !== null
    ? `TEAM#${assignment.assignee_teamid}#COURSE#${assignment.wikiid}`
    : `USER#${assignment.assignee_userid}#COURSE#${assignment.wikiid}`;
}

function kindOf(assignment: Pick<AssignmentRecord, 'assignee_teamid'>): 'TEAM' | 'USER' {
  return assignment.assignee_teamid !== null ? 'TEAM' : 'USER';
}

export function courseAssignmentsCollection(wikiid: number, kind?: 'TEAM' | 'USER'): PageQuery {
  return { index: INDEXES.gsi1, partition: `COURSE#${wikiid}#ASSIGNMENTS`, sortPrefix: kind ? `${kind}#` : undefined };
}

export function assignmentFromItem(item: Record<string, unknown>): AssignmentRecord {
  const { assignee_search, ...record } = recordFrom(courseAssignmentItemSchema, item);
  return record;
}

function teamRef(assignment: AssignmentRecord, cancelled: 0 | 1): LabelledWrite[] {
  if (assignment.assignee_teamid === null) return [];
  return [
    teamAssignmentRefWrite({
      course_assignmentid: assignment.course_assignmentid,
      teamid: assignment.assignee_teamid,
      wikiid: assignment.wikiid,
      due_within: assignment.due_within,
      created_date: assignment.created_date,
      cancelled,
    }),
  ];
}

/**
 * A new assignment: the record, the (assignee, course) claim (label COURSE_ASSIGNEE when the
 * course is already assigned to them), the team's side index and the course's assignee count
 * (label course-counters:<wikiid> when the course is gone).
 */
export function assignmentCreateWrites(assignment: AssignmentRecord): LabelledWrite[] {
  return [
    {
      label: 'assignment',
      item: {
        Put: {
          TableName: tableName(),
          Item: {
            ...assignmentKey(assignment.course_assignmentid),
            entity: 'CourseAssignment',
            [INDEXES.gsi1.pk]: `COURSE#${assignment.wikiid}#ASSIGNMENTS`,
            [INDEXES.gsi1.sk]: `${kindOf(assignment)}#${padId(assignment.course_assignmentid)}`,
            ...assignment,
            // Lower-case name for the assignee lists' search filter.
            assignee_search: assignment.assignee_name.toLowerCase(),
          } satisfies z.input<typeof courseAssignmentItemSchema>,
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    },
    claimUnique('COURSE_ASSIGNEE', assigneeClaim(assignment), { course_assignmentid: assignment.course_assignmentid }),
    ...teamRef(assignment, 0),
    courseCounterWrite(assignment.wikiid, { assignee_count: 1 })!,
  ];
}

/**
 * Cancels an active assignment (label 'assignment' fails when it is cancelled already): it
 * leaves its course's list, frees the claim, and the team index says cancelled.
 */
export function assignmentCancelWrites(
  assignment: AssignmentRecord,
  cancel: { by: number | null; by_token?: ServiceAuthor | undefined; at: number; reason: string | null },
): LabelledWrite[] {
  return [
    {
      label: 'assignment',
      item: {
        Update: {
          TableName: tableName(),
          Key: assignmentKey(assignment.course_assignmentid),
          UpdateExpression:
            'SET cancelled = :one, cancelled_at = :at, cancelled_by = :by, cancellation_reason = :reason' +
            (cancel.by_token ? ', cancelled_by_token = :token' : '') +
            ' REMOVE #g1pk, #g1sk',
          ConditionExpression: 'attribute_exists(pk) AND cancelled = :zero',
          ExpressionAttributeNames: { '#g1pk': INDEXES.gsi1.pk, '#g1sk': INDEXES.gsi1.sk },
          ExpressionAttributeValues: {
            ':one': 1,
            ':zero': 0,
            ':at': cancel.at,
            ':by': cancel.by,
            ':reason': cancel.reason,
            ...(cancel.by_token ? { ':token': { tokenid: cancel.by_token.tokenid, name: cancel.by_token.name } } : {}),
          },
        },
      },
    },
    releaseUnique('COURSE_ASSIGNEE', assigneeClaim(assignment)),
    ...teamRef(assignment, 1),
    ...[courseCounterWrite(assignment.wikiid, { assignee_count: -1 })].filter(
      (write): write is LabelledWrite => write !== undefined,
    ),
  ];
}

export interface RowCounterDelta {
  rows_total?: number;
  rows_completed?: number;
  rows_in_progress?: number;
}

export function assignmentCounterWrite(course_assignmentid: number, delta: RowCounterDelta): LabelledWrite | undefined {
  const entries = Object.entries(delta).filter(([, value]) => value);
  if (entries.length === 0) return undefined;
  return {
    label: `assignment-counters:${course_assignmentid}`,
    item: {
      Update: {
        TableName: tableName(),
        Key: assignmentKey(course_assignmentid),
        UpdateExpression: `ADD ${entries.map(([name]) => `${name} :${name}`).join(', ')}`,
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: Object.fromEntries(entries.map(([name, value]) => [`:${name}`, value])),
      },
    },
  };
}

export async function getAssignment(
  course_assignmentid: number,
  options: { consistent?: boolean } = {},
): Promise<AssignmentRecord | undefined> {
  const item = await getItem(assignmentKey(course_assignmentid), { consistent: options.consistent });
  return item ? assignmentFromItem(item) : undefined;
}

export async function getAssignments(ids: number[]): Promise<AssignmentRecord[]> {
  return (await batchGetInOrder(ids.map(assignmentKey))).map(assignmentFromItem);
}

/** What the (assignee, course) claim holds (the Unique item's other attributes are not read here). */
const assigneeClaimSchema = z.object({
  pk: z.string(),
  sk: z.string(),
  course_assignmentid: z.int().check(z.positive()),
});

/** The active assignment of the course to this user or team, if any (from the claim). */
export async function activeAssignmentIdFor(
  assignee: { userid?: number | null; teamid?: number | null },
  wikiid: number,
): Promise<number | undefined> {
  const claim = assigneeClaim({
    assignee_userid: assignee.userid ?? null,
    assignee_teamid: assignee.teamid ?? null,
    wikiid,
  });
  const item = await getItem(uniqueKey('COURSE_ASSIGNEE', claim));
  return item ? parseStored(assigneeClaimSchema, item).course_assignmentid : undefined;
}

/** Active assignments of a course (team or user ones), oldest first unless descending. */
export async function listCourseAssignments(
  wikiid: number,
  kind: 'TEAM' | 'USER' | undefined,
  page: { limit: number; offset: number },
  options: { descending?: boolean; filter?: PageQuery['filter'] } = {},
): Promise<AssignmentRecord[]> {
  const items = await queryPage(
    { ...courseAssignmentsCollection(wikiid, kind), descending: options.descending, filter: options.filter },
    page,
  );
  return items.map(assignmentFromItem);
}
