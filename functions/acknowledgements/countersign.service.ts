/**
 * A supervisor's countersignature on chosen steps (docs/competency.md "Countersignature"): the
 * author marks steps of a guide's release; a person who signs that release's acknowledgement is
 * then complete only once a qualified supervisor — an Admin, or someone holding level 4 (current)
 * in every skill of the guide, never the person — countersigns it with their password. Until then
 * the release does not carry the person's completion over. Each change is one transaction with
 * its audit record and event.
 */
import { nowSeconds } from '../../shared/clock.ts';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../shared/domain/errors.ts';
import type { AuthContext, Caller } from '../../shared/domain/caller.ts';
import { AUDIT_CHAIN_LABELS, appendAudit, auditSubject } from '../../shared/db/audit.ts';
import { labelsIn, retryOnLostRace } from '../../shared/db/retry.ts';
import { getGuideSnapshot } from '../../shared/db/entities/guide-revision.ts';
import { getRelease } from '../../shared/db/entities/release.ts';
import {
  acknowledgedVersionWrite,
  acknowledgementCountersignWrite,
  acknowledgedVersionAfter,
  getAcknowledgement,
  getCountersignSteps,
  putCountersignSteps,
  type AcknowledgementRecord,
} from '../../shared/db/entities/acknowledgement.ts';
import { outboxPuts } from '../../shared/db/entities/outbox.ts';
import { domainEvent } from '../../shared/domain/events/catalogue.ts';
import { assertTrainerOnGuide } from '../../shared/training/trainer-authority.ts';
import { refreshDocumentProgress } from '../../shared/training/progress.ts';
import { acknowledgementView } from '../../shared/views/competency-views.ts';
import { assertManagesDocument } from './acknowledgements.service.ts';
import { proveSigner, refuseImpersonatedSignature } from '../../shared/accounts/e-signature.ts';
import { getUser } from '../../shared/db/entities/user.ts';
import type { CountersignInput, CountersignStepsInput } from './acknowledgements.schemas.ts';

async function guideRelease(releaseid: number) {
  const release = await getRelease(releaseid);
  if (!release) throw new NotFoundError(`No release with releaseid ${releaseid}`);
  return release;
}

export async function getSteps(caller: Caller, releaseid: number) {
  const release = await guideRelease(releaseid);
  await assertManagesDocument(caller, release.doctype, release.docid);
  const marked = await getCountersignSteps(releaseid);
  return { releaseid, stepids: marked?.stepids ?? [] };
}

/** Marks the steps (of the release's revision) that need a countersignature; [] clears the mark. */
export async function putSteps(caller: Caller, releaseid: number, input: CountersignStepsInput) {
  const release = await guideRelease(releaseid);
  await assertManagesDocument(caller, release.doctype, release.docid);
  if (release.doctype !== 'guide')
    throw ValidationError.field('stepids', 'not_a_guide', 'Only the steps of a guide release can be marked');
  const snapshot = await getGuideSnapshot(release.docid, release.revisionid);
  const inRelease = new Set((snapshot?.steps ?? []).map((step) => step.stepid));
  const stepids = [...new Set(input.stepids)];
  const missing = stepids.find((stepid) => !inRelease.has(stepid));
  if (missing !== undefined)
    throw ValidationError.field('stepids', 'not_found', `Release ${releaseid} has no step ${missing}`);
  const before = await getCountersignSteps(releaseid);
  await putCountersignSteps({ releaseid, stepids, userid: caller.userid, date: nowSeconds() });
  await appendAudit({
    action: 'acknowledgement.countersign_steps_set',
    actor_userid: caller.userid,
    subjects: [auditSubject.document(release.doctype, release.docid)],
    details: { releaseid, old: before?.stepids ?? [], new: stepids },
  });
  return { releaseid, stepids };
}

/** The countersignature of a person's signed acknowledgement, by a qualified supervisor. */
export async function countersign(
  caller: Caller,
  auth: AuthContext,
  releaseid: number,
  userid: number,
  input: CountersignInput,
  sourceIp: string,
) {
  const release = await guideRelease(releaseid);
  const found = await getAcknowledgement(releaseid, userid);
  if (!found) throw new NotFoundError(`User ${userid} was not asked to acknowledge release ${releaseid}`);
  if (caller.userid === userid) throw new ForbiddenError('Nobody countersigns their own acknowledgement');
  await assertTrainerOnGuide(caller, 'countersign', release.docid, nowSeconds());
  const state = (ack: AcknowledgementRecord) => {
    if (ack.status !== 'signed' || !ack.countersign_stepids?.length)
      throw new ConflictError(
        'This acknowledgement awaits no countersignature',
        acknowledgementView(ack, nowSeconds()),
      );
    if (ack.countersignature)
      throw new ConflictError('This acknowledgement is already countersigned', acknowledgementView(ack, nowSeconds()));
  };
  state(found);
  refuseImpersonatedSignature(auth);
  const { authenticated_by, spend } = await proveSigner(await getUser(caller.userid), {
    password: input.password,
    sourceIp,
  });
  const done = await retryOnLostRace(
    async () => {
      const ack = await getAcknowledgement(releaseid, userid);
      if (!ack) throw new NotFoundError(`User ${userid} was not asked to acknowledge release ${releaseid}`);
      state(ack);
      const now = nowSeconds();
      const next: AcknowledgementRecord = {
        ...ack,
        countersignature: {
          userid: caller.userid,
          date: now,
          meaning: 'countersigned',
          method: 'password',
          comment: input.comment ?? '',
          authenticated_by,
        },
      };
      const acked = await acknowledgedVersionAfter(ack, now);
      await appendAudit(
        {
          action: 'acknowledgement.countersigned',
          actor_userid: caller.userid,
          subjects: [
            auditSubject.user(userid),
            auditSubject.user(caller.userid),
            auditSubject.document(ack.doctype, ack.docid),
          ],
          details: {
            releaseid,
            version: ack.version,
            stepids: ack.countersign_stepids ?? [],
            meaning: 'countersigned',
            method: 'password',
            authenticated_by,
            comment: input.comment ?? '',
          },
        },
        [
          acknowledgementCountersignWrite(next),
          ...(acked ? [acknowledgedVersionWrite(acked)] : []),
          ...spend,
          ...outboxPuts([
            domainEvent('acknowledgement.countersigned', `ACK#${releaseid}#${userid}`, {
              releaseid,
              doctype: ack.doctype,
              docid: ack.docid,
              userid,
              supervisor_userid: caller.userid,
              stepids: ack.countersign_stepids ?? [],
            }),
          ]),
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
  await refreshDocumentProgress(userid, release.doctype, release.docid);
  return acknowledgementView(done, nowSeconds());
}
