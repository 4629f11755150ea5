/**
 * The wire shape of an intent to sign made offline (decisions 225, 252): what it answers, the
 * device's and the server's times, and the route that signs it online.
 */
import * as z from 'zod/mini';
import type { SignIntentRecord } from '../db/entities/sign-intent.ts';

export const signIntentSchema = z.object({
  client_guid: z.string(),
  kind: z.enum(['signoff', 'acknowledgement']),
  signoff_requestid: z.nullable(z.int()),
  releaseid: z.nullable(z.int()),
  /** A signoff's answer (null for an acknowledgement). */
  approved: z.nullable(z.boolean()),
  comments: z.nullable(z.string()),
  device_time: z.int(),
  recorded_date: z.int(),
  state: z.enum(['pending', 'confirmed']),
  confirmed_date: z.nullable(z.int()),
  /** The route (under /api/2.0) that signs it, with the signer's password or step-up. */
  confirm_path: z.string(),
});

export type SignIntentView = z.output<typeof signIntentSchema>;

export function signIntentView(intent: SignIntentRecord): SignIntentView {
  const isAcknowledgement = intent.releaseid !== undefined;
  return {
    client_guid: intent.client_guid,
    kind: isAcknowledgement ? 'acknowledgement' : 'signoff',
    signoff_requestid: intent.signoff_requestid ?? null,
    releaseid: intent.releaseid ?? null,
    approved: isAcknowledgement ? null : intent.approved,
    comments: isAcknowledgement ? null : intent.comments,
    device_time: intent.device_time,
    recorded_date: intent.recorded_date,
    state: intent.state,
    confirmed_date: intent.confirmed_date,
    confirm_path: isAcknowledgement
      ? `/acknowledgements/intents/${intent.client_guid}/confirm`
      : `/courses/stage-sign-offs/intents/${intent.client_guid}/confirm`,
  };
}
