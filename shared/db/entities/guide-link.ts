import { tableName } from '../client.ts';
import { padId } from '../keys.ts';
import type { LabelledWrite } from '../transactions.ts';
import { queryChunks, type PageQuery } from '../paging.ts';
import { parseStored } from '../stored-item.ts';
import { sortedRefWrites, type SortedPlacement } from '../sorted-refs.ts';
import { createHash } from 'node:crypto';
import * as z from 'zod/mini';
import type { GuideRecord } from './guide.ts';

const id = z.int().check(z.positive());

/** The authored (USER#<id> / AUTHORED#GUIDE#<id>) and featured (FEATURED#GUIDE / <id>) links. */
export const authoredGuideItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.string(),
  entity: z.literal('AuthoredGuide'),
  guideid: id,
});
export const featuredGuideItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.string(),
  entity: z.literal('FeaturedGuide'),
  guideid: id,
});

export function authoredKey(userid: number, guideid: number) {
  return { pk: `USER#${userid}`, sk: `AUTHORED#GUIDE#${padId(guideid)}` };
}

export function featuredKey(guideid: number) {
  return { pk: 'FEATURED#GUIDE', sk: padId(guideid) };
}

/** Links to the guides flagged GUIDE_STARRED, by guideid. */
export const featuredGuidesCollection: PageQuery = { partition: 'FEATURED#GUIDE' };

/** Links to the guides a user authored, by guideid. */
export function authoredGuidesCollection(userid: number): PageQuery {
  return { partition: `USER#${userid}`, sortPrefix: 'AUTHORED#GUIDE#' };
}

/**
 * The category index: one sorted reference per guide, `GUIDES#BY#CATEGORY` /
 * `<category token>#<padded guideid>`, moved in the same transaction as the guide's category
 * (create, edit, delete). A category page reads its guides' ids in guideid order from it. The
 * token is the title's SHA-256 (base64url): titles hold any character, `#` too, and may be
 * longer than a sort key part should be; the hash keeps one category's prefix its own.
 */
const CATEGORY_REFS = { collection: 'GUIDES', order: 'CATEGORY' } as const;
/** A category reference read with the projection `guideid` (a SortedRef; the registry keeps those open). */
const categoryRefSchema = z.object({ guideid: z.int().check(z.positive()) });

function categoryToken(category: string): string {
  return createHash('sha256').update(category, 'utf8').digest('base64url');
}

function categoryPlacement(guide: Pick<GuideRecord, 'guideid' | 'category'>): SortedPlacement {
  return { values: { [CATEGORY_REFS.order]: categoryToken(guide.category) }, attributes: { guideid: guide.guideid } };
}

/** The category index writes that move a guide from `before` to `after` (null: absent). */
export function categoryRefWrites(
  before: Pick<GuideRecord, 'guideid' | 'category'> | null,
  after: Pick<GuideRecord, 'guideid' | 'category'> | null,
): LabelledWrite[] {
  const guideid = (after ?? before)!.guideid;
  return sortedRefWrites(
    CATEGORY_REFS.collection,
    padId(guideid),
    before && categoryPlacement(before),
    after && categoryPlacement(after),
  );
}

/** The guideids filed under a category, ascending, in chunks (a reader stops when its page is full). */
export async function* categoryGuideids(category: string, chunk = 100): AsyncGenerator<number[]> {
  const refs = queryChunks(
    {
      partition: `${CATEGORY_REFS.collection}#BY#${CATEGORY_REFS.order}`,
      sortPrefix: `${categoryToken(category)}#`,
      projection: ['guideid'],
    },
    chunk,
  );
  for await (const items of refs) yield items.map((item) => parseStored(categoryRefSchema, item).guideid);
}

/** The guideid a link item (authored, featured) points to. */
export function linkedGuideid(item: Record<string, unknown>): number {
  return parseStored(guideLinkItemSchema, item).guideid;
}
const guideLinkItemSchema = z.union([authoredGuideItemSchema, featuredGuideItemSchema]);

/** The featured link follows the GUIDE_STARRED flag. */
export function featuredLinkWrite(guide: GuideRecord, starred: boolean): LabelledWrite {
  return starred
    ? {
        label: 'featured',
        item: {
          Put: {
            TableName: tableName(),
            Item: {
              ...featuredKey(guide.guideid),
              entity: 'FeaturedGuide',
              guideid: guide.guideid,
            } satisfies z.input<typeof featuredGuideItemSchema>,
          },
        },
      }
    : { label: 'featured', item: { Delete: { TableName: tableName(), Key: featuredKey(guide.guideid) } } };
}

export function authoredLinkPut(guide: GuideRecord): LabelledWrite {
  return {
    label: 'authored',
    item: {
      Put: {
        TableName: tableName(),
        Item: {
          ...authoredKey(guide.userid, guide.guideid),
          entity: 'AuthoredGuide',
          guideid: guide.guideid,
        } satisfies z.input<typeof authoredGuideItemSchema>,
      },
    },
  };
}

export function authoredLinkDelete(guide: GuideRecord): LabelledWrite {
  return {
    label: 'authored',
    item: { Delete: { TableName: tableName(), Key: authoredKey(guide.userid, guide.guideid) } },
  };
}
