/**
 * After a user's quiz result changes (submit, force-invalidation), the course stages pointing
 * at the quiz's documents are recomputed (contract with the courses code: refreshDocumentProgress
 * is a cheap no-op when the user has no stage on the document).
 */
import { refreshDocumentProgress } from '../../shared/training/progress.ts';
import { documentsOfQuiz } from '../../shared/db/entities/quiz.ts';

export async function refreshDocumentsOfQuizzes(userid: number, quizids: number[]): Promise<void> {
  const documents = (await Promise.all(quizids.map(documentsOfQuiz))).flat();
  const unique = [...new Map(documents.map((doc) => [`${doc.doctype}#${doc.docid}`, doc])).values()];
  for (const doc of unique) await refreshDocumentProgress(userid, doc.doctype, doc.docid);
}
