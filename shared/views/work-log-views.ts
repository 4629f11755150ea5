/**
 * The wire shape of a work-log entry (reference/wire-format.md §2.15, the Zapier app's sample):
 * the real service's fields in its order, `timingid` null before the first timing event,
 * `work_data` an array of {label, value, field_revisionid, stepid} by field_revisionid with
 * every value a string; then Stepwise's additions (who works it now, the active step, pause
 * time and time per step).
 */
import { timingTotals } from '../domain/work-log-timing.ts';
import type { StoredEntry } from '../db/entities/work-log.ts';

export function entryView({ entry, values }: StoredEntry, now: number) {
  const totals = timingTotals(entry, now);
  return {
    entryid: entry.entryid,
    guideid: entry.guideid,
    userid: entry.userid,
    workorderid: entry.workorderid,
    starttime: entry.starttime,
    endtime: entry.endtime,
    max_form_revisionid: entry.max_form_revisionid,
    cancelled: entry.status === 'cancelled' ? 1 : 0,
    guide_revisionid: entry.guide_revisionid,
    duration: totals.duration,
    status: entry.status,
    work_data: [...values]
      .sort((a, b) => a.field_revisionid - b.field_revisionid)
      .map((value) => ({ label: value.label, value: value.value, field_revisionid: value.field_revisionid, stepid: value.stepid })),
    timingid: entry.timingid || null,
    operator_userid: entry.operator_userid,
    active_stepid: entry.active_stepid,
    paused_duration: totals.paused_duration,
    step_durations: totals.step_durations,
  };
}

export type EntryView = ReturnType<typeof entryView>;
