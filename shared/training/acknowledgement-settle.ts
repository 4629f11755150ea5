/**
 * A completion settles pending acknowledgements it makes moot (docs/competency.md): an assignee
 * asked to acknowledge a release before finishing the document, who then completes it on that
 * release or a newer one, was trained on it; their pending acknowledgements of the document up to
 * that release become `superseded` (no signature: they leave the pending lists and are never
 * overdue), each with its audit record in one transaction. A signature that came first stays.
 */
import { appendAudit, auditSubject } from '../db/audit.ts';
import { TransactionConditionFailed } from '../db/transactions.ts';
import {
  acknowledgementSupersedeWrite,
  acknowledgementsAll,
  userPendingCollection,
} from '../db/entities/acknowledgement.ts';
import type { CompletionRecord } from '../db/entities/training-record.ts';
import { isNewerVersion } from '../domain/stage-status.ts';
import { nowSeconds } from '../clock.ts';

export async function settleAcknowledgements(completion: CompletionRecord | undefined): Promise<void> {
  if (!completion || completion.end_date === null || completion.release_major === null) return;
  if (completion.doctype === 'external_training_module') return;
  const completed = { major: completion.release_major, minor: completion.release_minor ?? 0 };
  const pending = (await acknowledgementsAll(userPendingCollection(completion.userid))).filter(
    (ack) => ack.doctype === completion.doctype && ack.docid === completion.docid && !isNewerVersion(ack, completed),
  );
  for (const ack of pending) {
    const now = nowSeconds();
    try {
      await appendAudit(
        {
          action: 'acknowledgement.superseded',
          actor_userid: completion.userid,
          subjects: [auditSubject.user(ack.userid), auditSubject.document(ack.doctype, ack.docid)],
          details: {
            releaseid: ack.releaseid,
            version: ack.version,
            completed_release: `${completed.major}.${completed.minor}`,
            course_assignment_stage_completionid: completion.course_assignment_stage_completionid,
          },
        },
        [acknowledgementSupersedeWrite({ ...ack, status: 'superseded', superseded_date: now })],
      );
    } catch (error) {
      // Signed (or settled) meanwhile: nothing left to settle.
      if (!(error instanceof TransactionConditionFailed && error.failedLabels.includes('acknowledgement'))) throw error;
    }
  }
}
