/**
 * The queue items a change asks for (docs/notices.md), built where the change is written so
 * they ride in its transaction: an acknowledgement's four notices, a level's two, a retraining
 * assignment's one. The sweep (notice-sweep.ts) sends them when their instant comes.
 */
import type { AcknowledgementRecord } from '../db/entities/acknowledgement.ts';
import { noticeDueWrites } from '../db/entities/notice.ts';
import type { LabelledWrite } from '../db/transactions.ts';
import { acknowledgementNotices, levelNotices, type NoticeSettings } from '../domain/notices.ts';

export function acknowledgementNoticeWrites(ack: AcknowledgementRecord, settings: NoticeSettings): LabelledWrite[] {
  return noticeDueWrites(
    { subject: `ACK#${ack.releaseid}#${ack.userid}`, userid: ack.userid, releaseid: ack.releaseid },
    acknowledgementNotices(ack, settings),
  );
}

/** A level's lapse notices, keyed by its expiry: a renewed level queues new ones; the old ones find it renewed. */
export function levelNoticeWrites(
  level: { userid: number; skillid: number; level: number; expires_at: number | null; set_date: number },
  settings: NoticeSettings,
): LabelledWrite[] {
  return noticeDueWrites(
    { subject: `LEVEL#${level.userid}#${level.skillid}`, userid: level.userid, skillid: level.skillid },
    levelNotices(level, settings),
  );
}
