/**
 * Approval requests and electronic signatures. An editor asks for approval of a document's
 * current revision; the request follows the document's effective process (its stages copied
 * into the request) stage by stage: members of the current stage's team sign (approve or
 * reject, with a reason), each with their password or a single-use signing token bought with
 * it; `quorum` approvals move it on, after the last stage it is approved, one rejection ends it,
 * and a new revision of the document supersedes it. Each signature is written together with
 * the request's new state and its audit records (document and signer chains), on condition
 * that the request is as read and the document is still at the signed revision.
 */
import { auditSubject } from '../../shared/db/audit.ts';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../shared/domain/errors.ts';
import { afterSignature, signingRefusal } from '../../shared/domain/approval-flow.ts';
import { isAdmin, type Caller, type SignedInAuth } from '../../shared/domain/caller.ts';
import { canEditGuide } from '../../shared/content/guide-access.ts';
import { findDocument, requireDocument, revisionHash, type DocumentRef } from '../../shared/content/documents.ts';
import { supersedeApprovalRequest } from '../../shared/content/approval-supersession.ts';
import { commitApprovalRequest, draftApprovalRequest } from '../../shared/content/approval-requests.ts';
import { afterReleaseOutcome, releaseOutcomeWrites } from '../../shared/content/release-approval.ts';
import {
  findSigner,
  issueSigningToken,
  proveSigner,
  type ProvenSigner,
  refuseImpersonatedSignature,
  signerFromToken,
  signForUrl,
  type SignatureMethod,
} from '../../shared/accounts/e-signature.ts';
import { AUDIT_CHAIN_LABELS, appendAudit } from '../../shared/db/audit.ts';
import { labelsIn, retryOnLostRace } from '../../shared/db/retry.ts';
import { nowSeconds } from '../../shared/clock.ts';
import { TransactionConditionFailed } from '../../shared/db/transactions.ts';
import { documentRevisionCheck } from '../../shared/db/entities/document-check.ts';
import { consumeSigningTokenWrite } from '../../shared/db/entities/signing-token.ts';
import { getUser, type UserRecord } from '../../shared/db/entities/user.ts';
import {
  approvedRevisionWrite,
  getRequest,
  listPendingForTeam,
  listRequestedBy,
  requestUpdateWrites,
  type ApprovalRequestRecord,
  type ApprovalSignature,
} from '../../shared/db/entities/approval-request.ts';
import { requestView } from '../../shared/views/approval-views.ts';
import { governingProcesses } from '../../shared/content/governing-processes.ts';
import type { Page } from '../../shared/db/paging.ts';
import type { ApprovalRequestInput, SignInput, SigningTokenInput } from './approvals.schemas.ts';

const MAX_ATTEMPTS = 5;

async function requireRequest(id: number): Promise<ApprovalRequestRecord> {
  const request = await getRequest(id);
  if (!request) throw new NotFoundError(`No approval request with approval_requestid ${id}`);
  return request;
}

function documentRef(document: DocumentRef) {
  return {
    doctype: document.doctype,
    docid: document.docid,
    title: document.title,
    url: document.url,
    revisionid: document.revisionid,
  };
}

function notPending(request: ApprovalRequestRecord, caller: Caller): ConflictError {
  return new ConflictError(
    `Approval request ${request.approval_requestid} is ${request.status}; the body is its current state`,
    requestView(request, caller),
  );
}

// ---------------------------------------------------------------------------------------------
// Requests

export async function create(caller: Caller, input: ApprovalRequestInput, expectedRevision: number | undefined) {
  const document = await requireDocument(input.doctype, input.docid);
  if (document.guide && !canEditGuide(caller, document.guide))
    throw new ForbiddenError('Only those who may edit the guide ask for its approval');
  if (expectedRevision === undefined)
    throw ValidationError.field('revisionid', 'missing_field', 'revisionid (the revision to approve) is required');
  if (expectedRevision !== document.revisionid) {
    throw new ConflictError(
      'The revisionid is not the current one; the body is the document as it is now',
      documentRef(document),
    );
  }
  const [governing] = await governingProcesses(document);
  if (!governing) {
    throw ValidationError.field(
      'docid',
      'no_approval_process',
      `No approval process governs ${input.doctype} ${input.docid}: attach one to its ` +
        `${input.doctype === 'guide' ? 'category' : 'page'} first`,
    );
  }
  const outcome = await commitApprovalRequest(
    caller,
    await draftApprovalRequest(caller, document, governing, input.notes ?? '', null),
  );
  if ('opened' in outcome) return requestView(outcome.opened, caller);
  if ('documentChanged' in outcome)
    throw new ConflictError(
      'The document changed meanwhile; the body is the document as it is now',
      documentRef(outcome.documentChanged),
    );
  if ('alreadyOpen' in outcome) {
    throw new ConflictError(
      `Approval request ${outcome.alreadyOpen.approval_requestid} for this revision is already open; the ` +
        `body is that request`,
      requestView(outcome.alreadyOpen, caller),
    );
  }
  throw new ConflictError('Approval requests for this document kept changing; try again');
}

