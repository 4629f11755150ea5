/**
 * How quizzes, list entries and sessions look on the wire (docs/quizzes.md): a zod schema per
 * shape (the routes' responses) and the builders typed by them.
 */
import * as z from 'zod/mini';
import type { QuizRecord, QuizRevisionRecord } from '../db/entities/quiz.ts';
import type { QuizSessionRecord } from '../db/entities/quiz-session.ts';

const id = z.int();

/**
 * GET /quizzes/{quizid}: the SurveyJS definition's own keys (any: survey-core defines them)
 * with the quiz's fields alongside.
 */
export const quizDefinitionSchema = z.looseObject({
  quizid: id,
  quiz_revisionid: id,
  quiz_title: z.string(),
  category: z.string(),
  pass_threshold: z.number(),
  max_attempts: z.nullable(z.int()),
  enabled: z.boolean(),
  guideid: z.nullable(id),
  question_count: z.int(),
  created_date: z.int(),
  modified_date: z.int(),
});

/** The spec's Quiz list entry, exactly its fields. */
export const quizListEntrySchema = z.object({
  quizid: id,
  quiz_title: z.string(),
  guideid: z.nullable(id),
  guide_title: z.nullable(z.string()),
  guide_release_version: z.nullable(z.string()),
  quizzes_submitted: z.int(),
  category: z.string(),
  quiz_last_released: z.nullable(z.int()),
});

export const quizSessionSchema = z.object({
  quiz_sessionid: id,
  quizid: id,
  quiz_revisionid: id,
  quiz_title: z.string(),
  userid: id,
  username: z.nullable(z.string()),
  /** The SurveyJS response data as stored (an object; {} when unreadable). */
  response_json: z.unknown(),
  start_date: z.int(),
  modified_date: z.int(),
  end_date: z.nullable(z.int()),
  submitted: z.int(),
  cancelled: z.int(),
  invalidated: z.int(),
  attempt: z.nullable(z.int()),
  score: z.nullable(z.number()),
  passed: z.nullable(z.boolean()),
});

export const submissionSchema = z.object({
  ...quizSessionSchema.shape,
  correct_count: z.nullable(z.int()),
  question_count: z.nullable(z.int()),
  pass_threshold: z.nullable(z.number()),
  results: z.array(z.object({ name: z.string(), title: z.string(), answered: z.boolean(), correct: z.boolean() })),
});

/** POST /quizzes/sessions/submit: the graded submission and where the user stands now. */
export const submitResultSchema = z.object({
  ...submissionSchema.shape,
  attempts_used: z.int(),
  attempts_remaining: z.nullable(z.int()),
  quiz_passed: z.boolean(),
  locked: z.boolean(),
});

/** A quiz attached to a guide or wiki revision (guideid/guide_revisionid or wikiid/wiki_revisionid). */
export const quizAttachmentSchema = z.object({
  quizid: id,
  quiz_revisionid: id,
  doctype: z.enum(['guide', 'wiki']),
  guideid: z.optional(id),
  guide_revisionid: z.optional(id),
  wikiid: z.optional(id),
  wiki_revisionid: z.optional(id),
  date: z.int(),
  /** The guide's revision after the attachment (guides only). */
  revisionid: z.optional(id),
});

export type QuizDefinitionView = z.output<typeof quizDefinitionSchema>;
export type QuizListEntry = z.output<typeof quizListEntrySchema>;
export type QuizSessionView = z.output<typeof quizSessionSchema>;
export type SubmissionView = z.output<typeof submissionSchema>;

/** Removes every `correctAnswer` (the answer key) from a definition, at any depth. */
export function withoutAnswers(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutAnswers);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => key !== 'correctAnswer')
        .map(([key, inner]) => [key, withoutAnswers(inner)]),
    );
  }
  return value;
}

/**
 * GET /quizzes/{quizid}: the SurveyJS definition itself (so survey-core loads it as it is),
 * with `questionOrder` (never the deprecated `questionsOrder`) and the quiz's own fields
 * alongside. The answer key is shown to Authors and Admins only.
 */
export function quizDefinitionView(
  quiz: QuizRecord,
  revision: QuizRevisionRecord,
  options: { withAnswers: boolean },
): QuizDefinitionView {
  const definition = JSON.parse(revision.definition_json) as Record<string, unknown>;
  return {
    ...(options.withAnswers ? definition : (withoutAnswers(definition) as Record<string, unknown>)),
    quizid: quiz.quizid,
    quiz_revisionid: quiz.quiz_revisionid,
    quiz_title: quiz.title,
    category: quiz.category,
    pass_threshold: quiz.pass_threshold,
    max_attempts: quiz.max_attempts,
    enabled: quiz.enabled,
    guideid: quiz.guideid,
    question_count: quiz.question_count,
    created_date: quiz.created_date,
    modified_date: quiz.modified_date,
  };
}

/** The spec's Quiz list entry, exactly its fields. */
export function quizListEntry(
  quiz: QuizRecord,
  guide: { title: string | null; release_version: string | null },
): QuizListEntry {
  return {
    quizid: quiz.quizid,
    quiz_title: quiz.title,
    guideid: quiz.guideid,
    guide_title: guide.title,
    guide_release_version: guide.release_version,
    quizzes_submitted: quiz.sessions_submitted,
    category: quiz.category,
    quiz_last_released: quiz.released_date,
  };
}

function parsedResponse(session: QuizSessionRecord): unknown {
  try {
    return JSON.parse(session.response_json);
  } catch {
    return {};
  }
}

/** A session in lists and save/cancel answers. */
export function sessionView(session: QuizSessionRecord, username: string | null): QuizSessionView {
  return {
    quiz_sessionid: session.quiz_sessionid,
    quizid: session.quizid,
    quiz_revisionid: session.quiz_revisionid,
    quiz_title: session.quiz_title,
    userid: session.userid,
    username,
    response_json: parsedResponse(session),
    start_date: session.start_date,
    modified_date: session.modified_date,
    end_date: session.end_date,
    submitted: session.submitted,
    cancelled: session.cancelled,
    invalidated: session.invalidated ?? 0,
    attempt: session.attempt ?? null,
    score: session.score ?? null,
    passed: session.passed ?? null,
  };
}

/** GET /quizzes/submissions/{sessionid}: the session with its grade, question by question. */
export function submissionView(session: QuizSessionRecord, username: string | null): SubmissionView {
  return {
    ...sessionView(session, username),
    correct_count: session.correct_count,
    question_count: session.question_count,
    pass_threshold: session.pass_threshold,
    results: session.results ?? [],
  };
}
