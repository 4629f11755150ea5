/**
 * CONTRACT with the courses code (docs/quizzes.md "Stages"): the quiz facts of a course stage.
 * `required`: the document's current revision has an enabled quiz attached (the newest guide or
 * wiki quiz revision of the document names it). `state` is the user's progress on that quiz:
 * passed > locked (attempts used up) > in_progress (an open session) > failed (submitted, not
 * passed) > not_started. Two reads: the document's attachment, then the quiz and the user's
 * progress together.
 */
import type { QuizState } from '../domain/stage-status.ts';
import { currentQuizLink, getQuiz } from '../db/entities/quiz.ts';
import { getProgress, type QuizProgressRecord } from '../db/entities/quiz-session.ts';

export function quizStateOf(progress: QuizProgressRecord | undefined): QuizState {
  if (!progress) return 'not_started';
  if (progress.passed) return 'passed';
  if (progress.locked) return 'locked';
  if (progress.active_sessionid !== null) return 'in_progress';
  return progress.attempts > 0 ? 'failed' : 'not_started';
}

export async function quizStateFor(
  userid: number,
  doctype: 'guide' | 'wiki',
  docid: number,
): Promise<{ required: boolean; state: QuizState }> {
  const link = await currentQuizLink(doctype, docid);
  if (!link) return { required: false, state: 'not_started' };
  const [quiz, progress] = await Promise.all([getQuiz(link.quizid), getProgress(userid, link.quizid)]);
  if (!quiz?.enabled) return { required: false, state: 'not_started' };
  return { required: true, state: quizStateOf(progress) };
}
