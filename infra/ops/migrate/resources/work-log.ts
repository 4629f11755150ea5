/**
 * Work-log entries with their timing and step data (GET /work_log, an Admin sees every entry).
 *
 * The wire shape gives the timing as totals (duration, paused_duration, step_durations), not the
 * moments it is kept as. An ended entry's moments follow from its totals exactly; an open one is
 * rebuilt as of the crawl (closed stretches up to now, the current stretch or pause starting now),
 * so every total reads the same from then on. What cannot be rebuilt is in WORK_LOG_UNEXPOSED.
 */
import type { CrawlContext, ResourceCrawler } from '../crawl.ts';
import { itemsOfWrites } from '../crawl.ts';
import { isDenied } from './training-common.ts';
import {
  entryCreateWrites,
  valuePut,
  type WorkLogEntryRecord,
  type WorkLogValueRecord,
} from '../../../../shared/db/entities/work-log.ts';
import { isEnded, type WorkLogTiming } from '../../../../shared/domain/work-log-timing.ts';
import type { EntryView } from '../../../../shared/views/work-log-views.ts';
import type { StepFormView } from '../../../../shared/views/step-form-views.ts';
import type { FieldType } from '../../../../shared/domain/step-forms.ts';

/** Stored attributes API 2.0 does not hand out, and what the crawler writes instead. */
export const WORK_LOG_UNEXPOSED = {
  WorkLogEntry: {
    version: 'internal optimistic-lock counter: starts again at 1',
    last_event: 'an ended entry: its endtime (exact); an open one: the moment the source read it',
    step_since: "an open entry's current step stretch: starts when the source read it, earlier seconds closed",
    idle_since: "a paused entry's pause: starts when the source read it, earlier seconds closed",
    step_seconds: "an open entry's active step: its seconds so far are closed when the source read it",
    paused_seconds: 'a paused entry: the pause so far is closed when the source read it',
    resume_stepid: 'the step a paused or suspended entry resumes on is not shown: it resumes on no step',
  },
  WorkLogValue: {
    userid: 'who saved a value is not shown: the entry operator',
    date: "when a value was saved is not shown: the entry's last event",
  },
} as const;

const PAGE_SIZE = 200;

/**
 * The stored timing an entry's totals come from. An open entry is rebuilt as of the moment the
 * source computed its totals (starttime + duration + paused_duration), not the crawler's clock.
 */
export function timingOf(view: EntryView): WorkLogTiming {
  const stepSeconds = Object.fromEntries(view.step_durations.map((step) => [String(step.stepid), step.duration]));
  if (isEnded(view.status)) {
    const endtime = view.endtime ?? view.starttime;
    return {
      status: view.status,
      starttime: view.starttime,
      endtime,
      active_stepid: null,
      step_since: null,
      resume_stepid: null,
      idle_since: null,
      paused_seconds: view.paused_duration,
      step_seconds: stepSeconds,
      last_event: endtime,
    };
  }
  const at = view.starttime + view.duration + view.paused_duration;
  const idle = view.status === 'paused' || view.status === 'suspended';
  return {
    status: view.status,
    starttime: view.starttime,
    endtime: null,
    active_stepid: idle ? null : view.active_stepid,
    step_since: !idle && view.active_stepid !== null ? at : null,
    resume_stepid: null,
    idle_since: idle ? at : null,
    paused_seconds: view.paused_duration,
    step_seconds: stepSeconds,
    last_event: at,
  };
}

export function entryRecordOf(view: EntryView): WorkLogEntryRecord {
  return {
    entryid: view.entryid,
    guideid: view.guideid,
    userid: view.userid,
    operator_userid: view.operator_userid,
    workorderid: view.workorderid,
    guide_revisionid: view.guide_revisionid,
    max_form_revisionid: view.max_form_revisionid,
    timingid: view.timingid ?? 0,
    version: 1,
    ...timingOf(view),
  };
}

/** Field types by field_revisionid, read once per form revision. */
class FieldTypes {
  private readonly known = new Map<number, FieldType | null>();
  constructor(private readonly context: CrawlContext) {}

  async of(fieldRevisionid: number): Promise<FieldType | null> {
    if (!this.known.has(fieldRevisionid)) {
      const form = await this.context.api.find<StepFormView>(`/step_forms/field_revisionid/${fieldRevisionid}`);
      for (const field of form?.fields ?? []) this.known.set(field.field_revisionid, field.field_type);
      if (!this.known.has(fieldRevisionid)) this.known.set(fieldRevisionid, null);
    }
    return this.known.get(fieldRevisionid)!;
  }
}

async function entryItems(context: CrawlContext, view: EntryView, types: FieldTypes) {
  const entry = entryRecordOf(view);
  const values: WorkLogValueRecord[] = [];
  for (const datum of view.work_data) {
    const fieldType = await types.of(datum.field_revisionid);
    if (!fieldType) {
      context.report.skipped(
        `work-log value ${view.entryid}/${datum.field_revisionid}`,
        'its field revision is not readable on the source',
      );
      continue;
    }
    values.push({
      entryid: entry.entryid,
      field_revisionid: datum.field_revisionid,
      stepid: datum.stepid,
      label: datum.label,
      field_type: fieldType,
      value: datum.value,
      userid: entry.operator_userid,
      date: entry.last_event,
    });
  }
  return itemsOfWrites([...entryCreateWrites(entry), ...values.map(valuePut)]);
}

export const workLogCrawler: ResourceCrawler = {
  name: 'work-log',
  after: ['users', 'guides'],
  async crawl(context) {
    const types = new FieldTypes(context);
    let sawData = false;
    let sawOpen = false;
    // Newest first: an entry started while the list is paged shifts it, so one may come twice.
    const read = new Set<number>();
    try {
      for await (const page of context.api.pages<EntryView>('/work_log', {
        pageSize: PAGE_SIZE,
        itemsOf: (body) => (body as { results: EntryView[] }).results,
      })) {
        for (const view of page) {
          if (read.has(view.entryid)) continue;
          read.add(view.entryid);
          const unit = `work_log:${view.entryid}`;
          context.sink.idSeen('work_log_entry', view.entryid);
          if (view.timingid) context.sink.idSeen('work_log_timing', view.timingid);
          if (context.isDone(unit)) continue;
          sawData ||= view.work_data.length > 0;
          sawOpen ||= !isEnded(view.status);
          await context.sink.items(await entryItems(context, view, types));
          await context.completed(unit);
        }
      }
    } catch (error) {
      if (!isDenied(error)) throw error;
      context.report.unexposed('work-log entries', 'the source refused GET /work_log to this account');
      return;
    }
    if (sawData) context.report.unexposed('work-log step data authorship', 'who saved each value, and when');
    if (sawOpen) {
      context.report.unexposed(
        'open work-log entries: timing moments',
        'carried as totals at crawl time; a paused entry resumes on no active step',
      );
    }
  },
};
