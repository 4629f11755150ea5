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
import { log } from '../observability/logger.ts';
import { sendMail } from '../mail/mailer.ts';
import { emitOnce, emittedMarkerWrite, outboxPut } from '../db/entities/outbox.ts';
import { isLostRace } from '../db/retry.ts';
import { TransactionConditionFailed, transactWrite, type LabelledWrite } from '../db/transactions.ts';
import { getAcknowledgements, type AcknowledgementRecord } from '../db/entities/acknowledgement.ts';
import { getLevels, type QualificationLevelRecord } from '../db/entities/qualification-level.ts';
import { getSkills } from '../db/entities/skill.ts';
import { getTeams } from '../db/entities/team.ts';
import { getUsers, type UserRecord } from '../db/entities/user.ts';
import {
  claimNoticeMail,
  dueCursorAfter,
  dueNoticeDelete,
  dueNotices,
  getManyNoticePreferences,
  NOTICE_SHARDS,
  noticeMailClaimWrite,
  releaseNoticeMail,
  removeDueNotice,
  requeueNotice,
  type NoticePreferencesRecord,
  type DueCursor,
  type NoticeDueRecord,
} from '../db/entities/notice.ts';
import { domainEvent, type DomainEvent } from '../domain/events/catalogue.ts';
import { noticeMail } from '../domain/notices.ts';
import { mapLimit } from './map-limit.ts';
import { assignRetraining } from './retraining.ts';

const PAGE = 100;
const PARALLEL = 16;

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
  /** Items that failed (mail or storage errors): left in the queue for the next sweep. */
  failed: number;
  /** True when the budget ran out with due items left: the next sweep carries on. */
  more: boolean;
}

/** Sends what is due at `asOf` (epoch seconds), up to `budget` items. */
export async function sweepNotices(asOf: number, budget = 5000): Promise<SweepResult> {
  const result: SweepResult = {
    handled: 0,
    events: 0,
    mails: 0,
    dropped: 0,
    retraining_assigned: 0,
    failed: 0,
    more: false,
  };
  // Handling can queue new items due now (a retraining's notice): passes repeat until one finds nothing.
  for (let pass = 0; pass < 3; pass += 1) {
    const before = result.handled;
    for (let shard = 0; shard < NOTICE_SHARDS; shard += 1) {
      // Each page starts after the last: an item that failed stays for the next sweep and is not read again.
      let from: DueCursor | undefined;
      for (;;) {
        if (result.handled + result.failed >= budget) {
          result.more = await anyDue(shard, asOf, from);
          return result;
        }
        const page = await dueNotices(shard, asOf, Math.min(PAGE, budget - result.handled - result.failed), from);
        const facts = await loadPage(page);
        await mapLimit(page, PARALLEL, async (item) => {
          try {
            await handle(item, asOf, facts, result);
          } catch (error) {
            // Left in the queue: the next sweep tries it again (the markers keep it to once).
            result.failed += 1;
            log().error('notice failed; left for the next sweep', { subject: item.subject, kind: item.kind, error });
          }
        });
        await flush(facts.ready, asOf, result);
        if (page.length < PAGE) break;
        from = dueCursorAfter(page[page.length - 1]!);
      }
    }
    if (result.handled === before) break;
  }
  return result;
}

/** Whether anything is due in this shard (after `from`) or a later one. */
async function anyDue(shard: number, asOf: number, from: DueCursor | undefined): Promise<boolean> {
  if ((await dueNotices(shard, asOf, 1, from)).length > 0) return true;
  for (let next = shard + 1; next < NOTICE_SHARDS; next += 1) {
    if ((await dueNotices(next, asOf, 1)).length > 0) return true;
  }
  return false;
}

/** What a page's notices are about, read in a few BatchGets (eventually consistent reads). */
interface PageFacts {
  acks: Map<string, AcknowledgementRecord>;
  levels: Map<string, QualificationLevelRecord>;
  users: Map<number, UserRecord>;
  preferences: Map<number, NoticePreferencesRecord>;
  /** Notices ready to send, written together by flush(). */
  ready: Prepared[];
}

