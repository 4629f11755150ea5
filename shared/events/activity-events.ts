/** Builders of data-capture events (no I/O). */
import type { WorkLogEntryRecord } from '../db/entities/work-log.ts';
import { domainEvent, type DomainEvent } from './catalogue.ts';

/** work_log.finished when an entry moves to complete. */
export function workLogEvents(before: WorkLogEntryRecord, after: WorkLogEntryRecord): DomainEvent[] {
  if (before.status === 'complete' || after.status !== 'complete') return [];
  return [
    domainEvent('work_log.finished', `WORK_LOG#${after.entryid}`, {
      work_log_entryid: after.entryid,
      userid: after.userid,
      operator_userid: after.operator_userid,
      guideid: after.guideid,
      workorderid: after.workorderid,
      end_date: after.endtime ?? null,
    }),
  ];
}
