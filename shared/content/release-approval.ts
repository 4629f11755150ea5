/**
 * The release side of an approval request opened by a release: the transaction that ends the
 * request (the deciding signature, or a supersession) carries the writes that end its pending
 * release the same way, so the two can never disagree: approved → the release becomes the
 * current one (version taken from the document's version head, moved in that transaction);
 * rejected / superseded → the release keeps that status, without a version, and the earlier
 * release stays current. After the commit, trainees' stored progress is refreshed for a new
 * current release exactly as for an immediate one.
 */
import type { LabelledWrite } from '../db/transactions.ts';
import type { ApprovalRequestRecord } from '../db/entities/approval-request.ts';
import {
  getRelease,
  getVersionHead,
  pendingReleaseEndWrites,
  type ReleaseEnding,
  type ReleaseRecord,
} from '../db/entities/release.ts';
import type { ApprovalStatus } from '../domain/approval-flow.ts';
import { refreshAfterRelease } from '../training/release-refresh.ts';

const ENDINGS: Record<ApprovalStatus, ReleaseEnding | null> = {
  pending: null,
  approved: 'released',
  rejected: 'rejected',
  superseded: 'superseded',
};

export interface ReleaseOutcome {
  writes: LabelledWrite[];
  /** The release as the transaction leaves it; undefined when the request ends no release. */
  release?: ReleaseRecord;
}

/**
 * The writes that end the request's pending release along with a request moving from `before`
 * to `after` (none while it stays pending, or when it was asked for directly). Reads the release
 * and, for an approval, the version head; a head moved meanwhile fails the transaction with a
 * `version-head:` label (read again and retry).
 */
export async function releaseOutcomeWrites(
  before: ApprovalRequestRecord,
  after: ApprovalRequestRecord,
  at: number,
): Promise<ReleaseOutcome> {
  const ending = ENDINGS[after.status];
  if (before.status !== 'pending' || ending === null || after.releaseid === null) return { writes: [] };
  const release = await getRelease(after.releaseid);
  // Only its own request ends a pending release; a release in any other state is left alone.
  if (release?.status !== 'pending_approval' || release.approval_requestid !== after.approval_requestid)
    return { writes: [] };
  const head = await getVersionHead(release.doctype, release.docid);
  const { writes, after: ended } = pendingReleaseEndWrites(release, ending, head, at);
  return { writes, release: ended };
}

/** After the commit: a release that became current may outdate completions (stage strictness). */
export async function afterReleaseOutcome(outcome: ReleaseOutcome): Promise<void> {
  if (outcome.release?.status === 'released') await refreshAfterRelease(outcome.release.doctype, outcome.release.docid);
}