/** The caller's pending work (requests they may sign now) and the requests they made. */
export async function listForCaller(caller: Caller, page: Page) {
  const window = page.offset + page.limit;
  const perTeam = await Promise.all(caller.teams.map((teamid) => listPendingForTeam(teamid, caller.userid, window)));
  const pending = new Map<number, ApprovalRequestRecord>();
  for (const request of perTeam.flat()) pending.set(request.approval_requestid, request);
  const pendingPage = [...pending.values()]
    .sort((a, b) => b.approval_requestid - a.approval_requestid)
    .slice(page.offset, window);
  const requested = await listRequestedBy(caller.userid, page);
  return {
    pending: pendingPage.map((request) => requestView(request, caller)),
    requested: requested.map((request) => requestView(request, caller)),
  };
}

function mayRead(caller: Caller, request: ApprovalRequestRecord): boolean {
  return (
    isAdmin(caller) ||
    request.requested_by === caller.userid ||
    request.stages.some((stage) => caller.teams.includes(stage.teamid))
  );
}

export async function get(caller: Caller, id: number) {
  const request = await requireRequest(id);
  if (!mayRead(caller, request))
    throw new ForbiddenError('Only the requester, the approver teams and Admins see this request');
  return requestView(request, caller);
}

// ---------------------------------------------------------------------------------------------
// Signatures

function refuseIneligible(request: ApprovalRequestRecord, signer: UserRecord): void {
  const refusal = signingRefusal(request, signer);
  if (refusal) throw new ForbiddenError(refusal);
}

/**
 * POST /approvals/request/sign/{id}/token: the signer's proof (password, or the caller's own
 * fresh step-up) buys a single-use signing token. Someone else who signs through an identity
 * provider is refused here: they sign in on this device at GET /sso/sign_for (decision 238).
 */
export async function issueToken(auth: SignedInAuth, id: number, input: SigningTokenInput, sourceIp: string) {
  const caller = auth.user;
  const request = await requireRequest(id);
  refuseImpersonatedSignature(auth);
  if (request.status !== 'pending') throw notPending(request, caller);
  let proven: ProvenSigner;
  if (input.login === undefined) {
    const self = (await getUser(caller.userid))!;
    refuseIneligible(request, self);
    proven = await proveSigner(self, { password: input.password, sourceIp });
  } else {
    const named = await findSigner(input.login);
    proven = await proveSigner(named, {
      password: input.password,
      sourceIp,
      login: input.login,
      othersDevice: named?.userid === caller.userid ? undefined : signForUrl('approval_request', id),
    });
    refuseIneligible(request, proven.signer);
  }
  const { signer } = proven;
  const token = await issueSigningToken(signer, id, caller.userid, proven.authenticated_by, proven.spend);
  return { ...token, approval_requestid: id, signer: { userid: signer.userid, username: signer.username } };
}

/** The signer and how they proved it: the caller's password or step-up, or a token (possibly someone else's). */
async function authenticateSigner(
  caller: Caller,
  request: ApprovalRequestRecord,
  input: SignInput,
  sourceIp: string,
): Promise<ProvenSigner & { method: SignatureMethod; tokenHash?: string }> {
  if (input.password !== undefined && input.signing_token !== undefined) {
    throw ValidationError.field('signing_token', 'invalid_field', 'Sign with password or signing_token, not both');
  }
  if (input.signing_token !== undefined) {
    const { signer, tokenHash, authenticated_by } = await signerFromToken(
      input.signing_token,
      request.approval_requestid,
    );
    refuseIneligible(request, signer);
    return { signer, method: 'token', authenticated_by, tokenHash, spend: [] };
  }
  const self = (await getUser(caller.userid))!;
  refuseIneligible(request, self);
  // The signature is by the caller: their password, or (an SSO signer) their fresh step-up.
  const proven = await proveSigner(self, { password: input.password, sourceIp });
  return { ...proven, method: 'password' };
}

