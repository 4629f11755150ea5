/**
 * Guides and steps.
 * - Guide: pk GUIDE#<guideid> / sk GUIDE. Every guide is in gsi1 GUIDES (padded id); public
 *   guides are also in the sparse gsi2 GUIDES#PUBLIC, so the default GET /guides pages over
 *   public guides alone. The item holds the ordered step references [{stepid, revisionid}],
 *   so a step order change is one conditional write, and the access grants (userids, teamids).
 * - Step: pk STEP#<stepid> / sk STEP (found by stepid alone), with its guideid.
 * - Revision snapshots: GUIDE#<guideid> / REV#<padded revisionid> (the guide's fields and step
 *   references at that revision) and STEP#<stepid> / REV#<padded step revisionid>.
 * - Authored link: USER#<author> / AUTHORED#GUIDE#<padded guideid>; featured link (flag
 *   GUIDE_STARRED): FEATURED#GUIDE / <padded guideid>.
 * Guide items change only with a condition on `version` (bumped by every write), in one
 * transaction with their snapshot, links and steps (shared/content/guide-revisions.ts).
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../client.ts';
import { getItem } from '../items.ts';
import { padId } from '../keys.ts';
import { INDEXES } from '../table.ts';
import { batchDelete, batchGetInOrder, batchGetParts, type BatchPart } from '../batch.ts';
import { revisionGuard } from '../revisions.ts';
import type { LabelledWrite } from '../transactions.ts';
import { queryChunks, type PageQuery } from '../paging.ts';
import { parseStored, recordFrom, recordsOf, type StoredRecord } from '../stored-item.ts';
import { sortedRefWrites, type SortedPlacement } from '../sorted-refs.ts';
import { createHash } from 'node:crypto';
import * as z from 'zod/mini';
import { serviceAuthorSchema } from './api-token.ts';
import type { ServiceAuthor } from '../../domain/caller.ts';
import { type StepLine, stepLineItemSchema } from '../../domain/step-line.ts';

export interface StepRef {
  stepid: number;
  revisionid: number;
}

/** A part or tool of a guide (§2.5 Item). */
export interface GuideItem {
  text: string;
  notes: string | null;
  type: string;
  quantity: number;
  url: string | null;
  thumbnail: string | null;
  isoptional: boolean;
  featured: boolean;
}

/** A guide's attached quiz at the quiz revision it was attached with. */
export interface AttachedQuiz {
  quizid: number;
  quiz_revisionid: number;
}

export interface GuideRecord {
  guideid: number;
  langid: string;
  type: string;
  category: string;
  subject: string;
  title: string;
  summary: string;
  introduction_raw: string;
  introduction_rendered: string;
  conclusion_raw: string;
  conclusion_rendered: string;
  difficulty: string | null;
  time_required_min: number;
  time_required_max: number;
  parts: GuideItem[];
  tools: GuideItem[];
  documents: number[];
  /** guideids of prerequisite guides, in order. */
  prerequisites: number[];
  flags: string[];
  public: boolean;
  /** The author. */
  userid: number;
  /** Written by a site API token (userid 0): which one (decision 244). */
  service_author?: ServiceAuthor;
  /** The guide's image: a GuideImage media item id (read as the Image object). */
  image: number | null;
  /**
   * The quiz attached to the guide (POST /quizzes/attach/guide): written with its quiz link, so
   * guide lists show it without reading the links. Absent: none attached.
   */
  attached_quiz?: AttachedQuiz;
  /** The guide's tags, kept by the tag transactions (the `TAGGED#GUIDE#` links stay the source). */
  tags?: string[];
  created_date: number;
  published_date: number | null;
  modified_date: number;
  revisionid: number;
  /** Bumped by every write (also those that keep the revisionid, like grants). */
  version: number;
  steps: StepRef[];
  grant_userids: number[];
  grant_teamids: number[];
  search_tokens: string[];
}

/** Step media as written: image ids, or one video / embed id (§2.6 write form). */
export type StepMedia =
  | { type: 'image'; data: number[] }
  | { type: 'video'; data: number }
  | { type: 'embed'; data: number };

