/** Builders of data-capture events (no I/O). */
import { domainEvent, type DomainEvent } from './catalogue.ts';

interface EntryState {
  entryid: number;
  userid: number;
  operator_userid: number;
  guideid: number;
  workorderid: string;
  status: string;
  endtime?: number | null;
}

/** work_log.finished when an entry moves to complete. */
export function workLogEvents(before: EntryState, after: EntryState): DomainEvent[] {
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
