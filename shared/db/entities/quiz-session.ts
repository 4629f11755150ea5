/**
 * Quiz sessions (one attempt of one user at one quiz) and each user's progress on a quiz.
 * - Session: pk QUIZSESSION#<id> / sk SESSION; in gsi1 QUIZSESSIONS (every session) and gsi2
 *   QUIZSESSIONS#USER#<userid> (a user's), both sorted by padded id. A link per quiz,
 *   pk QUIZSESSIONS#QUIZ#<quizid> / sk <padded id> (with the userid), lists a quiz's sessions.
 * - Progress: pk USER#<userid> / sk QUIZSTATE#<padded quizid>: attempts, passed, locked and the
 *   open session (`active_sessionid`). It is the uniqueness item of the open session: a session
 *   is created only in a transaction that sets `active_sessionid` on condition that there is
 *   none and the quiz is not locked, so concurrent saves can never open two sessions; submit and
 *   cancel clear it on condition that it still names their session.
 */
import { outboxPut } from './outbox.ts';
import { domainEvent } from '../../domain/events/catalogue.ts';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../client.ts';
import { getItem } from '../items.ts';
import { isConditionFailed } from '../retry.ts';
import { padId } from '../keys.ts';
import { parseStored, recordFrom, type StoredRecord, type FilledRecord } from '../stored-item.ts';
import { INDEXES } from '../table.ts';
import { batchGetInOrder } from '../batch.ts';
import { queryAll, type PageQuery } from '../paging.ts';
import { transactWrite, type LabelledWrite } from '../transactions.ts';
import type { QuestionResult } from '../../domain/quiz-grading.ts';
import * as z from 'zod/mini';

const flag = z.union([z.literal(0), z.literal(1)]);

/** A QuizSession as sessionCreateWrites puts it and the response / submit / cancel / invalidate updates leave it. */
export const quizSessionItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.literal('SESSION'),
  entity: z.literal('QuizSession'),
  gsi1pk: z.literal('QUIZSESSIONS'),
  gsi1sk: z.string(),
  gsi2pk: z.string(),
  gsi2sk: z.string(),
  quiz_sessionid: z.int().check(z.positive()),
  quizid: z.int().check(z.positive()),
  quiz_revisionid: z.int(),
  quiz_title: z.string(),
  userid: z.int().check(z.positive()),
  /** The SurveyJS response data as JSON text. */
  response_json: z.string(),
  start_date: z.number(),
  modified_date: z.number(),
  end_date: z.nullable(z.number()),
  submitted: flag,
  cancelled: flag,
  /** Set when an Admin force-invalidated the user's results. */
  invalidated: flag,
  /** Which submission of the user's this was (1-based); null until submitted. */
  attempt: z.nullable(z.int()),
  score: z.nullable(z.number()),
  correct_count: z.nullable(z.int()),
  question_count: z.nullable(z.int()),
  passed: z.nullable(z.boolean()),
  pass_threshold: z.nullable(z.number()),
  results: z.nullable(
    z.array(z.object({ name: z.string(), title: z.string(), answered: z.boolean(), correct: z.boolean() })),
  ),
});

export type QuizSessionRecord = StoredRecord<typeof quizSessionItemSchema>;

export const quizSessionLinkItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.string(),
  entity: z.literal('QuizSessionLink'),
  quiz_sessionid: z.int().check(z.positive()),
  userid: z.int().check(z.positive()),
});

/** A QuizProgress item: openSession SETs its core, the submit and invalidation the rest. */
export const quizProgressItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.string(),
  entity: z.literal('QuizProgress'),
  userid: z.int().check(z.positive()),
  quizid: z.int().check(z.positive()),
  /** Submissions counted towards the attempt limit (reset by invalidation). */
  attempts: z.optional(z.int()),
  passed: z.optional(z.boolean()),
  locked: z.optional(z.boolean()),
  active_sessionid: z.optional(z.nullable(z.int())),
  last_sessionid: z.optional(z.nullable(z.int())),
  best_score: z.optional(z.nullable(z.number())),
  invalidated_date: z.optional(z.nullable(z.number())),
});

/** The progress as read (progressFromItem): fields never set yet read as their start values. */
export type QuizProgressRecord = FilledRecord<
  typeof quizProgressItemSchema,
  'attempts' | 'passed' | 'locked' | 'active_sessionid' | 'last_sessionid' | 'best_score' | 'invalidated_date'
