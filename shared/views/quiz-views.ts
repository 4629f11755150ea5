/** How quizzes, list entries and sessions look on the wire (docs/quizzes.md). */
import type { QuizRecord, QuizRevisionRecord } from '../db/entities/quiz.ts';
import type { QuizSessionRecord } from '../db/entities/quiz-session.ts';

/** Removes every `correctAnswer` (the answer key) from a definition, at any depth. */
export function withoutAnswers(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutAnswers);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).filter(([key]) => key !== 'correctAnswer').map(([key, inner]) => [key, withoutAnswers(inner)]));
  }
  return value;
}

/**
 * GET /quizzes/{quizid}: the SurveyJS definition itself (so survey-core loads it as it is),
 * with `questionOrder` (never the deprecated `questionsOrder`) and the quiz's own fields
 * alongside. The answer key is shown to Authors and Admins only.
 */
export function quizDefinitionView(quiz: QuizRecord, revision: QuizRevisionRecord, options: { withAnswers: boolean }) {
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

export interface QuizListEntry {
  quizid: number;
  quiz_title: string;
  guideid: number | null;
  guide_title: string | null;
  guide_release_version: string | null;
  quizzes_submitted: number;
  category: string;
  quiz_last_released: number | null;
}

/** The spec's Quiz list entry, exactly its fields. */
export function quizListEntry(quiz: QuizRecord, guide: { title: string | null; release_version: string | null }): QuizListEntry {
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
export function sessionView(session: QuizSessionRecord, username: string | null) {
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
export function submissionView(session: QuizSessionRecord, username: string | null) {
  return {
    ...sessionView(session, username),
    correct_count: session.correct_count,
    question_count: session.question_count,
    pass_threshold: session.pass_threshold,
    results: session.results ?? [],
  };
}
