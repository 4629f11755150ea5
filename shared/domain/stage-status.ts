/**
 * The one rule that decides a course stage's {status, reason} for one trainee, from the facts:
 * the stage's rules (strictness, recurrence, signoff, quiz), the latest release of its
 * document, the trainee's last completion, the signoff and quiz state, and the time.
 * Pure: no I/O, no clock of its own. The full table is docs/stage-status.md; the first rule
 * that applies wins.
 */

export const STAGE_STATUSES = ['pending', 'started', 'completed', 'expired', 'invalidated', 'blocked'] as const;
export const STAGE_REASONS = [
  'manager_override',
  'newer_release',
  'quiz_locked',
  'completed',
  'requested_signoff',
  'not_started',
  'doc_in_progress',
  'recurrence_expired',
  'incomplete_assessment',
  'signoff_approved',
] as const;

export type StageStatus = (typeof STAGE_STATUSES)[number];
export type StageReason = (typeof STAGE_REASONS)[number];
export type Strictness = 'major' | 'minor' | null;
export type FrequencyUnit = 'day' | 'week' | 'month' | 'year';
export type SignoffState = 'none' | 'requested' | 'responded' | 'acknowledged' | 'rejected';
export type QuizState = 'not_started' | 'in_progress' | 'passed' | 'failed' | 'locked';

export interface StageRule {
  strictness: Strictness;
  frequency_quantity: number | null;
  frequency_unit: FrequencyUnit | null;
  requires_signoff: boolean;
  requires_quiz: boolean;
}

export interface ReleaseVersion {
  major: number;
  minor: number;
}

export interface CompletionFacts {
  init_date: number;
  end_date: number | null;
  manager_override_userid: number | null;
  /** The document's release when the trainee completed it (null: the document had none). */
  release: ReleaseVersion | null;
  /** Set when a manager invalidated this completion. */
  invalidated_at: number | null;
}

export interface StageFacts {
  rule: StageRule;
  latestRelease: ReleaseVersion | null;
  completion: CompletionFacts | null;
  signoff: SignoffState;
  quiz: QuizState;
  now: number;
  /**
   * The newest release of the document the trainee acknowledged (read-and-understood,
   * docs/competency.md); absent or null: none.
   */
  acknowledged?: ReleaseVersion | null;
  /** The newest release of the document its author marked as needing retraining; absent or null: none. */
  retraining?: ReleaseVersion | null;
}

export interface StageState {
  status: StageStatus;
  reason: StageReason;
}

/** Every (status, reason) pair the rule can produce; the spec's three examples are among them. */
export const STAGE_STATE_PAIRS: ReadonlyArray<StageState> = [
  { status: 'blocked', reason: 'quiz_locked' },
  { status: 'pending', reason: 'not_started' },
  { status: 'invalidated', reason: 'manager_override' },
  { status: 'started', reason: 'doc_in_progress' },
  { status: 'invalidated', reason: 'newer_release' },
  { status: 'expired', reason: 'recurrence_expired' },
  { status: 'completed', reason: 'manager_override' },
  { status: 'started', reason: 'incomplete_assessment' },
  { status: 'blocked', reason: 'requested_signoff' },
  { status: 'completed', reason: 'signoff_approved' },
  { status: 'completed', reason: 'completed' },
];

/**
 * Does a release newer than the completed one make the completion stale?
 * major strictness: only a new major version; minor strictness: any newer version;
 * no strictness: releases never invalidate.
 */
export function isOutdatedBy(
  strictness: Strictness,
  completed: ReleaseVersion | null,
  latest: ReleaseVersion | null,
): boolean {
  if (strictness === null || latest === null) return false;
  const base = completed ?? { major: 0, minor: 0 };
  if (strictness === 'major') return latest.major > base.major;
  return latest.major > base.major || (latest.major === base.major && latest.minor > base.minor);
}

