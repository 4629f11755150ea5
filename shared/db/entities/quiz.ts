/**
 * Quizzes (SurveyJS documents), their revisions, categories and document attachments.
 * - Quiz: pk QUIZ#<quizid> / sk QUIZ, in gsi1 QUIZZES (padded quizid). Small on purpose (the
 *   definition lives in the revision), so the whole bounded list reads in one or two Query
 *   pages (docs/quizzes.md "Lists").
 * - Revision: pk QUIZ#<quizid> / sk REV#<padded quiz_revisionid>: the definition as imported
 *   (a JSON string), the graded questions found at import (select kinds with their choice
 *   values; revisions imported before those were recorded lack them), the pass threshold and
 *   attempt limit.
 * - Site count: pk QUIZCOUNT / sk COUNT, moved in the create/delete transaction on condition
 *   `count < MAX_QUIZZES`, so the bound the lists rely on holds in DynamoDB.
 * - Category: pk QUIZCATEGORIES / sk <lower-case name>; never deleted, so the category list
 *   keeps the categories of disabled and deleted quizzes.
 * - Document attachment (guide / wiki quiz revision): pk QUIZLINK#<doctype>#<docid> /
 *   sk REV#<padded doc revisionid>, in gsi1 QUIZLINKS#<quizid> (<doctype>#<padded docid>#<padded
 *   revisionid>). The newest attachment of a document is the one in force for its current and
 *   later revisions.
 */
import { batchGetInOrder } from '../batch.ts';
import { tableName } from '../client.ts';
import { getItem } from '../items.ts';
import { padId } from '../keys.ts';
import { parseStored, recordFrom, recordsOf, type StoredRecord, type FilledRecord } from '../stored-item.ts';
import { INDEXES } from '../table.ts';
import { queryAll, queryFirst, type PageQuery } from '../paging.ts';
import { transactWrite, type LabelledWrite } from '../transactions.ts';
import { guideItemSchema, guideKey } from './guide.ts';
import { GRADED_TYPES } from '../../domain/quiz-grading.ts';
import * as z from 'zod/mini';

/** Document titles kept on a quiz for the sessions `query` filter. */
export const MAX_DOC_TITLES = 50;

/** The most quizzes a site holds: lists read them all (one bounded Query), see docs/quizzes.md. */
export const MAX_QUIZZES = 5000;

export type QuizDoctype = 'guide' | 'wiki';

export function quizKey(quizid: number) {
  return { pk: `QUIZ#${quizid}`, sk: 'QUIZ' } as const;
}

export function revisionKey(quizid: number, revisionid: number) {
  return { pk: `QUIZ#${quizid}`, sk: `REV#${padId(revisionid)}` };
}

export const COUNT_KEY = { pk: 'QUIZCOUNT', sk: 'COUNT' } as const;

export function categoryKey(name: string) {
  return { pk: 'QUIZCATEGORIES' as const, sk: name.toLowerCase() };
}

export function linkKey(doctype: QuizDoctype, docid: number, revisionid: number) {
  return { pk: `QUIZLINK#${doctype}#${docid}`, sk: `REV#${padId(revisionid)}` };
}

export const quizzesCollection: PageQuery = { index: INDEXES.gsi1, partition: 'QUIZZES' };

export function quizFromItem(item: Record<string, unknown>): QuizRecord {
  const record = recordFrom(quizItemSchema, item);
  return {
    ...record,
    doc_titles: record.doc_titles ?? [],
    sessions_submitted: record.sessions_submitted ?? 0,
    released_date: record.released_date ?? null,
  };
}

/** A Quiz as quizItem puts it and the link / detach / session updates leave it (plain). */
export const quizItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.literal('QUIZ'),
  entity: z.literal('Quiz'),
  gsi1pk: z.literal('QUIZZES'),
  gsi1sk: z.string(),
  quizid: z.int().check(z.positive()),
  quiz_revisionid: z.int(),
  title: z.string(),
  category: z.string(),
  /** Percent of graded questions answered correctly needed to pass (0..100). */
  pass_threshold: z.number(),
  /** Failed submissions allowed before the quiz locks for a user; null: unlimited. */
  max_attempts: z.nullable(z.int()),
  enabled: z.boolean(),
  /** The author (who imported it). */
  userid: z.int(),
  created_date: z.number(),
  modified_date: z.number(),
  question_count: z.int(),
  /** Submitted sessions, moved in the submit transaction. */
  sessions_submitted: z.optional(z.int()),
  /** The guide it was last attached to, and that guide's data as of attach (list sort keys). */
  guideid: z.nullable(z.int()),
  guide_title: z.nullable(z.string()),
  guide_revisionid: z.nullable(z.int()),
  /** Titles of the documents it is attached to (for the sessions `query` filter). */
  doc_titles: z.optional(z.array(z.string())),
  /** When it was last attached to a document (went live there); null before. */
  released_date: z.optional(z.nullable(z.number())),
});

