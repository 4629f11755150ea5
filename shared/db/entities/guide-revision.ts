import { tableName } from '../client.ts';
import { getItem } from '../items.ts';
import { padId } from '../keys.ts';
import type { LabelledWrite } from '../transactions.ts';
import { recordFrom } from '../stored-item.ts';
import * as z from 'zod/mini';
import { guideContent, type GuideRecord } from './guide.ts';

/** What a revision snapshot records: the guide's content and its steps' revisions. */
export type GuideSnapshot = Omit<GuideRecord, 'version' | 'grant_userids' | 'grant_teamids' | 'search_tokens'> & {
  reason: string;
  changed_by: number | null;
  snapshot_date: number;
};

export const guideRevisionItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.string(),
  entity: z.literal('GuideRevision'),
  ...guideContent,
  reason: z.string(),
  changed_by: z.nullable(z.int()),
  snapshot_date: z.number(),
});

export function guideRevisionKey(guideid: number, revisionid: number) {
  return { pk: `GUIDE#${guideid}`, sk: `REV#${padId(revisionid)}` };
}

/** A guide as it was at a revision (its snapshot), if that revision exists. */
export async function getGuideSnapshot(guideid: number, revisionid: number): Promise<GuideSnapshot | undefined> {
  const item = await getItem(guideRevisionKey(guideid, revisionid));
  return item ? recordFrom(guideRevisionItemSchema, item) : undefined;
}

export function guideSnapshotPut(
  guide: GuideRecord,
  meta: { reason: string; changed_by: number | null; date: number },
): LabelledWrite {
  const { version, grant_userids, grant_teamids, search_tokens, ...content } = guide;
  const snapshot: GuideSnapshot = {
    ...content,
    reason: meta.reason,
    changed_by: meta.changed_by,
    snapshot_date: meta.date,
  };
  return {
    label: 'guide-revision',
    item: {
      Put: {
        TableName: tableName(),
        Item: {
          ...guideRevisionKey(guide.guideid, guide.revisionid),
          entity: 'GuideRevision',
          ...snapshot,
        } satisfies z.input<typeof guideRevisionItemSchema>,
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  };
}