/** Supersedes a request whose document moved on, and answers 409 with it. */
async function supersededConflict(request: ApprovalRequestRecord, caller: Caller): Promise<ConflictError> {
  const document = await findDocument(request.doctype, request.docid);
  const ended = await supersedeApprovalRequest(request, document?.revisionid ?? null, null);
  return notPending(ended, caller);
}

export async function sign(
  auth: SignedInAuth,
  id: number,
  input: SignInput,
  expectedRevision: number | undefined,
  sourceIp: string,
) {
  const caller = auth.user;
  let request = await requireRequest(id);
  refuseImpersonatedSignature(auth);
  if (request.status !== 'pending') throw notPending(request, caller);
  if (expectedRevision !== undefined && expectedRevision !== request.revisionid) {
    throw new ConflictError(
      `This request is for revision ${request.revisionid}, not ${expectedRevision}; the body is the request`,
      requestView(request, caller),
    );
  }
  const reason = input.reason.trim();
  if (!reason) throw ValidationError.field('reason', 'missing_field', 'A signature states its reason');
  const { signer, method, authenticated_by, tokenHash, spend } = await authenticateSigner(
    caller,
    request,
    input,
    sourceIp,
  );

  const document = await findDocument(request.doctype, request.docid);
  if (!document || document.revisionid !== request.revisionid) throw await supersededConflict(request, caller);
  // The signature binds to the revision's fingerprint as computed now: it must still match.
  const hash = await revisionHash(request.doctype, request.docid, request.revisionid);
  if (hash !== request.revision_hash)
    throw new ConflictError(
      'The stored revision no longer matches its fingerprint; it cannot be signed',
      requestView(request, caller),
    );

  return retryOnLostRace(
    async (attempt) => {
      if (attempt > 0) {
        // Someone else signed first, or another release took the next version: decide again on the request as it is
        // now.
        request = await requireRequest(id);
        if (request.status !== 'pending') throw notPending(request, caller);
        refuseIneligible(request, signer);
      }
      const now = nowSeconds();
      const signature: ApprovalSignature = {
        stage: request.current_stage!,
        userid: signer.userid,
        printed_name: signer.username,
        meaning: input.meaning,
        reason,
        signed_at: now,
        revisionid: request.revisionid,
        revision_hash: request.revision_hash,
        method,
        entered_by_userid: caller.userid,
        authenticated_by,
      };
      const state = afterSignature(request.stages, request, request.signatures, signature);
      const after: ApprovalRequestRecord = {
        ...request,
        ...state,
        signatures: [...request.signatures, signature],
        signer_userids: [...request.signer_userids, signer.userid],
        completed_date: state.status === 'pending' ? null : now,
      };
      // The deciding signature ends the release that opened the request, in the same transaction.
      const release = await releaseOutcomeWrites(request, after, now);
      try {
        await appendAudit(
          {
            action: 'approval.signed',
            actor_userid: signer.userid,
            subjects: [
              auditSubject.document(request.doctype, request.docid),
              auditSubject.user(signer.userid),
              ...(caller.userid !== signer.userid ? [auditSubject.user(caller.userid)] : []),
            ],
            details: {
              approval_requestid: request.approval_requestid,
              ...signature,
              old: { status: request.status, current_stage: request.current_stage },
              new: { status: after.status, current_stage: after.current_stage },
              ...(release.release
                ? {
                    release: {
                      releaseid: release.release.releaseid,
                      status: release.release.status,
                      version: release.release.version,
                    },
                  }
                : {}),
            },
          },
          [
            ...requestUpdateWrites(request, after),
            documentRevisionCheck(request.doctype, request.docid, request.revisionid),
            ...(tokenHash ? [consumeSigningTokenWrite(tokenHash, now)] : []),
            ...(after.status === 'approved' ? [approvedRevisionWrite(after, now)] : []),
            ...release.writes,
            ...spend,
          ],
        );
      } catch (error) {
        if (!(error instanceof TransactionConditionFailed)) throw error;
        if (error.failedLabels.includes('signing-token'))
          throw ValidationError.field(
            'signing_token',
            'invalid_token',
            'The signing token is unknown, already used, expired, or for another request',
          );
        if (error.failedLabels.includes('document'))
          throw await supersededConflict((await getRequest(id)) ?? request, caller);
        throw error;
      }
      await afterReleaseOutcome(release);
      return requestView(after, caller);
    },
    {
      attempts: MAX_ATTEMPTS,
      raceLabels: labelsIn('request', 'version-head:', 'release:', ...AUDIT_CHAIN_LABELS),
      onExhausted: () => {
        throw new ConflictError('Signatures kept arriving at the same time; try again', requestView(request, caller));
      },
    },
  );
}
