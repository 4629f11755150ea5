/**
 * Guides: pk GUIDE#<guideid> / sk GUIDE. Every guide is in gsi1 GUIDES (padded id); public
 * guides are also in the sparse gsi2 GUIDES#PUBLIC, so the default GET /guides pages over
 * public guides alone. The item holds the ordered step references [{stepid, revisionid}],
 * so a step order change is one conditional write, and the access grants (userids, teamids).
 * Its steps (step.ts), revision snapshots (guide-revision.ts) and links (guide-link.ts: authored,
 * featured, category index) are their own files. Guide items change only with a condition on
 * `version` (bumped by every write), in one transaction with their snapshot, links and steps
 * (shared/content/guide-revisions.ts).
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../client.ts';
import { getItem } from '../items.ts';
import { padId } from '../keys.ts';
import { INDEXES } from '../table.ts';
import { batchGetParts, type BatchPart } from '../batch.ts';
import type { LabelledWrite } from '../transactions.ts';
import { queryChunks, type PageQuery } from '../paging.ts';
import { recordFrom, recordsOf, type StoredRecord } from '../stored-item.ts';
import * as z from 'zod/mini';
import { serviceAuthorSchema } from './api-token.ts';

// ---- item schemas: each item exactly as the writes below leave it (plain, after unmarshall) ----

const id = z.int().check(z.positive());
/** A part or tool of a guide (§2.5 Item). */
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
export type GuideItem = z.output<typeof guideItemPart>;
const stepRefSchema = z.object({ stepid: id, revisionid: z.int() });
export type StepRef = z.output<typeof stepRefSchema>;
/** A guide's attached quiz at the quiz revision it was attached with. */
const attachedQuizSchema = z.object({ quizid: id, quiz_revisionid: z.int() });
export type AttachedQuiz = z.output<typeof attachedQuizSchema>;
/** The content a guide and its snapshots share. */
export const guideContent = {
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
  /** guideids of prerequisite guides, in order. */
  prerequisites: z.array(z.int()),
  flags: z.array(z.string()),
  public: z.boolean(),
  /** The author. */
  userid: z.int(),
  /** Written by a site API token (userid 0): which one (decision 244). */
  service_author: z.optional(serviceAuthorSchema),
  /** The guide's image: a GuideImage media item id (read as the Image object). */
  image: z.nullable(z.int()),
  /**
   * The quiz attached to the guide (POST /quizzes/attach/guide): written with its quiz link, so
   * guide lists show it without reading the links. Absent: none attached.
   */
  attached_quiz: z.optional(attachedQuizSchema),
  /** The guide's tags, kept by the tag transactions (the `TAGGED#GUIDE#` links stay the source). */
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
  /** Bumped by every write (also those that keep the revisionid, like grants). */
  version: z.int(),
  grant_userids: z.array(z.int()),
  grant_teamids: z.array(z.int()),
  search_tokens: z.array(z.string()),
});

export type GuideRecord = StoredRecord<typeof guideItemSchema>;

export function guideKey(guideid: number) {
  return { pk: `GUIDE#${guideid}`, sk: 'GUIDE' } as const;
}

/** Every guide, by guideid. */
export const allGuidesCollection: PageQuery = { index: INDEXES.gsi1, partition: 'GUIDES' };
/** Public guides only (sparse index), by guideid. */
export const publicGuidesCollection: PageQuery = { index: INDEXES.gsi2, partition: 'GUIDES#PUBLIC' };

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
