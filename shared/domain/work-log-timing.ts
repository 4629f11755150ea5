/**
 * The timing of one work-log entry (one run-through of a guide), without I/O. The rules
 * (docs/work-log.md "States and transitions", "Timing model"):
 * - started: the clock runs; at most one step is active (its time counts up).
 * - paused: the clock stops, the active step becomes inactive and pause time counts up;
 *   resume returns to the step that was active.
 * - suspended: like a pause, but handed over: another user may assume the entry, which
 *   resumes the step that was active. Only an entry in progress (started) can be suspended.
 * - complete / cancelled: finish and cancel set the end time to now; nothing changes after.
 * Idle time (paused or suspended) is never working time: duration = elapsed - idle.
 * Every operation answers either the new timing or why it is illegal; an illegal operation
 * changes nothing. A clock that goes backwards (another server) is read as the latest moment
 * the timing has seen, so no interval is ever negative.
 */

export const WORK_LOG_STATUSES = ['started', 'paused', 'suspended', 'complete', 'cancelled'] as const;
export type WorkLogStatus = (typeof WORK_LOG_STATUSES)[number];

export interface WorkLogTiming {
  status: WorkLogStatus;
  starttime: number;
  /** Set by finish and cancel; null while the entry is open. */
  endtime: number | null;
  /** The step being worked on; null before the first step and whenever the clock is stopped. */
  active_stepid: number | null;
  /** When the active step's current stretch began (null when no step is active). */
  step_since: number | null;
  /** The step that was active when the entry was paused or suspended: resume returns to it. */
  resume_stepid: number | null;
  /** When the current pause or suspension began (null when the clock runs or the entry ended). */
  idle_since: number | null;
  /** Idle seconds of pauses and suspensions that have ended. */
  paused_seconds: number;
  /** Active seconds of each step (keyed by stepid), stretches that have ended. */
  step_seconds: Record<string, number>;
  /** The latest moment any operation happened at. */
  last_event: number;
}

export type TimingOperation = 'pause' | 'resume' | 'suspend' | 'assume' | 'finish' | 'cancel' | 'activateStep';

export type TransitionResult =
  | { ok: true; timing: WorkLogTiming; changed: boolean }
  | { ok: false; code: string; message: string };

const OPEN: readonly WorkLogStatus[] = ['started', 'paused', 'suspended'];

export function isEnded(status: WorkLogStatus): boolean {
  return status === 'complete' || status === 'cancelled';
}

export function startTiming(now: number): WorkLogTiming {
  return {
    status: 'started',
    starttime: now,
    endtime: null,
    active_stepid: null,
    step_since: null,
    resume_stepid: null,
    idle_since: null,
    paused_seconds: 0,
    step_seconds: {},
    last_event: now,
  };
}

/** `now`, unless a clock went backwards: never earlier than anything already recorded. */
function momentOf(timing: WorkLogTiming, now: number): number {
  return Math.max(now, timing.last_event);
}

/** Ends the active step's stretch at `at`, adding it to that step's seconds. */
function closeStep(timing: WorkLogTiming, at: number): WorkLogTiming {
  if (timing.active_stepid === null || timing.step_since === null)
    return { ...timing, active_stepid: null, step_since: null };
  const key = String(timing.active_stepid);
  const seconds = (timing.step_seconds[key] ?? 0) + (at - timing.step_since);
  return { ...timing, active_stepid: null, step_since: null, step_seconds: { ...timing.step_seconds, [key]: seconds } };
}

/** Ends the current pause or suspension at `at`, adding it to the idle seconds. */
function closeIdle(timing: WorkLogTiming, at: number): WorkLogTiming {
  if (timing.idle_since === null) return timing;
  return { ...timing, idle_since: null, paused_seconds: timing.paused_seconds + (at - timing.idle_since) };
}

function refuse(code: string, message: string): TransitionResult {
  return { ok: false, code, message };
}

function endedRefusal(timing: WorkLogTiming): TransitionResult {
  return refuse(
    `entry_${timing.status}`,
    `The entry is ${timing.status === 'complete' ? 'complete' : 'cancelled'}; its timing can no longer change`,
  );
}

/** Stops the clock (pause or suspend): the active step becomes inactive and is remembered. */
function stopClock(timing: WorkLogTiming, at: number, status: 'paused' | 'suspended'): WorkLogTiming {
  const resumeStep = timing.active_stepid;
  return { ...closeStep(timing, at), status, resume_stepid: resumeStep, idle_since: at, last_event: at };
}

/** Restarts the clock (resume or assume) on the step that was active. */
function restartClock(timing: WorkLogTiming, at: number): WorkLogTiming {
  const step = timing.resume_stepid;
  return {
    ...closeIdle(timing, at),
    status: 'started',
    active_stepid: step,
    step_since: step === null ? null : at,
    resume_stepid: null,
    last_event: at,
  };
}

export function pause(timing: WorkLogTiming, now: number): TransitionResult {
  if (timing.status === 'paused') return refuse('already_paused', 'The entry is already paused');
  if (timing.status === 'suspended')
    return refuse('entry_suspended', 'The entry is suspended; it must be assumed before it can be paused');
  if (isEnded(timing.status)) return endedRefusal(timing);
  return { ok: true, changed: true, timing: stopClock(timing, momentOf(timing, now), 'paused') };
}

export function resume(timing: WorkLogTiming, now: number): TransitionResult {
  if (timing.status === 'started') return refuse('not_paused', 'The entry is not paused');
  if (timing.status === 'suspended') return refuse('entry_suspended', 'The entry is suspended; assume it to continue');
  if (isEnded(timing.status)) return endedRefusal(timing);
  return { ok: true, changed: true, timing: restartClock(timing, momentOf(timing, now)) };
}

