/**
 * The team side of course assignments: pk TEAM#<teamid> / sk ASSIGNMENT#<padded id>, one item
 * per assignment of a course to the team, written by the course-assignment use cases in the
 * same transaction as the assignment itself. GET /teams/{teamid}/course_assignments reads it.
 */
import { tableName } from '../client.ts';
import { padId } from '../keys.ts';
import { queryPage } from '../paging.ts';
import type { LabelledWrite } from '../transactions.ts';
import { recordsOf, type StoredRecord } from '../stored-item.ts';
import * as z from 'zod/mini';

export const teamAssignmentRefItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.string(),
  entity: z.literal('TeamAssignmentRef'),
  course_assignmentid: z.int().check(z.positive()),
  teamid: z.int().check(z.positive()),
  wikiid: z.int(),
  due_within: z.nullable(z.number()),
  created_date: z.number(),
  cancelled: z.union([z.literal(0), z.literal(1)]),
});

export type TeamAssignmentRef = StoredRecord<typeof teamAssignmentRefItemSchema>;

export function teamAssignmentRefWrite(ref: TeamAssignmentRef): LabelledWrite {
  return {
    label: 'team-assignment',
    item: {
      Put: {
        TableName: tableName(),
        Item: {
          pk: `TEAM#${ref.teamid}`,
          sk: `ASSIGNMENT#${padId(ref.course_assignmentid)}`,
          entity: 'TeamAssignmentRef',
          ...ref,
        } satisfies z.input<typeof teamAssignmentRefItemSchema>,
      },
    },
  };
}

export async function listTeamAssignmentRefs(
  teamid: number,
  page: { limit: number; offset: number },
): Promise<TeamAssignmentRef[]> {
  const items = await queryPage({ partition: `TEAM#${teamid}`, sortPrefix: 'ASSIGNMENT#' }, page);
  return items.map(recordsOf(teamAssignmentRefItemSchema));
}