>;

export function sessionKey(sessionid: number) {
  return { pk: `QUIZSESSION#${sessionid}`, sk: 'SESSION' } as const;
}

export function progressKey(userid: number, quizid: number) {
  return { pk: `USER#${userid}`, sk: `QUIZSTATE#${padId(quizid)}` };
}

/** Every session, newest first when descending. */
export const allSessionsCollection: PageQuery = { index: INDEXES.gsi1, partition: 'QUIZSESSIONS' };

export function userSessionsCollection(userid: number): PageQuery {
  return { index: INDEXES.gsi2, partition: `QUIZSESSIONS#USER#${userid}` };
}

/** Links to a quiz's sessions (items carry quiz_sessionid and userid only). */
export function quizSessionsCollection(quizid: number): PageQuery {
  return { partition: `QUIZSESSIONS#QUIZ#${quizid}` };
}

export function sessionFromItem(item: Record<string, unknown>): QuizSessionRecord {
  return recordFrom(quizSessionItemSchema, item);
}

/** A link of a quiz's session list (quizSessionsCollection): the session and its user. */
export function sessionLinkFromItem(item: Record<string, unknown>): { quiz_sessionid: number; userid: number } {
  const { quiz_sessionid, userid } = parseStored(quizSessionLinkItemSchema, item);
  return { quiz_sessionid, userid };
}

/** What a session item and a session link both carry: the order the session lists merge by. */
const sessionRefSchema = z.object({ pk: z.string(), sk: z.string(), quiz_sessionid: z.int().check(z.positive()) });

/** The session id of a session item or a session link (the session lists' merge order). */
export function sessionidOf(item: Record<string, unknown>): number {
  return parseStored(sessionRefSchema, item).quiz_sessionid;
}

/** The progress as read: fields never set yet read as their start values. */
function progressFromItem(item: Record<string, unknown>): QuizProgressRecord {
  const stored = recordFrom(quizProgressItemSchema, item);
  return {
    userid: stored.userid,
    quizid: stored.quizid,
    attempts: stored.attempts ?? 0,
    passed: stored.passed === true,
    locked: stored.locked === true,
    active_sessionid: stored.active_sessionid ?? null,
    last_sessionid: stored.last_sessionid ?? null,
    best_score: stored.best_score ?? null,
    invalidated_date: stored.invalidated_date ?? null,
  };
}

export async function getProgress(
  userid: number,
  quizid: number,
  options: { consistent?: boolean } = {},
): Promise<QuizProgressRecord | undefined> {
  const item = await getItem(progressKey(userid, quizid), { consistent: options.consistent });
  return item ? progressFromItem(item) : undefined;
}

/** Every quiz a user has progress on (bounded by the quizzes they took). */
export async function listUserProgress(userid: number): Promise<QuizProgressRecord[]> {
  const items = await queryAll({ partition: `USER#${userid}`, sortPrefix: 'QUIZSTATE#' });
  return items.map(progressFromItem);
}

export async function getSession(
  sessionid: number,
  options: { consistent?: boolean } = {},
): Promise<QuizSessionRecord | undefined> {
  const item = await getItem(sessionKey(sessionid), { consistent: options.consistent });
  return item ? sessionFromItem(item) : undefined;
}

export async function getSessions(sessionids: number[]): Promise<QuizSessionRecord[]> {
  return (await batchGetInOrder(sessionids.map(sessionKey))).map(sessionFromItem);
}

/** Every session of a user (for invalidation: bounded by the attempts they made). */
export async function listAllUserSessions(userid: number): Promise<QuizSessionRecord[]> {
  return (await queryAll(userSessionsCollection(userid))).map(sessionFromItem);
}

/**
 * Opens a session: the session, its quiz link, and the progress item's `active_sessionid`,
 * all or nothing. Label 'progress' fails when a session is already open or the quiz is locked
 * for the user (the old progress item says which).
 */