/** A notice ready to go: its event (and marker), the people mailed, the mail's facts. */
interface Prepared {
  item: NoticeDueRecord;
  marker: string;
  event: DomainEvent;
  to: UserRecord[];
  mail: { subjectLine: string; path: string; personName?: string };
}

const ackKeyOf = (releaseid: number, userid: number) => `${releaseid}#${userid}`;
const unique = <T>(values: T[], key: (value: T) => string) => [
  ...new Map(values.map((value) => [key(value), value])).values(),
];

async function loadPage(page: NoticeDueRecord[]): Promise<PageFacts> {
  const ackPairs = unique(
    page.filter((item) => item.releaseid).map((item) => ({ releaseid: item.releaseid!, userid: item.userid })),
    (pair) => ackKeyOf(pair.releaseid, pair.userid),
  );
  const levelPairs = unique(
    page
      .filter((item) => item.skillid && item.subject.startsWith('LEVEL#'))
      .map((item) => ({ userid: item.userid, skillid: item.skillid! })),
    (pair) => `${pair.userid}#${pair.skillid}`,
  );
  const userids = [...new Set(page.map((item) => item.userid))];
  const [acks, levels, users, preferences] = await Promise.all([
    getAcknowledgements(ackPairs),
    getLevels(levelPairs),
    getUsers(userids),
    getManyNoticePreferences(userids),
  ]);
  return {
    acks: new Map(acks.map((ack) => [ackKeyOf(ack.releaseid, ack.userid), ack])),
    levels: new Map(levels.map((level) => [`${level.userid}#${level.skillid}`, level])),
    users: new Map(users.map((user) => [user.userid, user])),
    preferences: new Map(preferences.map((record) => [record.userid, record])),
    ready: [],
  };
}

/** Handles one queue item and takes it off the queue. */
async function handle(item: NoticeDueRecord, asOf: number, facts: PageFacts, result: SweepResult): Promise<void> {
  switch (item.kind) {
    case 'acknowledgement_requested':
    case 'acknowledgement_due_soon':
    case 'acknowledgement_overdue':
    case 'acknowledgement_escalated':
      return acknowledgementNotice(item, asOf, facts, result);
    case 'level_lapsing':
    case 'level_lapsed':
      return levelNotice(item, asOf, facts, result);
    case 'retraining_assigned':
      return retrainingNotice(item, asOf, facts, result);
  }
}

const ackEventName = {
  acknowledgement_requested: 'acknowledgement.requested',
  acknowledgement_due_soon: 'acknowledgement.due_soon',
  acknowledgement_overdue: 'acknowledgement.overdue',
  acknowledgement_escalated: 'acknowledgement.overdue_escalated',
} as const;

async function dropped(item: NoticeDueRecord, result: SweepResult): Promise<void> {
  await removeDueNotice(item);
  result.dropped += 1;
  result.handled += 1;
}

async function acknowledgementNotice(
  item: NoticeDueRecord,
  asOf: number,
  facts: PageFacts,
  result: SweepResult,
): Promise<void> {
  const ack = item.releaseid ? facts.acks.get(ackKeyOf(item.releaseid, item.userid)) : undefined;
  // Signed or superseded: nothing to ask any more. A reminder the sweep reaches only after the due date is moot.
  const moot = item.kind === 'acknowledgement_due_soon' && asOf >= item.due;
  if (ack?.status !== 'pending' || ack.due_date !== item.due || moot) return dropped(item, result);
  const data = {
    releaseid: ack.releaseid,
    doctype: ack.doctype,
    docid: ack.docid,
    userid: ack.userid,
    due_date: item.due,
  };
  const entity = `ACK#${ack.releaseid}#${ack.userid}`;
  const mail = {
    subjectLine: `${ack.doctype} ${ack.docid}, version ${ack.version}`,
    path: `/api/2.0/acknowledgements/${ack.releaseid}`,
  };
  if (item.kind === 'acknowledgement_escalated') {
    const owners = await teamOwnersOf(facts.users.get(ack.userid));
    const event = domainEvent('acknowledgement.overdue_escalated', entity, { ...data, owner_userids: owners });
    const personName = facts.users.get(ack.userid)?.username;
    return send(facts, {
      item,
      marker: eventMarker(item),
      event,
      to: await recipients(item, owners, facts),
      mail: { ...mail, personName },
    });
  }
  // acknowledgement.overdue keeps the marker its readers use (acknowledgement-overdue.ts): one event either way.
  const marker =
    item.kind === 'acknowledgement_overdue'
      ? `acknowledgement.overdue#${ack.releaseid}#${ack.userid}`
      : eventMarker(item);
  const event = domainEvent(ackEventName[item.kind as keyof typeof ackEventName], entity, data);
  return send(facts, { item, marker, event, to: await recipients(item, [ack.userid], facts), mail });
}