export interface StepRecord {
  guideid: number;
  stepid: number;
  revisionid: number;
  title: string;
  lines: StepLine[];
  media: StepMedia | null;
  /** Kept by the comments code (ADD); step writes never overwrite it. */
  comment_count?: number;
}

/** What a revision snapshot records: the guide's content and its steps' revisions. */
export type GuideSnapshot = Omit<GuideRecord, 'version' | 'grant_userids' | 'grant_teamids' | 'search_tokens'> & {
  reason: string;
  changed_by: number | null;
  snapshot_date: number;
};

// ---- item schemas: each item exactly as the writes below leave it (plain, after unmarshall) ----

const id = z.int().check(z.positive());
const guideItemPart = z.object({
  text: z.string(),
  notes: z.nullable(z.string()),
  type: z.string(),
  quantity: z.number(),
  url: z.nullable(z.string()),
  thumbnail: z.nullable(z.string()),
  isoptional: z.boolean(),
  featured: z.boolean(),
});
const stepRefSchema = z.object({ stepid: id, revisionid: z.int() });
/** The content a guide and its snapshots share. */
const guideContent = {
  guideid: id,
  langid: z.string(),
  type: z.string(),
  category: z.string(),
  subject: z.string(),
  title: z.string(),
  summary: z.string(),
  introduction_raw: z.string(),
  introduction_rendered: z.string(),
  conclusion_raw: z.string(),
  conclusion_rendered: z.string(),
  difficulty: z.nullable(z.string()),
  time_required_min: z.number(),
  time_required_max: z.number(),
  parts: z.array(guideItemPart),
  tools: z.array(guideItemPart),
  documents: z.array(z.int()),
  prerequisites: z.array(z.int()),
  flags: z.array(z.string()),
  public: z.boolean(),
  userid: z.int(),
  service_author: z.optional(serviceAuthorSchema),
  image: z.nullable(z.int()),
  attached_quiz: z.optional(z.object({ quizid: id, quiz_revisionid: z.int() })),
  tags: z.optional(z.array(z.string())),
  created_date: z.number(),
  published_date: z.nullable(z.number()),
  modified_date: z.number(),
  revisionid: z.int(),
  steps: z.array(stepRefSchema),
};

export const guideItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.literal('GUIDE'),
  entity: z.literal('Guide'),
  gsi1pk: z.literal('GUIDES'),
  gsi1sk: z.string(),
  gsi2pk: z.optional(z.literal('GUIDES#PUBLIC')),
  gsi2sk: z.optional(z.string()),
  ...guideContent,
  version: z.int(),
  grant_userids: z.array(z.int()),
  grant_teamids: z.array(z.int()),
  search_tokens: z.array(z.string()),
});

export const guideRevisionItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.string(),
  entity: z.literal('GuideRevision'),
  ...guideContent,
  reason: z.string(),
  changed_by: z.nullable(z.int()),
  snapshot_date: z.number(),
});

const stepMedia = z.nullable(
  z.union([
    z.object({ type: z.literal('image'), data: z.array(z.int()) }),
    z.object({ type: z.enum(['video', 'embed']), data: z.int() }),
  ]),
);
const stepContent = {
  guideid: id,
  stepid: id,
  revisionid: z.int(),
  title: z.string(),
  lines: z.array(stepLineItemSchema),
  media: stepMedia,
};

export const stepItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.literal('STEP'),
  entity: z.literal('Step'),
  ...stepContent,
  comment_count: z.optional(z.int()),
});

export const stepRevisionItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.string(),
  entity: z.literal('StepRevision'),
  ...stepContent,
});

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

export function guideKey(guideid: number) {
  return { pk: `GUIDE#${guideid}`, sk: 'GUIDE' } as const;
}

export function stepKey(stepid: number) {
  return { pk: `STEP#${stepid}`, sk: 'STEP' } as const;
}

function guideRevisionKey(guideid: number, revisionid: number) {
  return { pk: `GUIDE#${guideid}`, sk: `REV#${padId(revisionid)}` };
}

function stepRevisionKey(stepid: number, revisionid: number) {
  return { pk: `STEP#${stepid}`, sk: `REV#${padId(revisionid)}` };
}

