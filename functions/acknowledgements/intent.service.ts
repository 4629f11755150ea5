/**
 * Confirming an acknowledgement's offline intent (decision 252): the device recorded
 * `acknowledgement.sign_intent` through `POST /user/sync`; the signer, signed in, proves
 * themselves now and the signature is made by the sign route's own code, under the intent's
 * client guid (so the sign route sent with that guid answers this same signature). The audit
 * record carries the device's time and the intent's guid beside its server date; the intent is
 * confirmed in the signature's transaction.
 */
import { nowSeconds } from '../../shared/clock.ts';
import { ConflictError, NotFoundError } from '../../shared/domain/errors.ts';
import type { SignedInAuth } from '../../shared/domain/caller.ts';
import { refuseImpersonatedSignature } from '../../shared/accounts/e-signature.ts';
import { getSignIntent, signIntentConfirmWrite } from '../../shared/db/entities/sign-intent.ts';
import { transactWrite, TransactionConditionFailed } from '../../shared/db/transactions.ts';
import { signOnce } from './acknowledgements.service.ts';

export async function confirmIntent(auth: SignedInAuth, guid: string, password: string | undefined, sourceIp: string) {
  refuseImpersonatedSignature(auth);
  const userid = auth.user.userid;
  const intent = await getSignIntent(userid, guid);
  // A signoff request's intent is confirmed on its own route.
  if (intent?.releaseid === undefined)
    throw new NotFoundError(`No intent to acknowledge of yours with client_guid ${guid}`);
  if (intent.state !== 'pending') throw new ConflictError('This intent was confirmed already', intent);
  const details = {
    intent_client_guid: guid,
    device_time: intent.device_time,
    intent_recorded_date: intent.recorded_date,
  };
  const { created, record } = await signOnce(
    auth.user,
    auth,
    intent.releaseid,
    { password, meaning: 'acknowledged', client_guid: guid },
    sourceIp,
    { details, writes: [signIntentConfirmWrite(userid, guid, nowSeconds())] },
  );
  // Signed already by the sign route under this same guid: that signature stands for the intent.
  if (!created) await confirmAfter(userid, guid);
  return record;
}

async function confirmAfter(userid: number, guid: string) {
  try {
    await transactWrite([signIntentConfirmWrite(userid, guid, nowSeconds())]);
  } catch (error) {
    if (!(error instanceof TransactionConditionFailed)) throw error;
  }
}