/** sessions_submitted, doc_titles, released_date: absent on older quizzes, read as 0 / [] / null (quizFromItem). */
export type QuizRecord = FilledRecord<typeof quizItemSchema, 'sessions_submitted' | 'doc_titles' | 'released_date'>;

export const quizRevisionItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.string(),
  entity: z.literal('QuizRevision'),
  quizid: z.int().check(z.positive()),
  quiz_revisionid: z.int(),
  title: z.string(),
  /** The SurveyJS definition as JSON text (questionOrder normalized). */
  definition_json: z.string(),
  questions: z.array(
    z.object({
      name: z.string(),
      valueName: z.string(),
      title: z.string(),
      type: z.enum(GRADED_TYPES),
      correctAnswer: z.unknown(),
      choices: z.optional(z.array(z.unknown())),
    }),
  ),
  pass_threshold: z.number(),
  max_attempts: z.nullable(z.int()),
  userid: z.int(),
  date: z.number(),
});

export type QuizRevisionRecord = StoredRecord<typeof quizRevisionItemSchema>;

export const quizLinkItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.string(),
  entity: z.literal('QuizLink'),
  gsi1pk: z.string(),
  gsi1sk: z.string(),
  doctype: z.enum(['guide', 'wiki']),
  docid: z.int().check(z.positive()),
  /** guide_revisionid or wiki_revisionid. */
  doc_revisionid: z.int(),
  quizid: z.int().check(z.positive()),
  quiz_revisionid: z.int(),
  userid: z.int(),
  date: z.number(),
});

export type QuizLinkRecord = StoredRecord<typeof quizLinkItemSchema>;

/** The site's quiz count (no `entity`: named by its key). */
export const quizCountItemSchema = z.strictObject({
  pk: z.literal('QUIZCOUNT'),
  sk: z.literal('COUNT'),
  count: z.int(),
});

export const quizCategoryItemSchema = z.strictObject({
  pk: z.literal('QUIZCATEGORIES'),
  sk: z.string(),
  entity: z.literal('QuizCategory'),
  name: z.string(),
});

function quizItem(quiz: QuizRecord): z.input<typeof quizItemSchema> {
  return {
    ...quizKey(quiz.quizid),
    entity: 'Quiz',
    [INDEXES.gsi1.pk]: 'QUIZZES' as const,
    [INDEXES.gsi1.sk]: padId(quiz.quizid),
    ...quiz,
  };
}

