/**
 * The external-courses API (issue 28 §3): a health check, and the history of stage completion
 * events for an outside system to mirror (an LMS, an HR system). The history is the site-wide
 * listing of the trainees' audit records of completions and invalidations (decision 243): each
 * record is written in the same transaction as the completion itself (shared/training/progress.ts)
 * and carries the listing's keys, so a page is one Query of the listing, disabled users' and
 * documents no longer a stage of any course included, and nothing a chain does not prove. The
 * answer's shape is inferred (docs/wire-fidelity.md).
 */
import { readAuditListing, type AuditRecord } from '../../shared/db/audit.ts';
import { getUsers } from '../../shared/db/entities/user.ts';
import { nowSeconds } from '../../shared/clock.ts';
import type { StageCompletionEventView } from '../../shared/views/external-course-views.ts';
import type { HistoryQuery } from './external-courses.schemas.ts';

const EVENTS: Record<string, StageCompletionEventView['event']> = {
  'training.completed': 'completed',
  'training.invalidated': 'invalidated',
};

/** The trainee of a record of their chain (`USER#<userid>`). */
function traineeOf(record: AuditRecord): number {
  return Number(/^USER#(\d+)$/.exec(record.subject)?.[1] ?? 0);
}

function eventOf(record: AuditRecord, active: boolean): StageCompletionEventView {
  const userid = traineeOf(record);
  const details = record.details as Record<string, number | string | null | undefined>;
  const number = (key: string) => (typeof details[key] === 'number' ? (details[key] as number) : null);
  return {
    eventid: `${userid}-${record.seq}`,
    event: EVENTS[record.action] ?? 'completed',
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
}

/** Events oldest first (date, then the trainee's chain and its order), paged by offset and limit. */
export async function history(query: HistoryQuery) {
  const { records, total } = await readAuditListing(
    'stage-completions',
    { since: query.since, until: query.until },
    { offset: query.offset, limit: query.limit },
  );
  // Accounts the page names, disabled ones included (SCIM deprovisioning keeps the account).
  const users = await getUsers([...new Set(records.map(traineeOf))]);
  const active = new Map(users.map((user) => [user.userid, !user.disabled]));
  const events = records.map((record) => eventOf(record, active.get(traineeOf(record)) ?? false));
  return {
    events,
    total,
    offset: query.offset,
    limit: query.limit,
    next_offset: query.offset + events.length < total ? query.offset + events.length : null,
  };
}

export function health() {
  return { status: 'ok' as const, time: nowSeconds() };
}
