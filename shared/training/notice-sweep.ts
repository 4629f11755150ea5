/**
 * The notice sweep (docs/notices.md): sends every queued notice whose instant has come, as an
 * event on the outbox (webhooks, EventBridge) and as mail to each recipient who has not turned
 * that kind off. It reads only what is due: each shard of the queue is Queried for sort keys up to
 * the sweep's clock, a page at a time, and each item leaves the queue once handled, so a sweep
 * cut short (a Lambda's time, a crash) is resumed by the next one. Each notice is sent once: its
 * event through a marker created with the event (emitOnce), its mail through a NoticeSent claim
 * per recipient made before the mail goes. A lapsed level also assigns the course(s) that restore
 * it (retraining.ts), once per lapse.
 */
import { config } from '../config.ts';
import { nowSeconds } from '../clock.ts';
import { log } from '../observability/logger.ts';
import { sendMail } from '../mail/mailer.ts';
import { emitOnce } from '../db/entities/outbox.ts';
import { getAcknowledgement, type AcknowledgementRecord } from '../db/entities/acknowledgement.ts';
import { getLevel } from '../db/entities/qualification-level.ts';
import { getSkills } from '../db/entities/skill.ts';
import { getTeams } from '../db/entities/team.ts';
import { getUser } from '../db/entities/user.ts';
import {
  claimNoticeMail,
  dueNotices,
  getNoticePreferences,
  NOTICE_SHARDS,
  releaseNoticeMail,
  removeDueNotice,
  type NoticeDueRecord,
} from '../db/entities/notice.ts';
import { domainEvent, type DomainEvent } from '../domain/events/catalogue.ts';
import { noticeMail, type NoticeKind } from '../domain/notices.ts';
import { mapLimit } from './map-limit.ts';
import { assignRetraining } from './retraining.ts';

const PAGE = 100;
const PARALLEL = 8;

export interface SweepResult {
  /** Queue items handled (sent, or dropped because their subject moved on). */
  handled: number;
  /** Events written (a notice already emitted by a reader is not counted again). */
  events: number;
  mails: number;
  /** Items whose subject no longer asks for them (signed, renewed, past their use). */
  dropped: number;
  /** Courses assigned to restore lapsed levels. */
  retraining_assigned: number;
  /** True when the budget ran out with due items left: the next sweep carries on. */
  more: boolean;
}

/** Sends what is due at `asOf` (epoch seconds), up to `budget` items. */
export async function sweepNotices(asOf: number, budget = 5000): Promise<SweepResult> {
  const result: SweepResult = { handled: 0, events: 0, mails: 0, dropped: 0, retraining_assigned: 0, more: false };
  // Handling can queue new items due now (a retraining's notice): passes repeat until one finds nothing.
  for (let pass = 0; pass < 3; pass += 1) {
    const before = result.handled;
    for (let shard = 0; shard < NOTICE_SHARDS; shard += 1) {
      for (;;) {
        if (result.handled >= budget) {
          result.more = (await dueNotices(shard, asOf, 1)).length > 0 || shard < NOTICE_SHARDS - 1;
          return result;
        }
        const page = await dueNotices(shard, asOf, Math.min(PAGE, budget - result.handled));
        await mapLimit(page, PARALLEL, async (item) => {
          try {
            await handle(item, asOf, result);
            await removeDueNotice(item);
            result.handled += 1;
          } catch (error) {
            // Left in the queue: the next sweep tries it again (the markers keep it to once).
            log().error('notice failed; left for the next sweep', { subject: item.subject, kind: item.kind, error });
            throw error;
          }
        });
        if (page.length < PAGE) break;
      }
    }
    if (result.handled === before) break;
  }
  return result;
}

async function handle(item: NoticeDueRecord, asOf: number, result: SweepResult): Promise<void> {
  switch (item.kind) {
    case 'acknowledgement_requested':
    case 'acknowledgement_due_soon':
    case 'acknowledgement_overdue':
    case 'acknowledgement_escalated':
      return acknowledgementNotice(item, asOf, result);
    case 'level_lapsing':
    case 'level_lapsed':
      return levelNotice(item, asOf, result);
    case 'retraining_assigned':
      return retrainingNotice(item, asOf, result);
  }
}

const ackEventName = {
  acknowledgement_requested: 'acknowledgement.requested',
  acknowledgement_due_soon: 'acknowledgement.due_soon',
  acknowledgement_overdue: 'acknowledgement.overdue',
  acknowledgement_escalated: 'acknowledgement.overdue_escalated',
} as const;

async function acknowledgementNotice(item: NoticeDueRecord, asOf: number, result: SweepResult): Promise<void> {
  const ack = item.releaseid ? await getAcknowledgement(item.releaseid, item.userid) : undefined;
  // Signed or superseded: nothing to ask any more. A reminder the sweep reaches only after the due date is moot.
  const moot = item.kind === 'acknowledgement_due_soon' && asOf >= item.due;
  if (ack?.status !== 'pending' || ack.due_date !== item.due || moot) {
    result.dropped += 1;
    return;
  }
  const data = {
    releaseid: ack.releaseid,
    doctype: ack.doctype,
    docid: ack.docid,
    userid: ack.userid,
    due_date: item.due,
  };
  const entity = `ACK#${ack.releaseid}#${ack.userid}`;
  const about = `${ack.doctype} ${ack.docid}, version ${ack.version}`;
  const path = `/api/2.0/acknowledgements/${ack.releaseid}`;
  if (item.kind === 'acknowledgement_escalated') {
    const owners = await teamOwnersOf(ack);
    const event = domainEvent('acknowledgement.overdue_escalated', entity, { ...data, owner_userids: owners });
    if (await emitOnce(eventMarker(item), event)) result.events += 1;
    const person = await getUser(ack.userid);
    for (const owner of owners) {
      await mailOnce(item, owner, asOf, result, { subjectLine: about, path, personName: person?.username });
    }
    return;
  }
  // acknowledgement.overdue keeps the marker its readers use (acknowledgement-overdue.ts): one event either way.
  const marker =
    item.kind === 'acknowledgement_overdue'
      ? `acknowledgement.overdue#${ack.releaseid}#${ack.userid}`
      : eventMarker(item);
  if (await emitOnce(marker, domainEvent(ackEventName[item.kind as keyof typeof ackEventName], entity, data)))
    result.events += 1;
  await mailOnce(item, ack.userid, asOf, result, { subjectLine: about, path });
}

