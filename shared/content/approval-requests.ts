/**
 * Opening an approval request for a document's current revision, shared by the two ways in:
 * POST /approvals/requests (asked directly) and a release of a governed document (POST
 * /guides/releases, POST /wikis/{wikiid}/releases), which writes its pending release in the same
 * transaction. The request copies the effective process's stages; the transaction claims the
 * document's one open-request slot and holds only while the document is at that revision.
 * Outcomes are values, not HTTP errors: each caller answers its conflicts with its own body.
 */
import { AUDIT_CHAIN_LABELS, appendAudit, auditSubject } from '../db/audit.ts';
import { labelsIn, retryOnLostRace } from '../db/retry.ts';
import { nextId } from '../db/counters.ts';
import { nowSeconds } from '../clock.ts';
import { TransactionConditionFailed, type LabelledWrite } from '../db/transactions.ts';
import { documentRevisionCheck } from '../db/entities/document-check.ts';
import {
  getOpenRequest,
  getRequest,
  requestCreateWrites,
  type ApprovalRequestRecord,
} from '../db/entities/approval-request.ts';
import { auditActor, type Caller } from '../domain/caller.ts';
import { requireDocument, revisionHash, type DocumentRef } from './documents.ts';
import type { GoverningProcess } from './governing-processes.ts';
import { supersedeApprovalRequest } from './approval-supersession.ts';

const MAX_ATTEMPTS = 5;

export type OpenRequestOutcome =
  | { opened: ApprovalRequestRecord }
  /** The document moved past the revision meanwhile; `document` is as it is now. */
  | { documentChanged: DocumentRef }
  /** A request for this revision is already open. */
  | { alreadyOpen: ApprovalRequestRecord }
  | { busy: true };

/** A new pending request (id taken, revision fingerprinted) for the document's current revision. */
export async function draftApprovalRequest(
  caller: Caller,
  document: DocumentRef,
  governing: GoverningProcess,
  notes: string,
  releaseid: number | null,
): Promise<ApprovalRequestRecord> {
  const hash = await revisionHash(document.doctype, document.docid, document.revisionid);
  if (!hash) throw new Error(`No snapshot of ${document.doctype} ${document.docid} revision ${document.revisionid}`);
  return {
    approval_requestid: await nextId('approval_request'),
    doctype: document.doctype,
    docid: document.docid,
    title: document.title,
    revisionid: document.revisionid,
    revision_hash: hash,
    approval_processid: governing.process.approval_processid,
    process_name: governing.process.name,
    stages: governing.process.stages,
    status: 'pending',
    current_stage: 1,
    signatures: [],
    signer_userids: [],
    requested_by: caller.userid,
    notes: notes.trim(),
    created_date: nowSeconds(),
    completed_date: null,
    superseded_by_revisionid: null,
    releaseid,
    version: 1,
  };
}

/**
 * Writes the request (with `extraWrites`, e.g. its pending release) and its audit records in one
 * transaction. A stale open request for an older revision (the revision hook missed it) is
 * superseded first and the write tried again.
 */
export async function commitApprovalRequest(
  caller: Caller,
  request: ApprovalRequestRecord,
  extraWrites: LabelledWrite[] = [],
): Promise<OpenRequestOutcome> {
  return retryOnLostRace<OpenRequestOutcome>(
    async () => {
      try {
        await appendAudit(
          {
            action: 'approval.requested',
            ...auditActor(caller),
            subjects: [auditSubject.document(request.doctype, request.docid), auditSubject.user(caller.userid)],
            details: {
              approval_requestid: request.approval_requestid,
              approval_processid: request.approval_processid,
              revisionid: request.revisionid,
              revision_hash: request.revision_hash,
              stages: request.stages,
              releaseid: request.releaseid,
              new_status: 'pending',
            },
          },
          [
            ...requestCreateWrites(request),
            documentRevisionCheck(request.doctype, request.docid, request.revisionid),
            ...extraWrites,
          ],
        );
        return { opened: request };
      } catch (error) {
        if (!(error instanceof TransactionConditionFailed)) throw error;
        if (error.failedLabels.includes('document'))
          return { documentChanged: await requireDocument(request.doctype, request.docid) };
        if (!error.failedLabels.includes('open')) throw error;
        const open = await getOpenRequest(request.doctype, request.docid);
        const existing = open ? await getRequest(open.approval_requestid) : undefined;
        if (existing?.status === 'pending' && existing.revisionid === request.revisionid)
          return { alreadyOpen: existing };
        // A request for an older revision that the revision hook did not reach: end it, then try again.
        if (existing) await supersedeApprovalRequest(existing, request.revisionid, caller.userid);
        throw error;
      }
    },
    {
      attempts: MAX_ATTEMPTS,
      raceLabels: labelsIn('open', ...AUDIT_CHAIN_LABELS),
      onExhausted: () => ({ busy: true }),
    },
  );
}
