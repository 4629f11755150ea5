/**
 * A new revision of a document supersedes its open approval request: the signatures collected
 * were for content that is no longer current. Content writes (changeGuide, the wiki service)
 * call `noteNewDocumentRevision` after committing a revision; it costs one GetItem when the
 * document has no open request. Signing checks the document's revision in its own transaction
 * as well, so even if this hook never ran, no signature can land on superseded content.
 * A request opened by a release supersedes that pending release in the same transaction: it
 * never becomes current (shared/content/release-approval.ts).
 */
import { AUDIT_CHAIN_LABELS, appendAudit, auditSubject } from '../db/audit.ts';
import { nowSeconds } from '../clock.ts';
import { labelsIn, retryOnLostRace } from '../db/retry.ts';
import {
  getOpenRequest,
  getRequest,
  requestUpdateWrites,
  type ApprovalRequestRecord,
} from '../db/entities/approval-request.ts';
import type { Doctype } from '../domain/doctypes.ts';
import { log } from '../observability/logger.ts';
import { releaseOutcomeWrites } from './release-approval.ts';

const MAX_ATTEMPTS = 5;

/**
 * Ends a pending request as superseded by `newRevisionid` (null: the document is gone), on the
 * audit trail of the document (and of the user whose change caused it). Returns the request as
 * it ends up (a request that ended meanwhile is returned as it is).
 */
export async function supersedeApprovalRequest(
  request: ApprovalRequestRecord,
  newRevisionid: number | null,
  actorUserid: number | null,
): Promise<ApprovalRequestRecord> {
  let current: ApprovalRequestRecord | undefined = request;
  return retryOnLostRace(
    async (attempt) => {
      // Someone signed meanwhile: look again (it may have ended on its own, or be gone).
      if (attempt > 0) current = await getRequest(request.approval_requestid);
      if (current?.status !== 'pending') return current ?? request;
      const now = nowSeconds();
      const superseded: ApprovalRequestRecord = {
        ...current,
        status: 'superseded',
        current_stage: null,
        completed_date: now,
        superseded_by_revisionid: newRevisionid,
      };
      const release = await releaseOutcomeWrites(current, superseded, now);
      await appendAudit(
        {
          action: 'approval.superseded',
          actor_userid: actorUserid,
          subjects: [
            auditSubject.document(current.doctype, current.docid),
            ...(actorUserid !== null ? [auditSubject.user(actorUserid)] : []),
          ],
          details: {
            approval_requestid: current.approval_requestid,
            revisionid: current.revisionid,
            new_revisionid: newRevisionid,
            old_status: 'pending',
            new_status: 'superseded',
            ...(release.release
              ? { releaseid: release.release.releaseid, release_status: release.release.status }
              : {}),
          },
        },
        [...requestUpdateWrites(current, superseded), ...release.writes],
      );
      return superseded;
    },
    {
      attempts: MAX_ATTEMPTS,
      raceLabels: labelsIn('request', 'release:', ...AUDIT_CHAIN_LABELS),
      onExhausted: async () => (await getRequest(request.approval_requestid)) ?? request,
    },
  );
}

/** Supersedes the document's open request unless it is for `newRevisionid` itself. */
export async function supersedeOpenApproval(
  doctype: Doctype,
  docid: number,
  newRevisionid: number | null,
  actorUserid: number | null,
): Promise<void> {
  const open = await getOpenRequest(doctype, docid);
  if (!open || open.revisionid === newRevisionid) return;
  const request = await getRequest(open.approval_requestid);
  if (request) await supersedeApprovalRequest(request, newRevisionid, actorUserid);
}

/**
 * The hook for content writes, called after a new revision is committed. The revision is saved
 * whatever happens here, so a failure is logged, not thrown (signing re-checks the revision).
 */
export async function noteNewDocumentRevision(
  doctype: Doctype,
  docid: number,
  revisionid: number,
  actorUserid: number | null,
): Promise<void> {
  try {
    await supersedeOpenApproval(doctype, docid, revisionid, actorUserid);
  } catch (error) {
    log().error('Could not supersede the open approval request', { doctype, docid, revisionid, error: error as Error });
  }
}