function authoredKey(userid: number, guideid: number) {
  return { pk: `USER#${userid}`, sk: `AUTHORED#GUIDE#${padId(guideid)}` };
}

function featuredKey(guideid: number) {
  return { pk: 'FEATURED#GUIDE', sk: padId(guideid) };
}

/** Every guide, by guideid. */
export const allGuidesCollection: PageQuery = { index: INDEXES.gsi1, partition: 'GUIDES' };
/** Public guides only (sparse index), by guideid. */
export const publicGuidesCollection: PageQuery = { index: INDEXES.gsi2, partition: 'GUIDES#PUBLIC' };
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

type GuideIndexKeys = Pick<z.input<typeof guideItemSchema>, 'gsi1pk' | 'gsi1sk' | 'gsi2pk' | 'gsi2sk'>;

function indexKeys(guide: Pick<GuideRecord, 'guideid' | 'public'>): GuideIndexKeys {
  return {
    [INDEXES.gsi1.pk]: 'GUIDES',
    [INDEXES.gsi1.sk]: padId(guide.guideid),
    ...(guide.public ? { [INDEXES.gsi2.pk]: 'GUIDES#PUBLIC', [INDEXES.gsi2.sk]: padId(guide.guideid) } : {}),
  };
}

/** A new guide as it is first stored: no text, no steps, not public; the caller fills it in. */
export function emptyGuide(
  fields: Pick<GuideRecord, 'guideid' | 'langid' | 'type' | 'category' | 'userid' | 'revisionid'>,
  date: number,
): GuideRecord {
  return {
    ...fields,
    subject: '',
    title: '',
    summary: '',
    introduction_raw: '',
    introduction_rendered: '',
    conclusion_raw: '',
    conclusion_rendered: '',
    difficulty: null,
    time_required_min: 0,
    time_required_max: 0,
    parts: [],
    tools: [],
    documents: [],
    prerequisites: [],
    flags: [],
    public: false,
    image: null,
    created_date: date,
    published_date: null,
    modified_date: date,
    version: 1,
    steps: [],
    grant_userids: [],
    grant_teamids: [],
    search_tokens: [],
  };
}

/** The stored item of a guide (exported for seeding benchmarks and migrations). */
export function guideToItem(guide: GuideRecord): z.input<typeof guideItemSchema> {
  return { ...guideKey(guide.guideid), entity: 'Guide', ...indexKeys(guide), ...guide };
}

export function guideFromItem(item: Record<string, unknown>): GuideRecord {
  return recordFrom(guideItemSchema, item);
}

/** A step item (read, or the current item a failed step guard returns) as its record. */
export const stepFromItem = recordsOf(stepItemSchema);

/** What deciding a guide's visibility and category needs: read projected, not whole guides. */
const guideAccessSchema = z.pick(guideItemSchema, {
  pk: true,
  sk: true,
  guideid: true,
  category: true,
  public: true,
  userid: true,
  grant_userids: true,
  grant_teamids: true,
});
export type GuideAccessFields = StoredRecord<typeof guideAccessSchema>;

/** Every guide's access fields (a small projection of the guide index), a chunk at a time. */
export async function* guideAccessChunks(): AsyncGenerator<GuideAccessFields[]> {
  const chunks = queryChunks({
    ...allGuidesCollection,
    projection: ['pk', 'sk', 'guideid', 'category', 'public', 'userid', 'grant_userids', 'grant_teamids'],
  });
  for await (const chunk of chunks) yield chunk.map(recordsOf(guideAccessSchema));
}

/** What the summary-copies backfill reads of a guide (decision 283 copies; its version to write on condition). */
const summaryCopiesSchema = z.pick(guideItemSchema, {
  pk: true,
  sk: true,
  guideid: true,
  version: true,
  tags: true,
  attached_quiz: true,
});
export type GuideSummaryCopies = StoredRecord<typeof summaryCopiesSchema>;

/**
 * Every guide's summary copies (`tags`, `attached_quiz`) and version, by guideid, from after
 * `afterGuideid` (a resumed backfill), in chunks of at most 100.
 */
