/**
 * Signing one's acknowledgement of a release with one's password (docs/competency.md): the use
 * case behind POST /acknowledgements/{releaseid}/sign, an offline intent's confirmation and the
 * learner's home page's sign form (functions/pages, decision 299), so that all three sign alike.
 */
import { nowSeconds } from '../clock.ts';
import { auditActor, type AuthContext, type Caller } from '../domain/caller.ts';
import { ConflictError, NotFoundError } from '../domain/errors.ts';
import { domainEvent } from '../domain/events/catalogue.ts';
import { proveSigner, refuseImpersonatedSignature } from '../accounts/e-signature.ts';
import { AUDIT_CHAIN_LABELS, appendAudit, auditSubject } from '../db/audit.ts';
import { createOnce } from '../db/client-guid.ts';
import {
  acknowledgedVersionAfter,
  acknowledgementSignWrites,
  getAcknowledgement,
  getCountersignSteps,
  type AckDoctype,
  type AcknowledgementRecord,
} from '../db/entities/acknowledgement.ts';
import { outboxPuts } from '../db/entities/outbox.ts';
import { getRelease, type ReleaseRecord } from '../db/entities/release.ts';
import { getUser } from '../db/entities/user.ts';
import { labelsIn, retryOnLostRace } from '../db/retry.ts';
import type { LabelledWrite } from '../db/transactions.ts';
import { acknowledgementView } from '../views/competency-views.ts';
import { assertComprehensionPassed } from './comprehension-check.ts';
import { refreshDocumentProgress } from './progress.ts';

/** What a signature takes: the password (left out by a single-sign-on signer) and the device's guid. */
export interface SignInput {
  password?: string;
  meaning?: 'acknowledged';
  client_guid?: string;
}

export async function requireRelease(releaseid: number): Promise<ReleaseRecord & { doctype: AckDoctype }> {
  const release = await getRelease(releaseid);
  if (!release) throw new NotFoundError(`No release with releaseid ${releaseid}`);
  return release;
}

/**
 * Signs the caller's acknowledgement (meaning `acknowledged`) with their password: the
 * acknowledgement (on condition it is pending), the newest acknowledged version (forward only)
 * and the audit record (the person's and the document's chains), in one transaction. Then the
 * person's stored course progress on the document is refreshed (the completion carries over).
 */
export async function sign(caller: Caller, auth: AuthContext, releaseid: number, input: SignInput, sourceIp: string) {
  return (await signOnce(caller, auth, releaseid, input, sourceIp)).record;
}

/** What an offline intent adds to the signature it stands for (decision 252). */
export interface IntentSignature {
  /** Beside the server's date in the audit record: the device's time and the intent's guid. */
  details: Record<string, unknown>;
  /** The intent's confirmation, in the signature's transaction. */
  writes: LabelledWrite[];
}

/** The sign route's code; `created` false: the guid already named this signature (answered again). */
export async function signOnce(
  caller: Caller,
  auth: AuthContext,
  releaseid: number,
  input: SignInput,
  sourceIp: string,
  intent?: IntentSignature,
) {
  return createOnce({
    kind: 'acknowledgement',
    userid: caller.userid,
    guid: input.client_guid,
    // What was signed, never the password: a resend with the same guid is the same signature.
    request: { releaseid, meaning: 'acknowledged' },
    existing: async (ref) => {
      const ack = await getAcknowledgement(Number(ref), caller.userid);
      if (!ack) throw new NotFoundError(`You were not asked to acknowledge release ${ref}`);
      return acknowledgementView(ack, nowSeconds());
    },
    make: (claim) => signNow(caller, auth, releaseid, input, sourceIp, claim, intent),
  });
}

async function signNow(
  caller: Caller,
  auth: AuthContext,
  releaseid: number,
  input: SignInput,
  sourceIp: string,
  claim: ((ref: number) => LabelledWrite) | undefined,
  intent: IntentSignature | undefined,
) {
  refuseImpersonatedSignature(auth);
  const release = await requireRelease(releaseid);
  const pending = await getAcknowledgement(releaseid, caller.userid);
  if (!pending) throw new NotFoundError(`You were not asked to acknowledge release ${releaseid}`);
  if (pending.status !== 'pending') throw notPending(pending);
  // A comprehension quiz tied to the release is passed before the signature (decision 304).
  await assertComprehensionPassed(pending);
  const { authenticated_by, spend } = await proveSigner(await getUser(caller.userid), {
    password: input.password,
    sourceIp,
  });
  const signed = await retryOnLostRace(
    async () => {
      const ack = await getAcknowledgement(releaseid, caller.userid);
      if (!ack) throw new NotFoundError(`You were not asked to acknowledge release ${releaseid}`);
      if (ack.status !== 'pending') throw notPending(ack);
      const now = nowSeconds();
      // Steps marked for a supervisor's countersignature: the signature is complete only with it.
      const countersignStepids = (await getCountersignSteps(releaseid))?.stepids ?? [];
      const next: AcknowledgementRecord = {
        ...ack,
        ...(countersignStepids.length > 0 ? { countersign_stepids: countersignStepids } : {}),
        status: 'signed',
        signed_date: now,
        signature: { meaning: 'acknowledged', method: 'password', authenticated_by },
        ...(input.client_guid !== undefined ? { client_guid: input.client_guid } : {}),
      };
      // Awaiting a countersignature, the person's version moves forward only when it comes.
      const acked = countersignStepids.length === 0 ? await acknowledgedVersionAfter(ack, now) : null;
      await appendAudit(
        {
          action: 'acknowledgement.signed',
          ...auditActor(caller),
          subjects: [auditSubject.user(caller.userid), auditSubject.document(release.doctype, release.docid)],
          details: {
            releaseid,
            version: ack.version,
            meaning: 'acknowledged',
            method: 'password',
            authenticated_by,
            due_date: ack.due_date,
            ...intent?.details,
          },
        },
        [
          ...acknowledgementSignWrites(next, acked),
          ...(claim ? [claim(releaseid)] : []),
          ...(intent?.writes ?? []),
          ...outboxPuts(countersignStepids.length > 0 ? [countersignRequested(next)] : []),
          ...spend,
        ],
      );
      return next;
    },
    {
      attempts: 6,
      raceLabels: labelsIn('acknowledgement', 'acknowledged-version', ...AUDIT_CHAIN_LABELS),
      message: 'This acknowledgement was being changed; try again',
    },
  );
  await refreshDocumentProgress(caller.userid, release.doctype, release.docid);
  return acknowledgementView(signed, nowSeconds());
}

/** 409 with the acknowledgement: signed already, or settled by a completion (superseded). */
export function notPending(ack: AcknowledgementRecord): ConflictError {
  const message =
    ack.status === 'signed'
      ? 'This release is already acknowledged'
      : 'You completed this document on this release or a newer one: there is nothing to acknowledge';
  return new ConflictError(message, acknowledgementView(ack, nowSeconds()));
}

function countersignRequested(ack: AcknowledgementRecord) {
  return domainEvent('acknowledgement.countersign_requested', `ACK#${ack.releaseid}#${ack.userid}`, {
    releaseid: ack.releaseid,
    doctype: ack.doctype,
    docid: ack.docid,
    userid: ack.userid,
    stepids: ack.countersign_stepids ?? [],
  });
}
