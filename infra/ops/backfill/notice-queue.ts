/**
 * Writes the notice queue items (docs/notices.md) of acknowledgements and levels written before
 * the queue existed: each pending acknowledgement its four, each level with an expiry its two,
 * computed as a new write would (shared/training/notice-queue.ts, the notice settings of now).
 * A notice is written while it still has a use: its instant, or the date it is about (a
 * request, a reminder, a lapse warning before the due date or expiry), still to come
 * (`catchUpSeconds` reaches back further): a pending acknowledgement nobody was told of is
 * announced, but an overdue notice of last month or a lapse of last year (and its retraining)
 * only when the operator asks for that catch-up. Read without a Scan:
 * every account (the users index), then each one's pending acknowledgements; every level (its
 * index). Idempotent and resumable: an item is keyed by its instant, kind and subject, so a
 * second run puts the same items again, and one the sweep already sent finds its event marker
 * and mail claims and sends nothing twice.
 */
import { acknowledgementsAll, userPendingCollection } from '../../../shared/db/entities/acknowledgement.ts';
import { noticeSettings } from '../../../shared/db/entities/notice.ts';
import { allLevelsCollection, qualificationLevelItemSchema } from '../../../shared/db/entities/qualification-level.ts';
import { usersCollection } from '../../../shared/db/entities/user.ts';
import { queryChunks } from '../../../shared/db/paging.ts';
import { recordsOf } from '../../../shared/db/stored-item.ts';
import { transactWrite, type LabelledWrite } from '../../../shared/db/transactions.ts';
import { acknowledgementNoticeWrites, levelNoticeWrites } from '../../../shared/training/notice-queue.ts';

export interface NoticeBackfillTotals {
  acknowledgements: number;
  levels: number;
  queued: number;
  /** Notices past their use (before `catchUpSeconds`): not written. */
  skipped: number;
}

/** The later of the queue item's instant and the date it is about: past that, it has no use. */
function lastUse(write: LabelledWrite): number {
  const item = write.item.Put?.Item as { fire_at?: unknown; due?: unknown } | undefined;
  return Math.max(Number(item?.fire_at), Number(item?.due));
}

export async function backfillNoticeQueue(
  now: number,
  catchUpSeconds = 0,
  onProgress: (totals: NoticeBackfillTotals) => void = () => {},
): Promise<NoticeBackfillTotals> {
  const settings = await noticeSettings();
  const totals: NoticeBackfillTotals = { acknowledgements: 0, levels: 0, queued: 0, skipped: 0 };
  const put = async (writes: LabelledWrite[]) => {
    const ahead = writes.filter((write) => lastUse(write) >= now - catchUpSeconds);
    totals.skipped += writes.length - ahead.length;
    if (ahead.length === 0) return;
    await transactWrite(ahead);
    totals.queued += ahead.length;
  };
  for await (const users of queryChunks({ ...usersCollection, projection: ['userid'] }, 100)) {
    for (const { userid } of users as Array<{ userid: number }>) {
      for (const ack of await acknowledgementsAll(userPendingCollection(userid))) {
        await put(acknowledgementNoticeWrites(ack, settings));
        totals.acknowledgements += 1;
      }
    }
    onProgress(totals);
  }
  for await (const chunk of queryChunks(allLevelsCollection, 100)) {
    for (const level of chunk.map(recordsOf(qualificationLevelItemSchema))) {
      await put(levelNoticeWrites(level, settings));
      totals.levels += 1;
    }
    onProgress(totals);
  }
  return totals;
}
