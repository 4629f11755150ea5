/**
 * A user's quiz answers (docs/quizzes.md): saving them in the open session and submitting
 * them for grading. They live here, not in the quizzes group, because the quiz routes and the
 * offline journal (`POST /user/sync`, decision 225) submit with the same code, exactly once by
 * the submission's `client_guid` (decision 224). A user has at most one open session per quiz;
 * the progress item guards it in DynamoDB (shared/db/entities/quiz-session.ts).
 */
import { parseJsonText } from '../domain/json-text.ts';
import { ForbiddenError, NotFoundError, ValidationError } from '../domain/errors.ts';
import { gradeResponse, malformedAnswers } from '../domain/quiz-grading.ts';
import type { Caller } from '../domain/caller.ts';
import { nextId } from '../db/counters.ts';
import { nowSeconds } from '../clock.ts';
import { TransactionConditionFailed, type LabelledWrite } from '../db/transactions.ts';
import { ClientGuidTaken, clientGuidHolder, createOnce, lostGuidRace } from '../db/client-guid.ts';
import { LostRace, retryOnLostRace } from '../db/retry.ts';
import {
  countSubmissionWrite,
  documentsOfQuiz,
  getQuiz,
  getQuizRevision,
  type QuizRecord,
} from '../db/entities/quiz.ts';
import {
  getProgress,
  getSession,
  openSession,
  submitSession,
  updateResponse,
  type QuizSessionRecord,
} from '../db/entities/quiz-session.ts';
import { log } from '../observability/logger.ts';
import { sessionView, submissionView } from '../views/quiz-views.ts';
import { refreshDocumentProgress } from './progress.ts';

/** What a save or submit sends (the route's body). */
export interface SessionInput {
  quizid: number;
  response_json?: unknown;
  /** Submit: the device's own id of this submission, unique per user (decision 224). */
  client_guid?: string;
}

const MAX_RACE_RETRIES = 8;

/**
 * After a user's quiz result changes (submit, force-invalidation), the course stages pointing
 * at the quiz's documents are recomputed (contract with the courses code: refreshDocumentProgress
 * is a cheap no-op when the user has no stage on the document). The result is committed by then,
 * so a failed refresh is logged, not answered as a failed submission (which the client would
 * retry against a closed session); the next refresh of the stage catches up.
 */
export async function refreshDocumentsOfQuizzes(userid: number, quizids: number[]): Promise<void> {
  const documents = (await Promise.all(quizids.map(documentsOfQuiz))).flat();
  const unique = [...new Map(documents.map((doc) => [`${doc.doctype}#${doc.docid}`, doc])).values()];
  for (const doc of unique) {
    try {
      await refreshDocumentProgress(userid, doc.doctype, doc.docid);
    } catch (error) {
      log().error('Course stage refresh after a quiz result failed', { userid, ...doc, error: error as Error });
    }
  }
}

/** Largest stored response (a DynamoDB item holds 400 KB; results and keys need room). */
export const MAX_RESPONSE_BYTES = 100_000;

/** response_json: an object, or JSON text of one. */
export function parseResponse(raw: unknown): Record<string, unknown> {
  let value = raw;
  if (typeof raw === 'string') {
    const parsed = parseJsonText(raw, 'response_json');
    if (!parsed)
      throw ValidationError.field(
        'response_json',
        'invalid',
        'response_json must be a JSON object (or JSON text of one)',
      );
    value = parsed.value;
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw ValidationError.field(
      'response_json',
      'invalid',
      'response_json must be a JSON object (or JSON text of one)',
    );
  }
  return value as Record<string, unknown>;
}

function serialized(response: Record<string, unknown>): string {
  const text = JSON.stringify(response);
  if (Buffer.byteLength(text) > MAX_RESPONSE_BYTES)
    throw ValidationError.field(
      'response_json',
      'too_large',
      `response_json is larger than ${MAX_RESPONSE_BYTES} bytes`,
    );
  return text;
}

async function requireTakeableQuiz(quizid: number): Promise<QuizRecord> {
  const quiz = await getQuiz(quizid);
  if (!quiz) throw new NotFoundError(`No quiz with quizid ${quizid}`);
  if (!quiz.enabled) throw new ForbiddenError('This quiz is disabled');
  return quiz;
}