/** The owners of the person's teams (not the person), who hear of an escalated acknowledgement. */
async function teamOwnersOf(user: UserRecord | undefined): Promise<number[]> {
  if (!user || user.teams.length === 0) return [];
  const owners = new Set<number>();
  for (const team of await getTeams(user.teams)) {
    if (team.owner !== null && team.owner > 0 && team.owner !== user.userid) owners.add(team.owner);
  }
  return [...owners].sort((a, b) => a - b);
}

async function levelNotice(item: NoticeDueRecord, asOf: number, facts: PageFacts, result: SweepResult) {
  const level = item.skillid ? facts.levels.get(`${item.userid}#${item.skillid}`) : undefined;
  // Renewed (another expiry), removed or lowered to 0: this expiry no longer stands.
  const moot = item.kind === 'level_lapsing' && asOf >= item.due;
  if (!level || level.level <= 0 || level.expires_at !== item.due || moot) return dropped(item, result);
  const [skill] = await getSkills([level.skillid]);
  const data = { userid: level.userid, skillid: level.skillid, level: level.level, expires_at: item.due };
  const name = item.kind === 'level_lapsing' ? 'qualification_level.lapsing' : 'qualification_level.lapsed';
  // The retraining first: its assignment is once by its own marker, and a failure leaves the lapse queued.
  if (item.kind === 'level_lapsed' && skill) {
    result.retraining_assigned += await assignRetraining(level, skill, asOf);
  }
  send(facts, {
    item,
    marker: eventMarker(item),
    event: domainEvent(name, `LEVEL#${level.userid}#${level.skillid}`, data),
    to: await recipients(item, [level.userid], facts),
    mail: {
      subjectLine: `${skill?.name ?? `skill ${level.skillid}`}, level ${level.level}`,
      path: `/api/2.0/qualifications/users/${level.userid}`,
    },
  });
}

async function retrainingNotice(item: NoticeDueRecord, _asOf: number, facts: PageFacts, result: SweepResult) {
  if (!item.course_assignmentid || !item.wikiid || !item.skillid) return dropped(item, result);
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
  send(facts, {
    item,
    marker: eventMarker(item),
    event,
    to: await recipients(item, [item.userid], facts),
    mail: { subjectLine: `course ${item.wikiid}`, path: `/api/2.0/course_assignments/${item.course_assignmentid}` },
  });
}

const eventMarker = (item: NoticeDueRecord) => `notice#${item.kind}#${item.subject}#${item.due}`;

/** Who is mailed: those of `userids` with an address who did not turn this kind off. */
async function recipients(item: NoticeDueRecord, userids: number[], facts: PageFacts): Promise<UserRecord[]> {
  const missing = userids.filter((userid) => !facts.users.has(userid));
  if (missing.length > 0) {
    const [users, preferences] = await Promise.all([getUsers(missing), getManyNoticePreferences(missing)]);
    for (const user of users) facts.users.set(user.userid, user);
    for (const record of preferences) facts.preferences.set(record.userid, record);
  }
  return userids
    .map((userid) => facts.users.get(userid))
    .filter((user): user is UserRecord => !!user?.email)
    .filter((user) => facts.preferences.get(user.userid)?.[item.kind] ?? true);
}

