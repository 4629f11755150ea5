/**
 * Writes the category index (decision 211) for guides stored before it existed: one reference
 * per guide, as its next edit would write it. Idempotent (a Put of the same reference), so an
 * interrupted run is simply run again; guides written since decision 211 already have theirs.
 */
import { allGuidesCollection, categoryRefWrites, type GuideRecord } from '../../../shared/db/entities/guide.ts';
import { queryChunks } from '../../../shared/db/paging.ts';
import { transactWrite } from '../../../shared/db/transactions.ts';

/** References written per transaction (each a Put; a transaction takes up to 100). */
const PER_WRITE = 25;

export async function rebuildCategoryIndex(onProgress: (guides: number) => void = () => {}): Promise<number> {
  let done = 0;
  const chunks = queryChunks<Pick<GuideRecord, 'guideid' | 'category'>>(
    { ...allGuidesCollection, projection: ['guideid', 'category'] },
    PER_WRITE,
  );
  for await (const guides of chunks) {
    const writes = guides.flatMap((guide) =>
      categoryRefWrites(null, { guideid: Number(guide.guideid), category: guide.category }),
    );
    if (writes.length > 0) await transactWrite(writes);
    done += guides.length;
    onProgress(done);
  }
  return done;
}