/** The attempt limit is used up (403): the journal reports it as a changed state, not lost access. */
export class QuizLockedError extends ForbiddenError {}

const lockedError = () => new QuizLockedError('The quiz is locked for this user: the attempt limit is used up');

/**
 * The caller's open session for the quiz, with `response` stored: updates the open one, or
 * opens one. Concurrent saves meet at the progress item's condition, so exactly one session
 * opens and the others update it.
 */
async function saveResponse(
  caller: Caller,
  quiz: QuizRecord,
  responseText: string,
): Promise<{ session: QuizSessionRecord; created: boolean }> {
  return retryOnLostRace(
    async () => {
      const progress = await getProgress(caller.userid, quiz.quizid, { consistent: true });
      if (progress?.locked) throw lockedError();
      const now = nowSeconds();
      if (progress?.active_sessionid != null) {
        const updated = await updateResponse(progress.active_sessionid, responseText, now);
        if (updated) return { session: updated, created: false };
        throw new LostRace('The open session closed meanwhile');
      }
      const session: QuizSessionRecord = {
        quiz_sessionid: await nextId('quiz_session'),
        quizid: quiz.quizid,
        quiz_revisionid: quiz.quiz_revisionid,
        quiz_title: quiz.title,
        userid: caller.userid,
        response_json: responseText,
        start_date: now,
        modified_date: now,
        end_date: null,
        submitted: 0,
        cancelled: 0,
        invalidated: 0,
        attempt: null,
        score: null,
        correct_count: null,
        question_count: null,
        passed: null,
        pass_threshold: null,
        results: null,
      };
      try {
        await openSession(session);
        return { session, created: true };
      } catch (error) {
        if (error instanceof TransactionConditionFailed && error.oldItems.progress?.locked === true)
          throw lockedError();
        // Another save opened the session first (a lost race): the next attempt updates that one.
        throw error;
      }
    },
    { attempts: MAX_RACE_RETRIES, message: 'Could not save the quiz session: too many concurrent saves; try again' },
  );
}

/** POST /quizzes/sessions/save: 201 with a new session, 200 with the updated open one. */
export async function save(caller: Caller, input: SessionInput) {
  const quiz = await requireTakeableQuiz(input.quizid);
  const responseText = serialized(input.response_json === undefined ? {} : parseResponse(input.response_json));
  const { session, created } = await saveResponse(caller, quiz, responseText);
  return { created, body: sessionView(session, caller.username) };
}

/**
 * POST /quizzes/sessions/submit: grades the open session (after storing `response_json` when
 * given; with no open session and a response, one is opened and submitted at once), counts the
 * attempt, passes or locks, and refreshes the course stages on the quiz's documents.
 */
export async function submit(caller: Caller, input: SessionInput) {
  return (await submitAnswers(caller, input)).record;
}

/** The submit, saying whether it was made now or found under its client guid (the journal's). */
export async function submitAnswers(caller: Caller, input: SessionInput) {
  const { client_guid, ...request } = input;
  return createOnce({
    kind: 'quiz_answer',
    userid: caller.userid,
    guid: client_guid,
    request,
    existing: (ref) => submittedAgain(caller, Number(ref)),
    make: (claim) => submitOnce(caller, input, claim),
  });
}

/** A submission already made under a client guid, answered as its submit answered (decision 224). */
async function submittedAgain(caller: Caller, sessionid: number) {
  const session = await getSession(sessionid, { consistent: true });
  if (!session) throw new NotFoundError(`No quiz session ${sessionid}`);
  const [progress, revision] = await Promise.all([
    getProgress(caller.userid, session.quizid, { consistent: true }),
    getQuizRevision(session.quizid, session.quiz_revisionid),
  ]);
  const attempts = progress?.attempts ?? session.attempt ?? 0;
  const maxAttempts = revision?.max_attempts ?? null;
  return {
    ...submissionView(session, caller.username),
    attempts_used: attempts,
    attempts_remaining: maxAttempts === null ? null : Math.max(0, maxAttempts - attempts),
    quiz_passed: progress?.passed ?? false,
    locked: progress?.locked ?? false,
  };
}

