/**
 * `acknowledgement.sign_intent` (decision 252): the intent to acknowledge a release, made offline.
 * Recorded once with the device's time, audited, `pending`; the signature is made online by
 * `POST /acknowledgements/intents/{client_guid}/confirm` (the sign route's code, with this guid).
 */
import { ConflictError, NotFoundError, ValidationError } from '../../shared/domain/errors.ts';
import type { Caller } from '../../shared/domain/caller.ts';
import { requestFingerprint } from '../../shared/domain/client-guid.ts';
import { TransactionConditionFailed } from '../../shared/db/transactions.ts';
import { appendAudit, auditSubject } from '../../shared/db/audit.ts';
import { getSignIntent, signIntentPut } from '../../shared/db/entities/sign-intent.ts';
import { getRelease } from '../../shared/db/entities/release.ts';
import {
  acknowledgementsAll,
  getAcknowledgement,
  userPendingCollection,
  type AcknowledgementRecord,
} from '../../shared/db/entities/acknowledgement.ts';
import { isNewerVersion } from '../../shared/domain/stage-status.ts';
import { acknowledgementView } from '../../shared/views/competency-views.ts';
import { nowSeconds } from '../../shared/clock.ts';
import type { SyncAction } from './sync.schemas.ts';
import { Skip } from './sync-outcome.ts';

export async function acknowledgementIntent(caller: Caller, action: SyncAction) {
  const releaseid = action.data?.releaseid;
  if (typeof releaseid !== 'number' || !Number.isInteger(releaseid) || releaseid < 1)
    throw ValidationError.field('data.releaseid', 'missing_field', 'releaseid is required');
  // What the device meant, never the server's times: a resend finds the same intent.
  const fingerprint = requestFingerprint({
    type: action.type,
    client_guid: action.client_guid,
    userid: caller.userid,
    releaseid,
    device_time: action.device_time,
  });
  const existing = await getSignIntent(caller.userid, action.client_guid);
  if (existing) {
    if (existing.fingerprint !== fingerprint) throw new Skip('guid_reused', 'This client_guid named another intent');
    const status = existing.state === 'pending' ? ('pending' as const) : ('already_applied' as const);
    return { status, http_status: 200 };
  }
  const release = await getRelease(releaseid);
  const ack = release ? await getAcknowledgement(releaseid, caller.userid) : undefined;
  if (!release || !ack) throw new NotFoundError(`You were not asked to acknowledge release ${releaseid}`);
  const now = nowSeconds();
  // Signed online meanwhile (from another device), or settled by a completion: nothing to sign.
  if (ack.status !== 'pending')
    throw new ConflictError(`This acknowledgement is ${ack.status} already`, acknowledgementView(ack, now));
  try {
    await appendAudit(
      {
        action: 'acknowledgement.intent_recorded',
        actor_userid: caller.userid,
        subjects: [auditSubject.user(caller.userid), auditSubject.document(release.doctype, release.docid)],
        details: { client_guid: action.client_guid, releaseid, version: ack.version, device_time: action.device_time },
      },
      [
        signIntentPut({
          client_guid: action.client_guid,
          userid: caller.userid,
          releaseid,
          approved: true,
          comments: '',
          device_time: action.device_time,
          recorded_date: now,
          fingerprint,
          state: 'pending',
          confirmed_date: null,
        }),
      ],
    );
  } catch (error) {
    // The same intent sent twice at once: recorded by the other send.
    if (!(error instanceof TransactionConditionFailed && error.failedLabels.includes('sign-intent'))) throw error;
  }
  return { status: 'pending' as const, http_status: 202, ...(await newerRelease(caller.userid, ack, now)) };
}

/**
 * A newer release of the same document asked meanwhile: the intent still stands (this release's
 * acknowledgement stays pending and signable), and the device learns that another one awaits.
 */
async function newerRelease(userid: number, ack: AcknowledgementRecord, now: number) {
  const pending = await acknowledgementsAll(userPendingCollection(userid));
  const newer = pending
    .filter((each) => each.doctype === ack.doctype && each.docid === ack.docid && isNewerVersion(each, ack))
    .sort((a, b) => b.major - a.major || b.minor - a.minor)[0];
  if (!newer) return {};
  return {
    conflict: {
      reason: 'new_release' as const,
      message: `Release ${newer.version} of this document was released since: acknowledge it too`,
      current: acknowledgementView(newer, now),
    },
  };
}
