/**
 * The acknowledgement facts of the stage rule (docs/stage-status.md row 5) for many trainees and
 * documents: each trainee's newest acknowledged release of each document, and each document's
 * newest release marked as needing retraining. Two BatchGets; modules have neither.
 */
import {
  getAcknowledgedVersions,
  getRetrainingMarks,
  versionOf,
  type AckDoctype,
} from '../db/entities/acknowledgement.ts';
import { docKeyOf, type DocRef } from '../db/entities/training-record.ts';
import type { ReleaseVersion } from '../domain/stage-status.ts';

export interface AcknowledgementFacts {
  /** `userid|doctype#docid` → the newest acknowledged release. */
  acknowledged: Map<string, ReleaseVersion>;
  /** `doctype#docid` → the newest release needing retraining. */
  retraining: Map<string, ReleaseVersion>;
}

export async function acknowledgementFacts(userids: number[], docs: DocRef[]): Promise<AcknowledgementFacts> {
  const released = docs.filter(
    (doc): doc is DocRef & { doctype: AckDoctype } => doc.doctype !== 'external_training_module',
  );
  const [acked, marks] = await Promise.all([
    getAcknowledgedVersions(userids.flatMap((userid) => released.map((doc) => ({ userid, ...doc })))),
    getRetrainingMarks(released),
  ]);
  return {
    acknowledged: new Map(acked.map((record) => [`${record.userid}|${docKeyOf(record)}`, versionOf(record)])),
    retraining: new Map(marks.map((mark) => [docKeyOf(mark), versionOf(mark)])),
  };
}
