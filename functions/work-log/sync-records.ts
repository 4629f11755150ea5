/**
 * The journal's actions that make records of other areas (docs/offline.md): a comment, a
 * quiz's submitted answers, a trainee's signoff request. Each calls the same create as its
 * route (shared/content/comments.ts, shared/training/quiz-answers.ts,
 * shared/training/signoff-requests.ts), with the action's `client_guid` as the record's, so
 * it is made once however often the journal is sent (decision 224).
 */
import * as z from 'zod/mini';
import { ConflictError, ValidationError } from '../../shared/domain/errors.ts';
import type { Caller, SignedInAuth } from '../../shared/domain/caller.ts';
import { clientGuidHolder } from '../../shared/db/client-guid.ts';
import { getQuiz } from '../../shared/db/entities/quiz.ts';
import { createComment } from '../../shared/content/comments.ts';
import { QuizLockedError, submitAnswers } from '../../shared/training/quiz-answers.ts';
import { requestSignoff } from '../../shared/training/signoff-requests.ts';
import { commentCreateData, quizSubmitData, signoffRequestData, type SyncAction } from './sync.schemas.ts';
import { type Outcome, SyncConflict } from './sync-outcome.ts';

/** The action's data as its schema says, else `invalid` naming the first field wrong. */
function dataOf<S extends z.ZodMiniType>(schema: S, action: SyncAction): z.output<S> {
  const parsed = z.safeParse(schema, action.data ?? {});
  if (parsed.success) return parsed.data;
  const [issue] = parsed.error.issues;
  const field = ['data', ...issue.path.map(String)].join('.');
  throw ValidationError.field(field, 'invalid', `${field}: ${issue.message}`);
}

const made = (created: boolean) =>
  created ? { status: 'applied' as const, http_status: 201 } : { status: 'already_applied' as const, http_status: 200 };

export async function commentCreate(caller: Caller, action: SyncAction): Promise<Outcome> {
  const { context, contextid, ...body } = dataOf(commentCreateData, action);
  const { created, record } = await createComment(
    caller,
    context,
    contextid,
    { ...body, client_guid: action.client_guid },
    async (comment) => comment,
  );
  return { ...made(created), commentid: record.commentid };
}

/**
 * Submits the answers, once. With `revisionid` (the quiz revision the device answered), a quiz
 * changed meanwhile is a `new_release` conflict: the answers are not graded against questions
 * the user never saw. A quiz locked meanwhile (attempts used up online) is `quiz_locked`.
 */
export async function quizSubmit(caller: Caller, action: SyncAction): Promise<Outcome> {
  const data = dataOf(quizSubmitData, action);
  const held = await clientGuidHolder('quiz_answer', caller.userid, action.client_guid);
  if (!held && action.revisionid !== undefined) {
    const quiz = await getQuiz(data.quizid);
    if (quiz && quiz.quiz_revisionid !== action.revisionid)
      throw new SyncConflict(
        'new_release',
        `The quiz changed while the device was offline (revision ${action.revisionid} answered, ` +
          `${quiz.quiz_revisionid} now): answer it again`,
        { quiz_revisionid: quiz.quiz_revisionid },
      );
  }
  try {
    const { created, record } = await submitAnswers(caller, { ...data, client_guid: action.client_guid });
    return { ...made(created), quiz_sessionid: record.quiz_sessionid };
  } catch (error) {
    if (error instanceof QuizLockedError) throw new SyncConflict('quiz_locked', error.message, undefined, 403);
    throw error;
  }
}

/** The trainee's request, once; an open request for the stage already (made online) is `state_changed`. */
export async function signoffRequest(auth: SignedInAuth, action: SyncAction): Promise<Outcome> {
  const data = dataOf(signoffRequestData, action);
  try {
    const { created, record } = await requestSignoff(
      auth,
      { ...data, client_guid: action.client_guid },
      async (request) => request,
    );
    return { ...made(created), signoff_requestid: record.signoff_requestid };
  } catch (error) {
    // Another request of this stage is open: the one the conflict names is the record as it is.
    if (error instanceof ConflictError && !error.message.includes('client_guid'))
      throw new SyncConflict('state_changed', error.message, error.current);
    throw error;
  }
}