/** a is a later version than b. */
export function isNewerVersion(a: ReleaseVersion, b: ReleaseVersion): boolean {
  return a.major > b.major || (a.major === b.major && a.minor > b.minor);
}

export interface CarryOverFacts {
  strictness: Strictness;
  /** The release the completion (or level) was earned on; null: before any release (0.0). */
  earned: ReleaseVersion | null;
  latest: ReleaseVersion | null;
  acknowledged: ReleaseVersion | null;
  retraining: ReleaseVersion | null;
}

/**
 * Does what was earned on `earned` still hold on `latest`? Without strictness releases never
 * matter. Otherwise a release after `earned` that its author marked as needing retraining
 * invalidates it (whatever its type); else it holds unless a newer release outdates it under the
 * strictness and the person has not acknowledged a release the latest does not outdate in turn
 * (read-and-understood carries the qualification over; docs/stage-status.md row 5).
 */
export function stillValid(facts: CarryOverFacts): boolean {
  if (facts.strictness === null || facts.latest === null) return true;
  const earned = facts.earned ?? { major: 0, minor: 0 };
  if (facts.retraining && isNewerVersion(facts.retraining, earned)) return false;
  if (!isOutdatedBy(facts.strictness, facts.earned, facts.latest)) return true;
  return facts.acknowledged != null && !isOutdatedBy(facts.strictness, facts.acknowledged, facts.latest);
}

/** When a completion that ended at `endDate` expires under the recurrence, or null if never. */
export function recurrenceDeadline(rule: StageRule, endDate: number): number | null {
  if (!rule.frequency_quantity || !rule.frequency_unit) return null;
  const end = new Date(endDate * 1000);
  const quantity = rule.frequency_quantity;
  switch (rule.frequency_unit) {
    case 'day':
      return endDate + quantity * 86400;
    case 'week':
      return endDate + quantity * 7 * 86400;
    case 'month':
      end.setUTCMonth(end.getUTCMonth() + quantity);
      return Math.floor(end.getTime() / 1000);
    case 'year':
      end.setUTCFullYear(end.getUTCFullYear() + quantity);
      return Math.floor(end.getTime() / 1000);
  }
}

export function stageStatus(facts: StageFacts): StageState {
  const { rule, completion, now } = facts;
  const overridden =
    completion?.manager_override_userid != null && completion.end_date !== null && completion.invalidated_at === null;

  if (facts.quiz === 'locked' && !overridden) return { status: 'blocked', reason: 'quiz_locked' };
  if (!completion) return { status: 'pending', reason: 'not_started' };
  if (completion.invalidated_at !== null) return { status: 'invalidated', reason: 'manager_override' };
  if (completion.end_date === null) return { status: 'started', reason: 'doc_in_progress' };
  const carried = stillValid({
    strictness: rule.strictness,
    earned: completion.release,
    latest: facts.latestRelease,
    acknowledged: facts.acknowledged ?? null,
    retraining: facts.retraining ?? null,
  });
  if (!carried) return { status: 'invalidated', reason: 'newer_release' };
  const deadline = recurrenceDeadline(rule, completion.end_date);
  if (deadline !== null && now >= deadline) return { status: 'expired', reason: 'recurrence_expired' };
  if (overridden) return { status: 'completed', reason: 'manager_override' };
  if (rule.requires_quiz && facts.quiz !== 'passed') return { status: 'started', reason: 'incomplete_assessment' };
  if (rule.requires_signoff) {
    if (facts.signoff === 'requested' || facts.signoff === 'responded')
      return { status: 'blocked', reason: 'requested_signoff' };
    if (facts.signoff === 'acknowledged') return { status: 'completed', reason: 'signoff_approved' };
    return { status: 'started', reason: 'incomplete_assessment' };
  }
  return { status: 'completed', reason: 'completed' };
}

/** True when the state counts as done for progress and reports. */
export function isComplete(state: StageState): boolean {
  return state.status === 'completed';
}