export async function openSession(session: QuizSessionRecord): Promise<void> {
  await transactWrite([
    {
      label: 'progress',
      item: {
        Update: {
          TableName: tableName(),
          Key: progressKey(session.userid, session.quizid),
          UpdateExpression:
            'SET active_sessionid = :sid, userid = :userid, quizid = :quizid, attempts = ' +
            'if_not_exists(attempts, :zero), passed = if_not_exists(passed, :false), locked = ' +
            'if_not_exists(locked, :false), entity = :entity',
          ConditionExpression:
            'attribute_not_exists(active_sessionid) AND (attribute_not_exists(locked) OR locked = :false)',
          ExpressionAttributeValues: {
            ':sid': session.quiz_sessionid,
            ':userid': session.userid,
            ':quizid': session.quizid,
            ':zero': 0,
            ':false': false,
            ':entity': 'QuizProgress',
          },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      },
    },
    ...sessionCreateWrites(session),
  ]);
}

/** The session item and its quiz link (openSession's writes besides the progress; the explicit-id path). */
export function sessionCreateWrites(session: QuizSessionRecord): LabelledWrite[] {
  return [
    {
      label: 'session',
      item: {
        Put: {
          TableName: tableName(),
          Item: {
            ...sessionKey(session.quiz_sessionid),
            entity: 'QuizSession',
            [INDEXES.gsi1.pk]: 'QUIZSESSIONS',
            [INDEXES.gsi1.sk]: padId(session.quiz_sessionid),
            [INDEXES.gsi2.pk]: `QUIZSESSIONS#USER#${session.userid}`,
            [INDEXES.gsi2.sk]: padId(session.quiz_sessionid),
            ...session,
          } satisfies z.input<typeof quizSessionItemSchema>,
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    },
    {
      label: 'quiz-link',
      item: {
        Put: {
          TableName: tableName(),
          Item: {
            pk: `QUIZSESSIONS#QUIZ#${session.quizid}`,
            sk: padId(session.quiz_sessionid),
            entity: 'QuizSessionLink',
            quiz_sessionid: session.quiz_sessionid,
            userid: session.userid,
          } satisfies z.input<typeof quizSessionLinkItemSchema>,
        },
      },
    },
  ];
}

/**
 * A progress item written whole, as the session changes leave it (the explicit-id path: a
 * migration rebuilds it from the user's sessions). Absent fields are left out, as never set.
 */
export function progressPutWrite(
  progress: Partial<QuizProgressRecord> & { userid: number; quizid: number },
): LabelledWrite {
  const fields = Object.fromEntries(Object.entries(progress).filter(([, value]) => value !== undefined));
  return {
    label: 'progress',
    item: {
      Put: {
        TableName: tableName(),
        Item: {
          ...progressKey(progress.userid, progress.quizid),
          ...fields,
          userid: progress.userid,
          quizid: progress.quizid,
          entity: 'QuizProgress',
        } satisfies z.input<typeof quizProgressItemSchema>,
      },
    },
  };
}

/** Replaces an open session's response; undefined when it is no longer open. */
export async function updateResponse(
  sessionid: number,
  response_json: string,
  now: number,
): Promise<QuizSessionRecord | undefined> {
  try {
    const result = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: sessionKey(sessionid),
        UpdateExpression: 'SET response_json = :response, modified_date = :now',
        ConditionExpression: 'attribute_exists(pk) AND submitted = :zero AND cancelled = :zero',
        ExpressionAttributeValues: { ':response': response_json, ':now': now, ':zero': 0 },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return sessionFromItem(result.Attributes!);
  } catch (error) {
    if (isConditionFailed(error)) return undefined;
    throw error;
  }
}

/** Closes the open session in the progress item (label 'progress': it no longer names it). */
function closeProgress(
  userid: number,
  quizid: number,
  sessionid: number,
  extra?: { sets: string[]; values: Record<string, unknown>; condition: string },
): LabelledWrite {
  return {
    label: 'progress',
    item: {
      Update: {
        TableName: tableName(),
        Key: progressKey(userid, quizid),
        UpdateExpression: `${extra ? `SET ${extra.sets.join(', ')} ` : ''}REMOVE active_sessionid`,
        ConditionExpression: `active_sessionid = :sid${extra ? ` AND ${extra.condition}` : ''}`,
        ExpressionAttributeValues: { ':sid': sessionid, ...(extra?.values ?? {}) },
      },
    },
  };
}

function openSessionUpdate(sessionid: number, sets: string[], values: Record<string, unknown>): LabelledWrite {
  return {
    label: 'session',
    item: {
      Update: {
        TableName: tableName(),
        Key: sessionKey(sessionid),
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: 'attribute_exists(pk) AND submitted = :zero AND cancelled = :zero',
        ExpressionAttributeValues: { ':zero': 0, ...values },
      },
    },
  };
}

/**
 * Cancels an open session and frees the user's slot. Labels 'session' / 'progress' fail when it was closed meanwhile.
 */
export async function cancelSession(
  session: Pick<QuizSessionRecord, 'quiz_sessionid' | 'userid' | 'quizid'>,
  now: number,
): Promise<void> {
  await transactWrite([
    openSessionUpdate(session.quiz_sessionid, ['cancelled = :one', 'end_date = :now', 'modified_date = :now'], {
      ':one': 1,
      ':now': now,
    }),
    closeProgress(session.userid, session.quizid, session.quiz_sessionid),
  ]);
}

export interface SubmissionOutcome {
  response_json: string;
  end_date: number;
  attempt: number;
  score: number;
  correct_count: number;
  question_count: number;
  passed: boolean;
  pass_threshold: number;
  results: QuestionResult[];
  /** The progress after this submission. */
  progress: Pick<QuizProgressRecord, 'attempts' | 'passed' | 'locked' | 'best_score'>;
}

/**
 * Stores a graded submission: the session's result, the progress (attempts, passed, locked),
 * and the quiz's submission count, together. `previousAttempts` is the progress read: label
 * 'progress' fails when it moved meanwhile (the caller re-reads and grades again).
 */
export async function submitSession(
  session: Pick<QuizSessionRecord, 'quiz_sessionid' | 'userid' | 'quizid'>,
  previousAttempts: number,
  outcome: SubmissionOutcome,
  quizCountWrite: LabelledWrite,
  /** Writes that stand or fall with the submission (a client guid's claim, decision 224). */
  also: LabelledWrite[] = [],
): Promise<void> {
  await transactWrite([
    openSessionUpdate(
      session.quiz_sessionid,
      [
        'submitted = :one',
        'response_json = :response',
        'end_date = :end',
        'modified_date = :end',
        'attempt = :attempt',
        'score = :score',
        'correct_count = :correct',
        'question_count = :count',
        'passed = :passed',
        'pass_threshold = :threshold',
        'results = :results',
      ],
      {
        ':one': 1,
        ':response': outcome.response_json,
        ':end': outcome.end_date,
        ':attempt': outcome.attempt,
        ':score': outcome.score,
        ':correct': outcome.correct_count,
        ':count': outcome.question_count,
        ':passed': outcome.passed,
        ':threshold': outcome.pass_threshold,
        ':results': outcome.results,
      },
    ),
    closeProgress(session.userid, session.quizid, session.quiz_sessionid, {
      sets: [
        'attempts = :attempts',
        'passed = :progressPassed',
        'locked = :locked',
        'best_score = :best',
        'last_sessionid = :sid',
      ],
      values: {
        ':attempts': outcome.progress.attempts,
        ':progressPassed': outcome.progress.passed,
        ':locked': outcome.progress.locked,
        ':best': outcome.progress.best_score,
        ':previous': previousAttempts,
      },
      condition: 'attempts = :previous',
    }),
    quizCountWrite,
    ...also,
    outboxPut(
      domainEvent('quiz_session.submitted', `QUIZ#${session.quizid}#USER#${session.userid}`, {
        quiz_sessionid: session.quiz_sessionid,
        quizid: session.quizid,
        userid: session.userid,
        attempt: outcome.attempt,
        score: outcome.score,
        passed: outcome.passed,
      }),
    ),
  ]);
}

/**
 * Resets a user's results on some quizzes (attempts, passed, locked; an open session stays
 * open), as writes for one transaction with the audit record.
 */
export function resetProgressWrites(userid: number, quizids: number[], now: number): LabelledWrite[] {
  return quizids.map((quizid) => ({
    label: `progress:${quizid}`,
    item: {
      Update: {
        TableName: tableName(),
        Key: progressKey(userid, quizid),
        UpdateExpression:
          'SET attempts = :zero, passed = :false, locked = :false, best_score = :null, invalidated_date = :now',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':zero': 0, ':false': false, ':null': null, ':now': now },
      },
    },
  }));
}

/** Marks a submitted session's result invalidated (after a reset of the user's progress). */
export async function markSessionInvalidated(sessionid: number): Promise<void> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: sessionKey(sessionid),
        UpdateExpression: 'SET invalidated = :one',
        ConditionExpression: 'attribute_exists(pk) AND submitted = :one',
        ExpressionAttributeValues: { ':one': 1 },
      }),
    );
  } catch (error) {
    if (!isConditionFailed(error)) throw error;
  }
}
