/**
 * Lists the completion events recorded before decision 243 in the site's stage completion
 * history: every account's audit chain (disabled accounts too) is read, and each
 * `training.completed` / `training.invalidated` record gets the listing's index keys. The
 * records themselves (and their hashes) are not changed. Idempotent: a second run sets the same
 * keys again, so an interrupted run is simply run again.
 */
import { addToAuditListing, auditSubject, readAuditChain } from '../../../shared/db/audit.ts';
import { usersCollection } from '../../../shared/db/entities/user.ts';
import { queryChunks } from '../../../shared/db/paging.ts';

const LISTED_ACTIONS = new Set(['training.completed', 'training.invalidated']);
const CHAIN_PAGE = 1000;

export interface ListingBackfillTotals {
  users: number;
  listed: number;
}

export async function backfillStageCompletionListing(
  onProgress: (totals: ListingBackfillTotals) => void = () => {},
): Promise<ListingBackfillTotals> {
  const totals: ListingBackfillTotals = { users: 0, listed: 0 };
  for await (const users of queryChunks({ ...usersCollection, projection: ['userid'] }, 100)) {
    for (const { userid } of users as Array<{ userid: number }>) {
      const subject = auditSubject.user(userid);
      for (let after = 0; ; ) {
        const page = await readAuditChain(subject, CHAIN_PAGE, after);
        for (const record of page.filter((entry) => LISTED_ACTIONS.has(entry.action))) {
          await addToAuditListing('stage-completions', record);
          totals.listed += 1;
        }
        if (page.length < CHAIN_PAGE) break;
        after = page[page.length - 1].seq;
      }
      totals.users += 1;
    }
    onProgress(totals);
  }
  return totals;
}
