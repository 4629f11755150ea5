/**
 * Writes the category index (decision 211) for guides stored before it existed: one reference
 * per guide, as its next edit would write it. Idempotent (a Put of the same reference), so an
 * interrupted run is simply run again; guides written since decision 211 already have theirs.
 */
import { guideAccessChunks } from '../../../shared/db/entities/guide.ts';
import { categoryRefWrites } from '../../../shared/db/entities/guide-link.ts';
import { transactWrite } from '../../../shared/db/transactions.ts';

export async function rebuildCategoryIndex(onProgress: (guides: number) => void = () => {}): Promise<number> {
  let done = 0;
  // A chunk of at most 100 guides: one Put each, within a transaction's 100 items.
  for await (const guides of guideAccessChunks()) {
    const writes = guides.flatMap((guide) => categoryRefWrites(null, guide));
    if (writes.length > 0) await transactWrite(writes);
    done += guides.length;
    onProgress(done);
  }
  return done;
}