async function submitOnce(caller: Caller, input: SessionInput, claim?: (sessionid: number) => LabelledWrite) {
  const quiz = await requireTakeableQuiz(input.quizid);
  const given = input.response_json === undefined ? undefined : parseResponse(input.response_json);
  const givenText = given === undefined ? undefined : serialized(given);
  const { session, outcome, end, revision, attempts, passed, locked } = await retryOnLostRace(
    async () => {
      const progress = await getProgress(caller.userid, quiz.quizid, { consistent: true });
      // The same submit on another connection may have graded the session this one was about
      // to: its claim commits with the progress read above, so a claim seen now is that one,
      // and no second session is opened for answers already graded.
      if (input.client_guid && (await clientGuidHolder('quiz_answer', caller.userid, input.client_guid)))
        throw new ClientGuidTaken();
      if (progress?.locked) throw lockedError();
      if (progress?.active_sessionid == null) {
        if (givenText === undefined)
          throw ValidationError.field(
            'response_json',
            'missing_field',
            'There is no open session for this quiz: send response_json to submit one',
          );
        await saveResponse(caller, quiz, givenText);
        throw new LostRace('A session was opened for the answers: submit it');
      }
      const session = await getSession(progress.active_sessionid, { consistent: true });
      if (!session || session.submitted || session.cancelled) throw new LostRace('The open session ended meanwhile');
      const revision = await getQuizRevision(session.quizid, session.quiz_revisionid);
      if (!revision) throw new NotFoundError(`No quiz with quizid ${quiz.quizid}`);
      const responseText = givenText ?? session.response_json;
      const data = given ?? parseResponse(session.response_json);
      const malformed = malformedAnswers(revision.questions, data);
      if (malformed.length > 0) {
        throw new ValidationError(
          'Answers to graded questions must be strings, numbers or booleans (arrays of them for checkbox and tagbox)',
          malformed.map((name) => ({
            field: `response_json.${name}`,
            code: 'invalid',
            message: `The answer to "${name}" has the wrong shape`,
          })),
        );
      }
      const grade = gradeResponse(revision.questions, data, revision.pass_threshold);
      const attempts = progress.attempts + 1;
      const passed = progress.passed || grade.passed;
      const locked = !passed && revision.max_attempts !== null && attempts >= revision.max_attempts;
      const best = Math.max(progress.best_score ?? 0, grade.score);
      const end = nowSeconds();
      // What the submission records: written with the progress, and read back as the session.
      const outcome = {
        response_json: responseText,
        end_date: end,
        attempt: attempts,
        score: grade.score,
        correct_count: grade.correct_count,
        question_count: grade.question_count,
        passed: grade.passed,
        pass_threshold: revision.pass_threshold,
        results: grade.results,
      };
      try {
        await submitSession(
          session,
          progress.attempts,
          { ...outcome, progress: { attempts, passed, locked, best_score: best } },
          countSubmissionWrite(quiz.quizid),
          claim ? [claim(session.quiz_sessionid)] : [],
        );
      } catch (error) {
        if (lostGuidRace(error)) throw new ClientGuidTaken();
        if (error instanceof TransactionConditionFailed && error.failedLabels.includes('quiz'))
          throw new NotFoundError(`No quiz with quizid ${quiz.quizid}`);
        throw error;
      }
      return { session, outcome, end, revision, attempts, passed, locked };
    },
    {
      attempts: MAX_RACE_RETRIES,
      message: 'Could not submit the quiz session: too many concurrent changes; try again',
    },
  );
  await refreshDocumentsOfQuizzes(caller.userid, [quiz.quizid]);
  const stored: QuizSessionRecord = { ...session, ...outcome, submitted: 1, modified_date: end };

  return {
    ...submissionView(stored, caller.username),
    attempts_used: attempts,
    attempts_remaining: revision.max_attempts === null ? null : Math.max(0, revision.max_attempts - attempts),
    quiz_passed: passed,
    locked,
  };
}
