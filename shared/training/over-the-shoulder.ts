/**
 * Over-the-shoulder signoff (docs/courses.md "Signoffs"): the person not signed in proves who
 * they are on the signed-in caller's device (their password, or a fresh sign-in at their
 * identity provider: decision 238), and the caller's device gets a single-use finalize token.
 * Shared by the signoffs group (password) and the sso group (the identity provider's callback).
 */
import { appendAudit } from '../db/audit.ts';
import { nowSeconds } from '../clock.ts';
import { ConflictError, ForbiddenError } from '../domain/errors.ts';
import { newToken, sha256Hex } from '../domain/secrets.ts';
import { type AuthenticatedBy, FINALIZE_TOKEN_SECONDS } from '../domain/signature-auth.ts';
import { putFinalizeToken, type SignoffRequestRecord } from '../db/entities/signoff.ts';
import { isMember } from '../db/entities/team.ts';
import { signoffSubjects } from './signoff-requests.ts';

export { FINALIZE_TOKEN_SECONDS };

/** Who may answer a signoff request: a member of its team, never the trainee. */
export async function assertSignoffSigner(request: SignoffRequestRecord, userid: number): Promise<void> {
  if (userid === request.userid) throw new ForbiddenError('A trainee cannot sign their own request');
  if (!(await isMember(request.teamid, userid)))
    throw new ForbiddenError("Only members of the assessment's team sign this request");
}

/**
 * The person present (`personUserid`, proven `authenticatedBy`) and the signed-in caller must be
 * the trainee and a signer, in either order. Answers the finalize token (stored hashed, 5
 * minutes, once) that lets the caller's device record the signer's response.
 */
export async function issueFinalizeToken(
  caller: {
    userid: number;
    impersonatorUserid?: number;
    /** Who the audit record names as actor (auditActor: a site API token by its id); default the caller. */
    actor?: { actor_userid: number | null; actor_tokenid?: string };
  },
  request: SignoffRequestRecord,
  personUserid: number,
  authenticatedBy: AuthenticatedBy,
) {
  const { signoff_requestid } = request;
  if (request.state !== 'requested')
    throw new ConflictError(`Signoff request ${signoff_requestid} is ${request.state}; it cannot be answered`);
  let signer: number;
  if (caller.userid === request.userid) signer = personUserid;
  else if (personUserid === request.userid) signer = caller.userid;
  else
    throw new ForbiddenError(
      'Over-the-shoulder signoff needs the trainee and a signer: one signed in, the other confirming who ' +
        'they are on this device',
    );
  await assertSignoffSigner(request, signer);
  const token = newToken();
  const expires = nowSeconds() + FINALIZE_TOKEN_SECONDS;
  await putFinalizeToken(sha256Hex(token), {
    signoff_requestid,
    caller_userid: caller.userid,
    signer_userid: signer,
    expires,
    authenticated_by: authenticatedBy,
  });
  await appendAudit({
    // The action keeps its name for both proofs; `authenticated_by` says which it was.
    action: 'signoff.password_confirmed',
    ...(caller.actor ?? { actor_userid: caller.userid }),
    impersonator_userid: caller.impersonatorUserid ?? null,
    subjects: signoffSubjects(request),
    details: {
      signoff_requestid,
      confirmed_userid: personUserid,
      signer_userid: signer,
      authenticated_by: authenticatedBy,
      docid: request.docid,
      doctype: request.doctype,
      requested_revisionid: request.doc_revisionid,
    },
  });
  return {
    signoff_requestid,
    signer_userid: signer,
    token,
    expires_in: FINALIZE_TOKEN_SECONDS,
    expires_at: expires,
    finalize: { method: 'PATCH' as const, path: `/courses/stage-sign-offs/responses/${signoff_requestid}/finalize` },
  };
}