function revisionPut(revision: QuizRevisionRecord): LabelledWrite {
  return {
    label: 'revision',
    item: {
      Put: {
        TableName: tableName(),
        Item: {
          ...revisionKey(revision.quizid, revision.quiz_revisionid),
          entity: 'QuizRevision',
          ...revision,
        } satisfies z.input<typeof quizRevisionItemSchema>,
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  };
}

function countMove(delta: 1 | -1): LabelledWrite {
  return {
    label: 'count',
    item: {
      Update: {
        TableName: tableName(),
        Key: COUNT_KEY,
        UpdateExpression: 'ADD #count :delta',
        ConditionExpression: delta > 0 ? 'attribute_not_exists(#count) OR #count < :max' : undefined,
        ExpressionAttributeNames: { '#count': 'count' },
        ExpressionAttributeValues: delta > 0 ? { ':delta': delta, ':max': MAX_QUIZZES } : { ':delta': delta },
      },
    },
  };
}

function categoryPut(name: string): LabelledWrite {
  return {
    label: 'category',
    item: {
      Put: {
        TableName: tableName(),
        Item: { ...categoryKey(name), entity: 'QuizCategory', name } satisfies z.input<typeof quizCategoryItemSchema>,
      },
    },
  };
}

/**
 * Stores a new quiz with its first revision and category, counting it against MAX_QUIZZES
 * (label 'count' fails when the site is full).
 */
export async function insertQuiz(quiz: QuizRecord, revision: QuizRevisionRecord): Promise<void> {
  await transactWrite(quizCreateWrites(quiz, revision));
}

/** The writes of insertQuiz (the explicit-id path: a migration writes a source's quiz with its ids). */
export function quizCreateWrites(quiz: QuizRecord, revision: QuizRevisionRecord): LabelledWrite[] {
  const writes: LabelledWrite[] = [
    {
      label: 'quiz',
      item: { Put: { TableName: tableName(), Item: quizItem(quiz), ConditionExpression: 'attribute_not_exists(pk)' } },
    },
    revisionPut(revision),
    countMove(1),
  ];
  if (quiz.category) writes.push(categoryPut(quiz.category));
  return writes;
}

/** The site's quiz count written whole (a migration counts the quizzes it carried). */
export function quizCountPutWrite(count: number): LabelledWrite {
  const item: z.input<typeof quizCountItemSchema> = { ...COUNT_KEY, count };
  return { label: 'count', item: { Put: { TableName: tableName(), Item: item } } };
}

/** A category item (a migration carries categories no quiz names any more, too). */
export const quizCategoryWrite = (name: string): LabelledWrite => categoryPut(name);

export async function getQuiz(quizid: number, options: { consistent?: boolean } = {}): Promise<QuizRecord | undefined> {
  const item = await getItem(quizKey(quizid), { consistent: options.consistent });
  return item ? quizFromItem(item) : undefined;
}

export async function getQuizRevision(quizid: number, revisionid: number): Promise<QuizRevisionRecord | undefined> {
  const item = await getItem(revisionKey(quizid, revisionid));
  return item ? recordFrom(quizRevisionItemSchema, item) : undefined;
}

/** Every quiz of the site (at most MAX_QUIZZES small items), by quizid. */
export async function listAllQuizzes(): Promise<QuizRecord[]> {
  const items = await queryAll(quizzesCollection);
  return items.map(quizFromItem);
}

/** Every category ever used, alphabetical (a site has few). */
export async function listCategories(): Promise<string[]> {
  const items = await queryAll({ partition: 'QUIZCATEGORIES' });
  return items.map((item) => parseStored(quizCategoryItemSchema, item).name);
}

/**
 * Deletes a quiz and its revisions (sessions keep their results). Label 'quiz' fails when it
 * is already gone.
 */
export async function deleteQuiz(quizid: number): Promise<void> {
  const revisions = await queryAll({ partition: `QUIZ#${quizid}`, sortPrefix: 'REV#' });
  await transactWrite([
    {
      label: 'quiz',
      item: { Delete: { TableName: tableName(), Key: quizKey(quizid), ConditionExpression: 'attribute_exists(pk)' } },
    },
    countMove(-1),
    // A quiz has few revisions (one per import); a transaction holds 100 writes.
    ...revisions.slice(0, 98).map((item, index) => ({
      label: `revision:${index}`,
      item: { Delete: { TableName: tableName(), Key: { pk: String(item.pk), sk: String(item.sk) } } },
    })),
  ]);
}

/** Counts a submitted session on the quiz (part of the submit transaction; label 'quiz'). */
export function countSubmissionWrite(quizid: number): LabelledWrite {
  return {
    label: 'quiz',
    item: {
      Update: {
        TableName: tableName(),
        Key: quizKey(quizid),
        UpdateExpression: 'ADD sessions_submitted :one',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':one': 1 },
      },
    },
  };
}

/**
 * Attaches the quiz at its current revision to a document revision, and records on the quiz
 * where it is attached. `detachFrom`: another quiz that named this guide, which stops doing so.
 */
export async function attachQuiz(
  link: QuizLinkRecord,
  quizFields: { guideid?: number; guide_title?: string; guide_revisionid?: number; doc_title?: string },
  detachFrom?: { quizid: number; guideid: number },
): Promise<void> {
  const sets = ['released_date = :date'];
  const values: Record<string, unknown> = { ':revision': link.quiz_revisionid, ':date': link.date };
  if (quizFields.doc_title !== undefined) {
    sets.push('doc_titles = list_append(if_not_exists(doc_titles, :empty), :title)');
    Object.assign(values, { ':empty': [], ':title': [quizFields.doc_title] });
  }
  if (quizFields.guideid !== undefined) {
    sets.push('guideid = :guideid', 'guide_title = :guide_title', 'guide_revisionid = :guide_revisionid');
    Object.assign(values, {
      ':guideid': quizFields.guideid,
      ':guide_title': quizFields.guide_title,
      ':guide_revisionid': quizFields.guide_revisionid,
    });
  }
  const writes: LabelledWrite[] = [
    {
      label: 'link',
      item: {
        Put: {
          TableName: tableName(),
          Item: {
            ...linkKey(link.doctype, link.docid, link.doc_revisionid),
            entity: 'QuizLink',
            [INDEXES.gsi1.pk]: `QUIZLINKS#${link.quizid}`,
            [INDEXES.gsi1.sk]: `${link.doctype}#${padId(link.docid)}#${padId(link.doc_revisionid)}`,
            ...link,
          } satisfies z.input<typeof quizLinkItemSchema>,
        },
      },
    },
    {
      label: 'quiz',
      item: {
        Update: {
          TableName: tableName(),
          Key: quizKey(link.quizid),
          UpdateExpression: `SET ${sets.join(', ')}`,
          // The revision read is still the current one: a concurrent re-import would be lost.
          ConditionExpression: 'attribute_exists(pk) AND quiz_revisionid = :revision',
          ExpressionAttributeValues: values,
        },
      },
    },
  ];
  if (link.doctype === 'guide') {
    // The guide names its quiz too (its lists read it from the guide item), on condition that
    // the revision the link names is still the guide's current one.
    writes.push({
      label: 'guide',
      item: {
        Update: {
          TableName: tableName(),
          Key: guideKey(link.docid),
          UpdateExpression: 'SET attached_quiz = :attached, version = version + :one',
          ConditionExpression: 'attribute_exists(pk) AND revisionid = :docrevision',
          ExpressionAttributeValues: {
            ':attached': { quizid: link.quizid, quiz_revisionid: link.quiz_revisionid },
            ':one': 1,
            ':docrevision': link.doc_revisionid,
          },
        },
      },
    });
  }
  if (detachFrom && detachFrom.quizid !== link.quizid) {
    writes.push({
      label: 'detach',
      item: {
        Update: {
          TableName: tableName(),
          Key: quizKey(detachFrom.quizid),
          UpdateExpression: 'SET guideid = :null, guide_title = :null, guide_revisionid = :null',
          ConditionExpression: 'attribute_exists(pk) AND guideid = :guideid',
          ExpressionAttributeValues: { ':null': null, ':guideid': detachFrom.guideid },
        },
      },
    });
  }
  await transactWrite(writes);
}

/** The attachment in force for a document: its newest quiz revision link, if any. */
export async function currentQuizLink(doctype: QuizDoctype, docid: number): Promise<QuizLinkRecord | undefined> {
  const item = await queryFirst({ partition: `QUIZLINK#${doctype}#${docid}`, sortPrefix: 'REV#', descending: true });
  return item ? recordFrom(quizLinkItemSchema, item) : undefined;
}

/** The documents a quiz was ever attached to (distinct; a quiz is attached to few). */
export async function documentsOfQuiz(quizid: number): Promise<Array<{ doctype: QuizDoctype; docid: number }>> {
  const items = await queryAll({ index: INDEXES.gsi1, partition: `QUIZLINKS#${quizid}` });
  const seen = new Map<string, { doctype: QuizDoctype; docid: number }>();
  for (const link of items.map(recordsOf(quizLinkItemSchema))) {
    const doc = { doctype: link.doctype, docid: link.docid };
    seen.set(`${doc.doctype}#${doc.docid}`, doc);
  }
  return [...seen.values()];
}

/** A guide read with the projection of guideTitles (the keys come with every projected read). */
const guideTitleSchema = z.pick(guideItemSchema, { pk: true, sk: true, guideid: true, title: true });

/**
 * Current titles of guides, read with a projection (quiz lists sort and search by guide title;
 * a quiz list names at most MAX_QUIZZES guides).
 */
export async function guideTitles(guideids: number[]): Promise<Map<number, string>> {
  const guides = await batchGetInOrder([...new Set(guideids)].map(guideKey), { projection: ['guideid', 'title'] });
  return new Map(guides.map(recordsOf(guideTitleSchema)).map((guide) => [guide.guideid, guide.title]));
}