export function suspend(timing: WorkLogTiming, now: number): TransitionResult {
  if (timing.status === 'suspended') return refuse('already_suspended', 'The entry is already suspended');
  if (timing.status === 'paused')
    return refuse('not_in_progress', 'Only an entry in progress can be suspended; resume it first');
  if (isEnded(timing.status)) return endedRefusal(timing);
  return { ok: true, changed: true, timing: stopClock(timing, momentOf(timing, now), 'suspended') };
}

export function assume(timing: WorkLogTiming, now: number): TransitionResult {
  if (timing.status !== 'suspended') {
    if (isEnded(timing.status)) return endedRefusal(timing);
    return refuse('not_suspended', 'Only a suspended entry can be assumed');
  }
  return { ok: true, changed: true, timing: restartClock(timing, momentOf(timing, now)) };
}

function end(timing: WorkLogTiming, now: number, status: 'complete' | 'cancelled'): TransitionResult {
  if (!OPEN.includes(timing.status)) return endedRefusal(timing);
  const at = momentOf(timing, now);
  const closed = closeIdle(closeStep(timing, at), at);
  return { ok: true, changed: true, timing: { ...closed, status, endtime: at, resume_stepid: null, last_event: at } };
}

export function finish(timing: WorkLogTiming, now: number): TransitionResult {
  return end(timing, now, 'complete');
}

export function cancel(timing: WorkLogTiming, now: number): TransitionResult {
  return end(timing, now, 'cancelled');
}

/** Makes `stepid` the one active step (the previous one's stretch ends). Only while started. */
export function activateStep(timing: WorkLogTiming, stepid: number, now: number): TransitionResult {
  if (timing.status === 'paused')
    return refuse('entry_paused', 'The entry is paused; resume it before moving to another step');
  if (timing.status === 'suspended')
    return refuse('entry_suspended', 'The entry is suspended; assume it before moving to another step');
  if (isEnded(timing.status)) return endedRefusal(timing);
  if (timing.active_stepid === stepid) return { ok: true, changed: false, timing };
  const at = momentOf(timing, now);
  return {
    ok: true,
    changed: true,
    timing: { ...closeStep(timing, at), active_stepid: stepid, step_since: at, last_event: at },
  };
}

/** Applies a named operation (the work-log routes map one to one onto these). */
export function applyOperation(
  timing: WorkLogTiming,
  operation: Exclude<TimingOperation, 'activateStep'>,
  now: number,
): TransitionResult {
  switch (operation) {
    case 'pause':
      return pause(timing, now);
    case 'resume':
      return resume(timing, now);
    case 'suspend':
      return suspend(timing, now);
    case 'assume':
      return assume(timing, now);
    case 'finish':
      return finish(timing, now);
    case 'cancel':
      return cancel(timing, now);
  }
}

export interface TimingTotals {
  /** Working seconds: elapsed minus idle. */
  duration: number;
  /** Idle seconds (pauses and suspensions), counting up while the entry is paused or suspended. */
  paused_duration: number;
  /** Active seconds per step, counting up for the active step. */
  step_durations: Array<{ stepid: number; duration: number }>;
}

/** The totals at `now` (or at the end time of an ended entry). */
export function timingTotals(timing: WorkLogTiming, now: number): TimingTotals {
  const at = timing.endtime ?? momentOf(timing, now);
  const paused = timing.paused_seconds + (timing.idle_since === null ? 0 : at - timing.idle_since);
  const steps = new Map(Object.entries(timing.step_seconds).map(([stepid, seconds]) => [Number(stepid), seconds]));
  if (timing.active_stepid !== null && timing.step_since !== null) {
    steps.set(timing.active_stepid, (steps.get(timing.active_stepid) ?? 0) + (at - timing.step_since));
  }
  return {
    duration: at - timing.starttime - paused,
    paused_duration: paused,
    step_durations: [...steps].map(([stepid, duration]) => ({ stepid, duration })).sort((a, b) => a.stepid - b.stepid),
  };
}

/** What is inconsistent about a timing (empty when it is consistent): the invariants of the model. */
export function timingProblems(timing: WorkLogTiming): string[] {
  const problems: string[] = [];
  const { status } = timing;
  if (timing.last_event < timing.starttime) problems.push('last_event before starttime');
  if (timing.paused_seconds < 0) problems.push('negative paused_seconds');
  if (Object.values(timing.step_seconds).some((seconds) => seconds < 0)) problems.push('negative step seconds');
  if ((timing.active_stepid === null) !== (timing.step_since === null))
    problems.push('active step without its start (or the reverse)');
  if (status === 'started' && timing.idle_since !== null) problems.push('started but idle');
  if (status === 'started' && timing.resume_stepid !== null) problems.push('started with a step to resume');
  if ((status === 'paused' || status === 'suspended') && (timing.idle_since === null || timing.active_stepid !== null))
    problems.push(`${status} without a stopped clock`);
  if (isEnded(status) && (timing.endtime === null || timing.idle_since !== null || timing.active_stepid !== null))
    problems.push(`${status} but still timing`);
  if (!isEnded(status) && timing.endtime !== null) problems.push('open entry with an end time');
  if (timing.endtime !== null && timing.endtime < timing.starttime) problems.push('endtime before starttime');
  const totals = timingTotals(timing, timing.last_event);
  const stepTotal = totals.step_durations.reduce((sum, step) => sum + step.duration, 0);
  if (totals.duration < 0) problems.push('negative duration');
  if (stepTotal > totals.duration) problems.push('step time exceeds working time');
  return problems;
}