export async function* guideSummaryCopyChunks(afterGuideid = 0): AsyncGenerator<GuideSummaryCopies[]> {
  const chunks = queryChunks(
    {
      ...allGuidesCollection,
      sortAfter: padId(afterGuideid),
      projection: ['pk', 'sk', 'guideid', 'version', 'tags', 'attached_quiz'],
    },
    100,
  );
  for await (const chunk of chunks) yield chunk.map(recordsOf(summaryCopiesSchema));
}

/**
 * Writes a guide's summary copies (decision 283) where a backfill found them missing, on condition
 * of the version it read, bumping it as the tag and quiz transactions do: a guide write that read
 * the guide before retries and keeps them. A changed or deleted guide fails the condition
 * (ConditionalCheckFailedException: a lost race for retryOnLostRace).
 */
export async function setGuideSummaryCopies(
  guideid: number,
  version: number,
  copies: { tags?: string[]; attached_quiz?: AttachedQuiz },
): Promise<void> {
  const sets = ['version = version + :one'];
  const values: Record<string, unknown> = { ':one': 1, ':version': version };
  if (copies.tags) {
    sets.push('tags = :tags');
    values[':tags'] = copies.tags;
  }
  if (copies.attached_quiz) {
    sets.push('attached_quiz = :attached');
    values[':attached'] = copies.attached_quiz;
  }
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: guideKey(guideid),
      UpdateExpression: `SET ${sets.join(', ')}`,
      ConditionExpression: 'attribute_exists(pk) AND version = :version',
      ExpressionAttributeValues: values,
    }),
  );
}

export async function getGuide(
  guideid: number,
  options: { consistent?: boolean } = {},
): Promise<GuideRecord | undefined> {
  const item = await getItem(guideKey(guideid), { consistent: options.consistent });
  return item ? guideFromItem(item) : undefined;
}

/** Guides in the order of the ids asked for; unknown ids are left out. */
export async function getGuides(guideids: number[]): Promise<GuideRecord[]> {
  const [guides] = await batchGetParts(guidesPart(guideids));
  return guides;
}

/** Guides in the order of the ids asked for, as a share of a BatchGet (unknown ids left out). */
export function guidesPart(guideids: number[]): BatchPart<GuideRecord[]> {
  return {
    keys: [...new Set(guideids)].map(guideKey),
    decode(items) {
      const byId = new Map(items.map((item) => [Number(item.guideid), guideFromItem(item)]));
      return guideids.map((guideid) => byId.get(guideid)).filter((guide): guide is GuideRecord => guide !== undefined);
    },
  };
}

/** A step found by its id alone (comments and step forms know only the stepid). */
export async function getStep(stepid: number): Promise<StepRecord | undefined> {
  const item = await getItem(stepKey(stepid));
  return item ? stepFromItem(item) : undefined;
}

/** Steps in the order of the ids asked for; unknown ids are left out. */
export async function getSteps(stepids: number[]): Promise<StepRecord[]> {
  const [steps] = await batchGetParts(stepsPart(stepids));
  return steps;
}

/** Steps in the order of the ids asked for, as a share of a BatchGet. */
export function stepsPart(stepids: number[]): BatchPart<StepRecord[]> {
  return { keys: stepids.map(stepKey), decode: (items) => items.map(stepFromItem) };
}

/** A guide as it was at a revision (its snapshot), if that revision exists. */
export async function getGuideSnapshot(guideid: number, revisionid: number): Promise<GuideSnapshot | undefined> {
  const item = await getItem(guideRevisionKey(guideid, revisionid));
  return item ? recordFrom(guideRevisionItemSchema, item) : undefined;
}

/** Steps as they were at the given step revisions. */
export async function getStepSnapshots(refs: StepRef[]): Promise<StepRecord[]> {
  const items = await batchGetInOrder(refs.map((ref) => stepRevisionKey(ref.stepid, ref.revisionid)));
  return items.map(recordsOf(stepRevisionItemSchema));
}

// ---- writes (combined into one transaction by shared/content/guide-revisions.ts) ----

/** Creates a guide item; fails (label `guide`) if the id is taken. */
export function guideCreate(guide: GuideRecord): LabelledWrite {
  return {
    label: 'guide',
    item: {
      Put: { TableName: tableName(), Item: guideToItem(guide), ConditionExpression: 'attribute_not_exists(pk)' },
    },
  };
}