/** Readies a notice; flush() sends it with the rest of its page. */
function send(facts: PageFacts, notice: Prepared): void {
  facts.ready.push(notice);
}

/** Writes per transaction at most (DynamoDB's limit is 100 items). */
const TRANSACTION_ITEMS = 100;

const writesOf = (ready: Prepared, asOf: number): LabelledWrite[] => [
  emittedMarkerWrite(ready.marker, ready.event.name),
  outboxPut(ready.event),
  ...ready.to.map((user) => noticeMailClaimWrite(ready.item, user.userid, asOf)),
  dueNoticeDelete(ready.item),
];

/**
 * Sends the page's ready notices, once each: a transaction per group of notices writes their
 * events with their markers, the mail claim of each recipient, and takes the items off the
 * queue; then the mails go. A group whose transaction fails (one of its events was emitted
 * before: a reader emitted `acknowledgement.overdue`, or a retry after a failed mail) is sent one
 * notice at a time (sendOne).
 */
async function flush(ready: Prepared[], asOf: number, result: SweepResult): Promise<void> {
  const groups: Prepared[][] = [];
  let size = 0;
  for (const notice of ready) {
    const writes = writesOf(notice, asOf).length;
    if (groups.length === 0 || size + writes > TRANSACTION_ITEMS) {
      groups.push([]);
      size = 0;
    }
    groups[groups.length - 1]!.push(notice);
    size += writes;
  }
  await mapLimit(groups, 4, async (group) => {
    let written = false;
    try {
      await transactWrite(
        group.flatMap((notice, index) =>
          writesOf(notice, asOf).map((write) => ({ ...write, label: `${index}:${write.label}` })),
        ),
      );
      written = true;
    } catch (error) {
      // One of the group's events was emitted before (or a race, or a storage error): one at a time then.
      if (!(error instanceof TransactionConditionFailed) && !isLostRace(error))
        log().warn('a group of notices could not be written together; sending them one at a time', { error });
    }
    await mapLimit(group, PARALLEL, async (notice) => {
      try {
        if (written) {
          result.events += 1;
          await mailAll(notice, notice.to, result);
        } else {
          await sendOne(notice, asOf, result);
        }
        result.handled += 1;
      } catch (error) {
        result.failed += 1;
        log().error('notice failed; left for the next sweep', { subject: notice.item.subject, error });
      }
    });
  });
}

/** One notice alone: its event once (emitOnce), then each mail claimed alone, then off the queue. */
async function sendOne(notice: Prepared, asOf: number, result: SweepResult): Promise<void> {
  const { item } = notice;
  let claimed: UserRecord[];
  const claims = notice.to.map((user) => noticeMailClaimWrite(item, user.userid, asOf));
  if (await emitOnce(notice.marker, notice.event, [...claims, dueNoticeDelete(item)])) {
    result.events += 1;
    claimed = notice.to;
  } else {
    claimed = [];
    for (const user of notice.to) if (await claimNoticeMail(item, user.userid, asOf)) claimed.push(user);
    await removeDueNotice(item);
  }
  await mailAll(notice, claimed, result);
}

/** The mails of a notice whose claims are made; one that cannot be sent gives its claim and the item back. */
async function mailAll(notice: Prepared, claimed: UserRecord[], result: SweepResult): Promise<void> {
  const { item } = notice;
  const mail = noticeMail(item.kind, { ...notice.mail, due: item.due, siteUrl: config().STEPWISE_SITE_URL });
  for (const user of claimed) {
    try {
      await sendMail({ to: user.email, subject: mail.subject, text: mail.text, kind: `notice.${item.kind}` });
      result.mails += 1;
    } catch (error) {
      await releaseNoticeMail(item, user.userid);
      await requeueNotice(item);
      throw error;
    }
  }
}