/** The owners of the person's teams (not the person), who hear of an escalated acknowledgement. */
async function teamOwnersOf(ack: AcknowledgementRecord): Promise<number[]> {
  const user = await getUser(ack.userid);
  if (!user || user.teams.length === 0) return [];
  const owners = new Set<number>();
  for (const team of await getTeams(user.teams)) {
    if (team.owner !== null && team.owner > 0 && team.owner !== ack.userid) owners.add(team.owner);
  }
  return [...owners].sort((a, b) => a - b);
}

async function levelNotice(item: NoticeDueRecord, asOf: number, result: SweepResult): Promise<void> {
  const level = item.skillid ? await getLevel(item.userid, item.skillid) : undefined;
  // Renewed (another expiry), removed or lowered to 0: this expiry no longer stands.
  const moot = item.kind === 'level_lapsing' && asOf >= item.due;
  if (!level || level.level <= 0 || level.expires_at !== item.due || moot) {
    result.dropped += 1;
    return;
  }
  const [skill] = await getSkills([level.skillid]);
  const data = { userid: level.userid, skillid: level.skillid, level: level.level, expires_at: item.due };
  const name = item.kind === 'level_lapsing' ? 'qualification_level.lapsing' : 'qualification_level.lapsed';
  if (await emitOnce(eventMarker(item), domainEvent(name, `LEVEL#${level.userid}#${level.skillid}`, data)))
    result.events += 1;
  await mailOnce(item, level.userid, asOf, result, {
    subjectLine: `${skill?.name ?? `skill ${level.skillid}`}, level ${level.level}`,
    path: `/api/2.0/qualifications/users/${level.userid}`,
  });
  if (item.kind === 'level_lapsed' && skill) {
    result.retraining_assigned += await assignRetraining(level, skill, asOf);
  }
}

async function retrainingNotice(item: NoticeDueRecord, asOf: number, result: SweepResult): Promise<void> {
  if (!item.course_assignmentid || !item.wikiid || !item.skillid) {
    result.dropped += 1;
    return;
  }
  const event: DomainEvent<'retraining.assigned'> = domainEvent(
    'retraining.assigned',
    `ASSIGNMENT#${item.course_assignmentid}`,
    {
      course_assignmentid: item.course_assignmentid,
      wikiid: item.wikiid,
      userid: item.userid,
      skillid: item.skillid,
      due_date: item.due,
    },
  );
  if (await emitOnce(eventMarker(item), event)) result.events += 1;
  await mailOnce(item, item.userid, asOf, result, {
    subjectLine: `course ${item.wikiid}`,
    path: `/api/2.0/course_assignments/${item.course_assignmentid}`,
  });
}

const eventMarker = (item: NoticeDueRecord) => `notice#${item.kind}#${item.subject}#${item.due}`;

/**
 * The notice's mail to one recipient, once: skipped when they turned the kind off or have no
 * address; claimed before it is sent, and the claim released when sending fails (the next sweep
 * tries again).
 */
async function mailOnce(
  item: NoticeDueRecord,
  recipient: number,
  asOf: number,
  result: SweepResult,
  facts: { subjectLine: string; path: string; personName?: string },
): Promise<void> {
  if (!(await wantsNotice(recipient, item.kind))) return;
  const user = await getUser(recipient);
  if (!user?.email) return;
  if (!(await claimNoticeMail(item, recipient, asOf))) return;
  const mail = noticeMail(item.kind, { ...facts, due: item.due, siteUrl: config().STEPWISE_SITE_URL });
  try {
    await sendMail({ to: user.email, subject: mail.subject, text: mail.text, kind: `notice.${item.kind}` });
    result.mails += 1;
  } catch (error) {
    await releaseNoticeMail(item, recipient);
    throw error;
  }
}

async function wantsNotice(userid: number, kind: NoticeKind): Promise<boolean> {
  const preferences = await getNoticePreferences(userid);
  return preferences?.[kind] ?? true;
}

/**
 * The local stack's schedule (`npm start`): a sweep at the real clock every `intervalMs`, one at a
 * time. Deployed, EventBridge Scheduler invokes functions/notices/sweep.handler.ts instead.
 */
export function startNoticeSweep(intervalMs = config().STEPWISE_NOTICE_SWEEP_MS): { stop(): Promise<void> } {
  if (intervalMs <= 0) return { stop: async () => {} };
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  const tick = () => {
    running = sweepNotices(nowSeconds())
      .catch((error) => log().error('Notice sweep failed', { error }))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, intervalMs);
      });
  };
  timer = setTimeout(tick, intervalMs);
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
