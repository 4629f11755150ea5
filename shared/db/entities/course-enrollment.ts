/**
 * Course enrollment (who is assigned to a course): pk USER#<userid> / sk ENROLLED#COURSE#<padded wikiid>.
 *
 * CONTRACT with the courses code: when an assignment (to the user, or to a team the user is in)
 * comes to cover a user, write `enrollmentWrite(userid, wikiid)` in the same transaction as the
 * assignment; `enrollmentDelete` when no assignment covers the user any more. Readers (the
 * module player) only ask `isUserAssignedToCourse` / `isUserAssignedToAnyCourse`.
 */
import { batchGetInOrder } from '../batch.ts';
import { tableName } from '../client.ts';
import { itemExists } from '../items.ts';
import { padId } from '../keys.ts';
import type { LabelledWrite } from '../transactions.ts';
import * as z from 'zod/mini';

export const courseEnrollmentItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.string(),
  entity: z.literal('CourseEnrollment'),
  userid: z.int().check(z.positive()),
  wikiid: z.int().check(z.positive()),
});

export function enrollmentKey(userid: number, wikiid: number) {
  return { pk: `USER#${userid}`, sk: `ENROLLED#COURSE#${padId(wikiid)}` };
}

export function enrollmentWrite(userid: number, wikiid: number): LabelledWrite {
  return {
    label: `enrollment:${userid}:${wikiid}`,
    item: {
      Put: {
        TableName: tableName(),
        Item: {
          ...enrollmentKey(userid, wikiid),
          entity: 'CourseEnrollment',
          userid,
          wikiid,
        } satisfies z.input<typeof courseEnrollmentItemSchema>,
      },
    },
  };
}

export function enrollmentDelete(userid: number, wikiid: number): LabelledWrite {
  return {
    label: `enrollment:${userid}:${wikiid}`,
    item: { Delete: { TableName: tableName(), Key: enrollmentKey(userid, wikiid) } },
  };
}

export async function isUserAssignedToCourse(userid: number, wikiid: number): Promise<boolean> {
  return itemExists(enrollmentKey(userid, wikiid));
}

/** One BatchGet per 100 courses. */
export async function isUserAssignedToAnyCourse(userid: number, wikiids: number[]): Promise<boolean> {
  if (wikiids.length === 0) return false;
  return (await batchGetInOrder(wikiids.map((wikiid) => enrollmentKey(userid, wikiid)))).length > 0;
}
