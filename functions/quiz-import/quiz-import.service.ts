/**
 * POST /quizzes/import: a SurveyJS definition checked with survey-core (survey-analysis.ts)
 * becomes a quiz and its first quiz revision, with the graded questions recorded so sessions
 * grade without survey-core.
 */
import { parseJsonText } from '../../shared/domain/json-text.ts';
import { ValidationError } from '../../shared/domain/errors.ts';
import type { Caller } from '../../shared/domain/caller.ts';
import { nextId } from '../../shared/db/counters.ts';
import { nowSeconds } from '../../shared/clock.ts';
import { nextRevisionId } from '../../shared/db/revisions.ts';
import { TransactionConditionFailed } from '../../shared/db/transactions.ts';
import { insertQuiz, MAX_QUIZZES, type QuizRecord, type QuizRevisionRecord } from '../../shared/db/entities/quiz.ts';
import { quizDefinitionView } from '../../shared/views/quiz-views.ts';
import type { ImportInput } from './quiz-import.schemas.ts';

/** Largest definition stored (a DynamoDB item holds 400 KB). */
export const MAX_DEFINITION_BYTES = 200_000;
export const DEFAULT_PASS_THRESHOLD = 80;

/** The quiz's own settings; everything else in a body without `definition` is the survey. */
const SETTINGS = ['definition', 'category', 'pass_threshold', 'max_attempts', 'enabled', 'quiz_title'] as const;

function definitionOf(input: ImportInput): Record<string, unknown> {
  let definition = input.definition;
  if (definition === undefined) {
    if (!('pages' in input) && !('elements' in input)) {
      throw ValidationError.field('definition', 'missing_field', 'definition (the SurveyJS JSON) is required');
    }
    definition = Object.fromEntries(
      Object.entries(input).filter(([key]) => !(SETTINGS as readonly string[]).includes(key)),
    );
  }
  if (typeof definition === 'string') {
    const parsed = parseJsonText(definition, 'definition');
    if (!parsed) throw ValidationError.field('definition', 'invalid', 'definition is not valid JSON');
    definition = parsed.value;
  }
  if (!definition || typeof definition !== 'object' || Array.isArray(definition)) {
    throw ValidationError.field('definition', 'invalid', 'definition must be a SurveyJS survey JSON object');
  }
  return definition as Record<string, unknown>;
}

export async function importQuiz(caller: Caller, input: ImportInput) {
  // survey-core (1.4 MB) loads on the first import, from a file of its own in the deployed asset
  // (package.json "imports", decision 155): not even parsed when the process starts.
  const { analyzeSurvey } = await import('#survey-analysis');
  const analysis = analyzeSurvey(definitionOf(input));
  if (analysis.problems.length > 0) {
    throw new ValidationError(
      `The survey definition is not a usable quiz: ${analysis.problems[0].message}`,
      analysis.problems,
    );
  }
  const definitionJson = JSON.stringify(analysis.definition);
  if (Buffer.byteLength(definitionJson) > MAX_DEFINITION_BYTES) {
    throw ValidationError.field(
      'definition',
      'too_large',
      `The definition is larger than ${MAX_DEFINITION_BYTES} bytes`,
    );
  }
  const title = input.quiz_title?.trim() || analysis.title;
  if (!title)
    throw ValidationError.field('quiz_title', 'missing_field', 'Give quiz_title, or a title in the survey definition');
  const now = nowSeconds();
  const [quizid, revisionid] = await Promise.all([nextId('quiz'), nextRevisionId()]);
  const quiz: QuizRecord = {
    quizid,
    quiz_revisionid: revisionid,
    title,
    category: input.category?.trim() ?? '',
    pass_threshold: input.pass_threshold ?? DEFAULT_PASS_THRESHOLD,
    max_attempts: input.max_attempts ?? null,
    enabled: input.enabled ?? true,
    userid: caller.userid,
    created_date: now,
    modified_date: now,
    question_count: analysis.questions.length,
    sessions_submitted: 0,
    guideid: null,
    guide_title: null,
    guide_revisionid: null,
    doc_titles: [],
    released_date: null,
  };
  const revision: QuizRevisionRecord = {
    quizid,
    quiz_revisionid: revisionid,
    title,
    definition_json: definitionJson,
    questions: analysis.questions,
    pass_threshold: quiz.pass_threshold,
    max_attempts: quiz.max_attempts,
    userid: caller.userid,
    date: now,
  };
  try {
    await insertQuiz(quiz, revision);
  } catch (error) {
    if (error instanceof TransactionConditionFailed && error.failedLabels.includes('count')) {
      throw ValidationError.field(
        'definition',
        'too_many',
        `A site holds at most ${MAX_QUIZZES} quizzes; delete some first`,
      );
    }
    throw error;
  }
  return quizDefinitionView(quiz, revision, { withAnswers: true });
}
