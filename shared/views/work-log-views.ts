/**
 * The wire shape of a work-log entry (docs/wire-fidelity.md §2.15, the Zapier app's sample):
 * the real service's fields in its order, `timingid` null before the first timing event,
 * `work_data` an array of {label, value, field_revisionid, stepid} by field_revisionid with
 * every value a string; then Stepwise's additions (who works it now, the active step, pause
 * time and time per step).
 */
import * as z from 'zod/mini';
import { timingTotals, WORK_LOG_STATUSES } from '../domain/work-log-timing.ts';
import type { StoredEntry } from '../db/entities/work-log.ts';

export const entrySchema = z.object({
  entryid: z.int(),
  guideid: z.int(),
  userid: z.int(),
  workorderid: z.string(),
  starttime: z.int(),
  endtime: z.nullable(z.int()),
  max_form_revisionid: z.nullable(z.int()),
  cancelled: z.int(),
  guide_revisionid: z.int(),
  duration: z.int(),
  status: z.enum(WORK_LOG_STATUSES),
  work_data: z.array(z.object({ label: z.string(), value: z.string(), field_revisionid: z.int(), stepid: z.int() })),
  timingid: z.nullable(z.int()),
  operator_userid: z.int(),
  active_stepid: z.nullable(z.int()),
  paused_duration: z.int(),
  step_durations: z.array(z.object({ stepid: z.int(), duration: z.int() })),
});
export type EntryView = z.output<typeof entrySchema>;

export function entryView({ entry, values }: StoredEntry, now: number): EntryView {
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
      .map((value) => ({
        label: value.label,
        value: value.value,
        field_revisionid: value.field_revisionid,
        stepid: value.stepid,
      })),
    timingid: entry.timingid || null,
    operator_userid: entry.operator_userid,
    active_stepid: entry.active_stepid,
    paused_duration: totals.paused_duration,
    step_durations: totals.step_durations,
  };
}
