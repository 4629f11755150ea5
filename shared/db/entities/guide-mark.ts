/**
 * A user's marks on guides: favorites (pk USER#<userid> / sk FAVORITE#GUIDE#<padded guideid>)
 * and completions (pk USER#<userid> / sk COMPLETED#GUIDE#<padded guideid>), each with the date
 * it was set. One key per (user, guide), so marking twice is idempotent and a guide's
 * `favorited` / `completed` for the caller is one BatchGet. A completion mark is set by PUT
 * /guides/{guideid}/completed and by completing the guide in training (one concept).
 */
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../client.ts';
import { putItem } from '../items.ts';
import { padId } from '../keys.ts';
import { batchGetParts, type BatchPart } from '../batch.ts';
import type { PageQuery } from '../paging.ts';
import type { LabelledWrite } from '../transactions.ts';
import { parseStored, type StoredRecord } from '../stored-item.ts';
import * as z from 'zod/mini';

export type GuideMarkKind = 'FAVORITE' | 'COMPLETED';

/** A FavoriteGuide or CompletedGuide mark as guideMarkItem builds it (and the completion update SETs it). */
function markItemSchema(entity: 'FavoriteGuide' | 'CompletedGuide') {
  return z.strictObject({
    pk: z.string(),
    sk: z.string(),
    entity: z.literal(entity),
    userid: z.int().check(z.positive()),
    guideid: z.int().check(z.positive()),
    date: z.number(),
  });
}
export const favoriteGuideItemSchema = markItemSchema('FavoriteGuide');
export const completedGuideItemSchema = markItemSchema('CompletedGuide');

export function markKey(kind: GuideMarkKind, userid: number, guideid: number) {
  return { pk: `USER#${userid}`, sk: `${kind}#GUIDE#${padId(guideid)}` };
}

/** A user's marks of one kind, by guideid. */
export function guideMarksCollection(kind: GuideMarkKind, userid: number): PageQuery {
  return { partition: `USER#${userid}`, sortPrefix: `${kind}#GUIDE#` };
}

const guideMarkItemSchema = z.union([favoriteGuideItemSchema, completedGuideItemSchema]);

export type GuideMark = StoredRecord<typeof guideMarkItemSchema>;

export function markFromItem(item: Record<string, unknown>): GuideMark {
  const { userid, guideid, date } = parseStored(guideMarkItemSchema, item);
  return { userid, guideid, date };
}

/** The stored item of a mark (pure: a migration builds it with the source's dates). */
export function guideMarkItem(kind: GuideMarkKind, mark: GuideMark): z.input<typeof guideMarkItemSchema> {
  return {
    ...markKey(kind, mark.userid, mark.guideid),
    entity: kind === 'FAVORITE' ? ('FavoriteGuide' as const) : ('CompletedGuide' as const),
    ...mark,
  };
}

/** Sets a mark; setting it again keeps the first date. */
export async function putGuideMark(kind: GuideMarkKind, mark: GuideMark): Promise<void> {
  await putItem(guideMarkItem(kind, mark), { ifAbsent: true });
}

/**
 * The completion mark as a write in another transaction: training records it together with
 * the stage completion (shared/training/progress.ts), so GET /user/completions and a guide's
 * `completed` see guides completed in a course. An existing mark keeps its first date.
 */
export function completedGuideMarkWrite(userid: number, guideid: number, date: number): LabelledWrite {
  return {
    label: 'completed-guide',
    item: {
      Update: {
        TableName: tableName(),
        Key: markKey('COMPLETED', userid, guideid),
        UpdateExpression:
          'SET #entity = :entity, #userid = :userid, #guideid = :guideid, #date = if_not_exists(#date, :date)',
        ExpressionAttributeNames: { '#entity': 'entity', '#userid': 'userid', '#guideid': 'guideid', '#date': 'date' },
        ExpressionAttributeValues: {
          ':entity': 'CompletedGuide',
          ':userid': userid,
          ':guideid': guideid,
          ':date': date,
        },
      },
    },
  };
}

export async function deleteGuideMark(kind: GuideMarkKind, userid: number, guideid: number): Promise<void> {
  await db().send(new DeleteCommand({ TableName: tableName(), Key: markKey(kind, userid, guideid) }));
}

/** Whether the user favorited and completed the guide (one BatchGet). */
export async function guideMarksOf(
  userid: number,
  guideid: number,
): Promise<{ favorited: boolean; completed: boolean }> {
  const [marks] = await batchGetParts(guideMarksPart(userid, guideid));
  return marks;
}

/** Whether the user favorited and completed the guide, as a share of a BatchGet. */
export function guideMarksPart(userid: number, guideid: number): BatchPart<{ favorited: boolean; completed: boolean }> {
  return {
    keys: [markKey('FAVORITE', userid, guideid), markKey('COMPLETED', userid, guideid)],
    decode(items) {
      const kinds = new Set(items.map((item) => String(item.sk).split('#')[0]));
      return { favorited: kinds.has('FAVORITE'), completed: kinds.has('COMPLETED') };
    },
  };
}
