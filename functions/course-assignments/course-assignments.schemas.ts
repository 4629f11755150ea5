/**
 * Request schemas of the course assignment routes, shared by the routes file (validation,
 * OpenAPI) and the services (their input types are z.output of these).
 */
import * as z from 'zod/mini';
import { MAX_TIMESTAMP, positiveTimestamp } from '../../shared/http/schemas.ts';
import { direction, enumQuery, pageNumber, pageSize, pageWithinMaxOffset } from '../../shared/http/page-query.ts';
import { USER_ORDERS } from '../../shared/training/rows.ts';

const id = z.int().check(z.positive());

const ROW_STATUSES = ['not_started', 'in_progress', 'completed'] as const;
/** `status=not_started,completed` (wire notes §3.19). */
const statusFilter = z.optional(
  z.pipe(
    z.string(),
    z.pipe(
      z.transform((value: string) =>
        value
          .split(',')
          .map((part) => part.trim().toLowerCase())
          .filter(Boolean),
      ),
      z.array(z.enum(ROW_STATUSES)),
    ),
  ),
);
const search = z.optional(z.string().check(z.maxLength(100)));

export const assignBody = z.object({
  wikiid: id,
  userid: z.optional(id),
  teamid: z.optional(id),
  assignee_userid: z.optional(id),
  assignee_teamid: z.optional(id),
  due_within: z.optional(z.nullable(z.int().check(z.positive(), z.maximum(MAX_TIMESTAMP)))),
});

export const completeBody = z.object({
  userid: z.optional(id),
  work_log_entryid: z.optional(z.nullable(id)),
  revisionid: z.optional(z.nullable(id)),
});

export const stageCompletionsBody = z.object({
  completions: z
    .array(
      z.object({
        userid: id,
        doctype: z.enum(['guide', 'wiki', 'external_training_module']),
        docid: id,
        init_date: z.optional(positiveTimestamp),
        end_date: z.optional(positiveTimestamp),
        work_log_entryid: z.optional(z.nullable(id)),
      }),
    )
    .check(z.minLength(1), z.maxLength(25)),
});

export const userAssigneesQuery = z
  .object({
    page: pageNumber,
    limit: pageSize(10),
    direction,
    orderby: enumQuery(USER_ORDERS, 'username'),
    status: statusFilter,
    search,
  })
  .check(pageWithinMaxOffset('limit'));
export const teamAssigneesQuery = z
  .object({
    page: pageNumber,
    limit: pageSize(10),
    direction,
    orderby: enumQuery(['assignment_date'], 'assignment_date'),
    search,
  })
  .check(pageWithinMaxOffset('limit'));
export const teamMembersQuery = z
  .object({ page: pageNumber, limit: pageSize(10), status: statusFilter, search })
  .check(pageWithinMaxOffset('limit'));

export type AssignInput = z.output<typeof assignBody>;
export type CompleteBody = z.output<typeof completeBody>;
export type StageCompletionInput = z.output<typeof stageCompletionsBody>['completions'][number];
export type UserAssigneesQuery = z.output<typeof userAssigneesQuery>;
export type TeamAssigneesQuery = z.output<typeof teamAssigneesQuery>;
export type TeamMembersQuery = z.output<typeof teamMembersQuery>;
