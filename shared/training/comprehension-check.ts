/**
 * The comprehension check at signing (docs/competency.md "Comprehension and decline", decision
 * 304): when the release has a comprehension quiz, the signer must have passed it — a submitted,
 * passing session, not invalidated, finished after they were asked — or the signature is 403.
 */
import { ForbiddenError } from '../domain/errors.ts';
import { getComprehensionQuiz } from '../db/entities/acknowledgement-comprehension.ts';
import { listAllUserSessions } from '../db/entities/quiz-session.ts';
import type { AcknowledgementRecord } from '../db/entities/acknowledgement.ts';

/** Whether the person passed the quiz since `since` (one Query of their sessions). */
export async function passedSince(userid: number, quizid: number, since: number): Promise<boolean> {
  const sessions = await listAllUserSessions(userid);
  return sessions.some(
    (session) =>
      session.quizid === quizid &&
      session.submitted === 1 &&
      session.invalidated === 0 &&
      session.passed === true &&
      session.end_date !== null &&
      session.end_date >= since,
  );
}

export async function assertComprehensionPassed(ack: AcknowledgementRecord): Promise<void> {
  const tied = await getComprehensionQuiz(ack.releaseid);
  if (!tied) return;
  if (await passedSince(ack.userid, tied.quizid, ack.created_date)) return;
  throw new ForbiddenError(
    `Pass the comprehension quiz ${tied.quizid} of this release first (POST /quizzes/sessions/submit); ` +
      'the signature is taken once you have passed it',
    { comprehension_quizid: tied.quizid },
  );
}
