/**
 * The external-courses API (issue 28 §3): a health check, and the history of stage completion
 * events for an outside system to mirror (an LMS, an HR system). The history is read from the
 * trainees' audit chains, where every completion and invalidation is appended in the same
 * transaction as the completion itself (shared/training/progress.ts): so it holds every event,
 * disabled users' and documents no longer a stage of any course included, and nothing a chain
 * does not prove. The answer's shape is inferred (docs/wire-fidelity.md).
 */
import { readAuditChain, auditSubject, type AuditRecord } from '../../shared/db/audit.ts';
import { queryAll } from '../../shared/db/paging.ts';
import { usersCollection, userItemSchema } from '../../shared/db/entities/user.ts';
import { recordsOf } from '../../shared/db/stored-item.ts';
import { nowSeconds } from '../../shared/clock.ts';
import type { StageCompletionEventView } from '../../shared/views/external-course-views.ts';
import type { HistoryQuery } from './external-courses.schemas.ts';

const EVENTS: Record<string, StageCompletionEventView['event']> = {
  'training.completed': 'completed',
  'training.invalidated': 'invalidated',
};

/** A chain is read in pages of this many records. */
const CHAIN_PAGE = 1000;

async function chainEvents(userid: number, active: boolean): Promise<StageCompletionEventView[]> {
  const subject = auditSubject.user(userid);
  const records: AuditRecord[] = [];
  for (let after = 0; ; ) {
    const page = await readAuditChain(subject, CHAIN_PAGE, after);
    records.push(...page);
    if (page.length < CHAIN_PAGE) break;
    after = page[page.length - 1].seq;
  }
  return records
    .filter((record) => EVENTS[record.action] !== undefined)
    .map((record) => {
      const details = record.details as Record<string, number | string | null | undefined>;
      const number = (key: string) => (typeof details[key] === 'number' ? (details[key] as number) : null);
      return {
        eventid: `${userid}-${record.seq}`,
        event: EVENTS[record.action],
        date: record.date,
        userid,
        user_active: active,
        doctype: String(details.doctype),
        docid: number('docid') ?? 0,
        course_assignment_stage_completionid: number('course_assignment_stage_completionid'),
        revisionid: number('revisionid'),
        init_date: number('init_date'),
        end_date: number('end_date'),
        manager_override_userid: number('manager_override_userid'),
        actor_userid: record.actor_userid,
      };
    });
}

/** Events oldest first (date, then userid, then the chain's order), paged by offset and limit. */
export async function history(query: HistoryQuery) {
  const users = (await queryAll(usersCollection)).map(recordsOf(userItemSchema));
  const all: StageCompletionEventView[] = [];
  for (const user of users) all.push(...(await chainEvents(user.userid, !user.disabled)));
  const inRange = all
    .filter(
      (event) =>
        (query.since === undefined || event.date >= query.since) &&
        (query.until === undefined || event.date < query.until),
    )
    .sort(
      (a, b) => a.date - b.date || a.userid - b.userid || a.eventid.localeCompare(b.eventid, 'en', { numeric: true }),
    );
  const events = inRange.slice(query.offset, query.offset + query.limit);
  return {
    events,
    total: inRange.length,
    offset: query.offset,
    limit: query.limit,
    next_offset: query.offset + events.length < inRange.length ? query.offset + events.length : null,
  };
}

export function health() {
  return { status: 'ok' as const, time: nowSeconds() };
}
