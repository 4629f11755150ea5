/**
 * After a user's quiz result changes (submit, force-invalidation), the course stages pointing
 * at the quiz's documents are recomputed (contract with the courses code: refreshDocumentProgress
 * is a cheap no-op when the user has no stage on the document). The result is committed by then,
 * so a failed refresh is logged, not answered as a failed submission (which the client would
 * retry against a closed session); the next refresh of the stage catches up.
 */
import { refreshDocumentProgress } from '../../shared/training/progress.ts';
import { documentsOfQuiz } from '../../shared/db/entities/quiz.ts';
import { log } from '../../shared/observability/logger.ts';

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
