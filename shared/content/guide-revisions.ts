/**
 * Every change to a guide goes through `changeGuide`: read the guide, apply the change, write
 * it with a condition on the version read, in one transaction with the new revision's snapshot,
 * the featured link, search tokens and whatever step writes the change brings. When the write
 * loses a race it starts again from a fresh read; a client's `?revisionid=` that is no longer
 * current gives 409 with the current guide. So concurrent writers never lose each other's
 * changes, and of N writers naming one revision exactly one succeeds.
 */
import { ConflictError, NotFoundError, StaleRevisionError } from '../domain/errors.ts';
import { FEATURED_FLAG } from '../domain/guide-rules.ts';
import { searchTokens } from '../domain/search-tokens.ts';
import { nowSeconds } from '../clock.ts';
import { nextRevisionId } from '../db/revisions.ts';
import { searchTokenWrites } from '../db/search-index.ts';
import { retryOnLostRace, labelsIn } from '../db/retry.ts';
import { transactWrite, type LabelledWrite } from '../db/transactions.ts';
import { noteNewDocumentRevision } from './approval-supersession.ts';
import { getGuide, guideCreate, guideDelete, guideReplace, type GuideRecord } from '../db/entities/guide.ts';
import { deleteStepItems, getStepSnapshots, type StepRecord } from '../db/entities/step.ts';
import { getGuideSnapshot, guideSnapshotPut, type GuideSnapshot } from '../db/entities/guide-revision.ts';
import {
  authoredLinkDelete,
  authoredLinkPut,
  categoryRefWrites,
  featuredLinkWrite,
} from '../db/entities/guide-link.ts';

/** A write naming a revision: a few retries for transaction conflicts, then 409. */
const NAMED_REVISION_ATTEMPTS = 12;
/** A write for whatever is current (no `?revisionid`): retried until it lands, within a generous bound. */
const UNNAMED_REVISION_ATTEMPTS = 60;

export interface GuideChange {
  guide: GuideRecord;
  /** Step writes etc. that must commit together with the guide. */
  writes?: LabelledWrite[];
}

export interface ChangeOptions {
  /** The client's `?revisionid=`; when given and not current: 409 with `conflictView(current)`. */
  expectedRevision?: number;
  /** Why the revision was made (kept in its snapshot), e.g. "guide.edit", "step.add". */
  reason: string;
  changedBy: number | null;
  /** False for changes that are not content (access grants): same revisionid, no snapshot. */
  newRevision?: boolean;
  conflictView: (current: GuideRecord) => Promise<unknown>;
}

/** Search words of a guide: its title, bounded so a write stays one transaction. */
export function guideSearchTokens(title: string): string[] {
  return searchTokens(title).slice(0, 24);
}

/** Only the guide item's version guard failing is a lost race; other labelled conditions are real refusals. */
const guideRace = labelsIn('guide');

/**
 * Applies `change` to the current guide and commits it as a new revision; returns the new record.
 * Without `expectedRevision` the change is meant for whatever is current, so it retries (with
 * backoff, a generous bound) until it lands; with one, only the named revision may be replaced.
 */