/**
 * Replaces a guide's fields if its version is still `expectedVersion` (label `guide`). An
 * update, not a put, so attributes other code keeps on the item survive; the public index
 * keys come and go with `public`.
 */
export function guideReplace(guide: GuideRecord, expectedVersion: number): LabelledWrite {
  const { guideid, ...fields } = guide;
  const names: Record<string, string> = { '#version': 'version' };
  const values: Record<string, unknown> = { ':expectedVersion': expectedVersion };
  const sets = Object.entries({ ...fields, ...indexKeys(guide) }).map(([field, value], index) => {
    names[`#f${index}`] = field;
    values[`:v${index}`] = value;
    return `#f${index} = :v${index}`;
  });
  const removals = guide.public ? [] : [INDEXES.gsi2.pk, INDEXES.gsi2.sk];
  for (const [index, field] of removals.entries()) names[`#r${index}`] = field;
  const remove = removals.length > 0 ? ` REMOVE ${removals.map((_, index) => `#r${index}`).join(', ')}` : '';
  return {
    label: 'guide',
    item: {
      Update: {
        TableName: tableName(),
        Key: guideKey(guideid),
        UpdateExpression: `SET ${sets.join(', ')}${remove}`,
        ConditionExpression: 'attribute_exists(pk) AND #version = :expectedVersion',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      },
    },
  };
}

export function guideDelete(guideid: number, expectedVersion: number): LabelledWrite {
  return {
    label: 'guide',
    item: {
      Delete: {
        TableName: tableName(),
        Key: guideKey(guideid),
        ConditionExpression: 'attribute_exists(pk) AND #version = :expectedVersion',
        ExpressionAttributeNames: { '#version': 'version' },
        ExpressionAttributeValues: { ':expectedVersion': expectedVersion },
      },
    },
  };
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

function stepSnapshotPut(step: StepRecord): LabelledWrite {
  const { comment_count, ...content } = step;
  return {
    label: `step-revision:${step.stepid}`,
    item: {
      Put: {
        TableName: tableName(),
        Item: {
          ...stepRevisionKey(step.stepid, step.revisionid),
          entity: 'StepRevision',
          ...content,
        } satisfies z.input<typeof stepRevisionItemSchema>,
      },
    },
  };
}

/** A new step with its first snapshot. */
export function stepCreateWrites(step: StepRecord): LabelledWrite[] {
  return [
    {
      label: 'step',
      item: {
        Put: {
          TableName: tableName(),
          Item: { ...stepKey(step.stepid), entity: 'Step', ...step } satisfies z.input<typeof stepItemSchema>,
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    },
    stepSnapshotPut(step),
  ];
}

/** Changes a step if its revision is still `expectedRevision` (label `step`), plus its snapshot. */
export function stepReplaceWrites(step: StepRecord, expectedRevision: number): LabelledWrite[] {
  const guard = revisionGuard(expectedRevision);
  return [
    {
      label: 'step',
      item: {
        Update: {
          TableName: tableName(),
          Key: stepKey(step.stepid),
          UpdateExpression: 'SET #revisionid = :revisionid, #title = :title, #lines = :lines, #media = :media',
          ...guard,
          ExpressionAttributeNames: {
            ...guard.ExpressionAttributeNames,
            '#title': 'title',
            '#lines': 'lines',
            '#media': 'media',
          },
          ExpressionAttributeValues: {
            ...guard.ExpressionAttributeValues,
            ':revisionid': step.revisionid,
            ':title': step.title,
            ':lines': step.lines,
            ':media': step.media,
          },
        },
      },
    },
    stepSnapshotPut(step),
  ];
}

/** Deletes a step if its revision is still `expectedRevision` (label `step`); snapshots stay. */
export function stepDeleteWrite(stepid: number, expectedRevision: number): LabelledWrite {
  return {
    label: 'step',
    item: { Delete: { TableName: tableName(), Key: stepKey(stepid), ...revisionGuard(expectedRevision) } },
  };
}

/** Removes the step items of a deleted guide (their snapshots stay with the guide's history). */
export async function deleteStepItems(stepids: number[]): Promise<void> {
  await batchDelete(stepids.map(stepKey));
}