export async function changeGuide(
  guideid: number,
  options: ChangeOptions,
  change: (current: GuideRecord) => GuideChange | Promise<GuideChange>,
): Promise<GuideRecord> {
  const newRevision = options.newRevision !== false;
  const record = await retryOnLostRace(
    async () => {
      const current = await getGuide(guideid, { consistent: true });
      if (!current) throw new NotFoundError(`No guide with guideid ${guideid}`);
      if (options.expectedRevision !== undefined && current.revisionid !== options.expectedRevision) {
        throw new StaleRevisionError(current.revisionid, await options.conflictView(current), 'guide');
      }
      const changed = await change(current);
      const now = nowSeconds();
      const record: GuideRecord = {
        ...changed.guide,
        guideid,
        version: current.version + 1,
        revisionid: newRevision ? await nextRevisionId() : current.revisionid,
        modified_date: newRevision ? now : current.modified_date,
        search_tokens: guideSearchTokens(changed.guide.title),
      };
      const writes: LabelledWrite[] = [guideReplace(record, current.version), ...(changed.writes ?? [])];
      if (newRevision)
        writes.push(guideSnapshotPut(record, { reason: options.reason, changed_by: options.changedBy, date: now }));
      const wasStarred = current.flags.includes(FEATURED_FLAG);
      const starred = record.flags.includes(FEATURED_FLAG);
      if (wasStarred !== starred) writes.push(featuredLinkWrite(record, starred));
      writes.push(...categoryRefWrites(current, record));
      writes.push(...searchTokenWrites('GUIDE', guideid, current.search_tokens, record.search_tokens));
      await transactWrite(writes);
      return record;
    },
    {
      raceLabels: guideRace,
      attempts: options.expectedRevision === undefined ? UNNAMED_REVISION_ATTEMPTS : NAMED_REVISION_ATTEMPTS,
      onExhausted: async () => {
        const current = await getGuide(guideid, { consistent: true });
        if (!current) throw new NotFoundError(`No guide with guideid ${guideid}`);
        throw new ConflictError(
          'The guide kept changing while this change was applied; try again',
          await options.conflictView(current),
        );
      },
    },
  );
  // New content supersedes an open approval request for the old revision.
  if (newRevision) await noteNewDocumentRevision('guide', guideid, record.revisionid, options.changedBy);
  return record;
}

/** Stores a new guide (its first revision): the item, its snapshot, author link, featured link, search words. */
export async function insertGuide(guide: GuideRecord, changedBy: number): Promise<void> {
  await transactWrite([
    guideCreate(guide),
    guideSnapshotPut(guide, { reason: 'guide.create', changed_by: changedBy, date: guide.created_date }),
    // A token's guide has no author account to list it under (decision 244).
    ...(guide.service_author ? [] : [authoredLinkPut(guide)]),
    ...(guide.flags.includes(FEATURED_FLAG) ? [featuredLinkWrite(guide, true)] : []),
    ...categoryRefWrites(null, guide),
    ...searchTokenWrites('GUIDE', guide.guideid, [], guide.search_tokens),
  ]);
}

/**
 * Deletes a guide named at its current revision: the item and its links at once, then its step
 * items. Revision snapshots stay (releases name them).
 */
export async function deleteGuide(
  guideid: number,
  options: Pick<ChangeOptions, 'conflictView'> & { expectedRevision: number },
): Promise<void> {
  const deleted = await retryOnLostRace(
    async () => {
      const current = await getGuide(guideid, { consistent: true });
      if (!current) throw new NotFoundError(`No guide with guideid ${guideid}`);
      if (current.revisionid !== options.expectedRevision) {
        throw new StaleRevisionError(current.revisionid, await options.conflictView(current), 'guide');
      }
      await transactWrite([
        guideDelete(guideid, current.version),
        ...(current.service_author ? [] : [authoredLinkDelete(current)]),
        ...(current.flags.includes(FEATURED_FLAG) ? [featuredLinkWrite(current, false)] : []),
        ...categoryRefWrites(current, null),
        ...searchTokenWrites('GUIDE', guideid, current.search_tokens, []),
      ]);
      return current;
    },
    {
      raceLabels: guideRace,
      attempts: NAMED_REVISION_ATTEMPTS,
      message: 'The guide kept changing while it was being deleted; try again',
    },
  );
  await deleteStepItems(deleted.steps.map((ref) => ref.stepid));
}

/**
 * Makes a new revision of a guide without changing its content (e.g. a quiz was attached and
 * the pairing must name a guide revision of its own). Returns the new revisionid.
 */
export async function createGuideRevision(
  guideid: number,
  reason: string,
  changedBy: number | null = null,
): Promise<number> {
  const record = await changeGuide(
    guideid,
    { reason, changedBy, conflictView: async (current) => current },
    (current) => ({ guide: current }),
  );
  return record.revisionid;
}

/** A guide as it was at a revision, with its steps as they were then; undefined if no such revision. */
export async function getGuideRevision(
  guideid: number,
  revisionid: number,
): Promise<{ guide: GuideSnapshot; steps: StepRecord[] } | undefined> {
  const guide = await getGuideSnapshot(guideid, revisionid);
  if (!guide) return undefined;
  return { guide, steps: await getStepSnapshots(guide.steps) };
}
