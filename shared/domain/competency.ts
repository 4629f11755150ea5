/**
 * Training follows the content (docs/competency.md): which releases ask people for a
 * read-and-understood acknowledgement and when it is due, competency levels with their expiry
 * and forecasts, and the gate that work on a guide passes through. Pure: the caller gathers
 * the facts and the time. The carry-over of a completion or level across releases is
 * stillValid in stage-status.ts (one rule for both).
 */
import { isNewerVersion, stillValid, type ReleaseVersion } from './stage-status.ts';

export const DAY_SECONDS = 86400;

// ---- levels ----

/** 0 not trained … 4 can train others; a site may rename them (names only, the numbers stay). */
export const MIN_LEVEL = 0;
export const MAX_LEVEL = 4;
export const DEFAULT_LEVEL_NAMES = [
  'Not trained',
  'In training',
  'Can do under supervision',
  'Independent',
  'Can train others',
] as const;
/** The level a trainer must hold in a skill to set others' levels in it (Admins may always). */
export const TRAINER_LEVEL = 4;

export const LEVEL_SOURCES = ['trainer_signature', 'course_completion', 'signoff'] as const;
export type LevelSource = (typeof LEVEL_SOURCES)[number];

/** When a level set at `setDate` expires under the skill's recertification interval (null: never). */
export function levelExpiry(setDate: number, recertificationDays: number | null): number | null {
  return recertificationDays ? setDate + recertificationDays * DAY_SECONDS : null;
}

export interface HeldLevel {
  level: number;
  expires_at: number | null;
  /** The guide's release the level was earned on (null: the guide had none then). */
  earned: ReleaseVersion | null;
}

export interface GuideReleaseFacts {
  /** The guide's current release (null: never released). */
  latest: ReleaseVersion | null;
  acknowledged: ReleaseVersion | null;
  retraining: ReleaseVersion | null;
}

export type LevelStanding = 'current' | 'none' | 'expired' | 'outdated';

/**
 * The level that counts for work on one guide now: the level held, unless it has expired or a
 * newer major release of the guide outdates it (and was not acknowledged, or needs retraining),
 * in which case it counts as 0.
 */
export function effectiveLevel(
  held: HeldLevel | null,
  guide: GuideReleaseFacts,
  now: number,
): { level: number; standing: LevelStanding } {
  if (!held || held.level <= MIN_LEVEL) return { level: MIN_LEVEL, standing: 'none' };
  if (held.expires_at !== null && now >= held.expires_at) return { level: MIN_LEVEL, standing: 'expired' };
  if (!stillValid({ strictness: 'major', earned: held.earned, ...guide }))
    return { level: MIN_LEVEL, standing: 'outdated' };
  return { level: held.level, standing: 'current' };
}

/** A course's mapping: completing a stage (null: the whole course) gives this level in this skill. */
export interface LevelGrant {
  course_stageid: number | null;
  skillid: number;
  level: number;
}

/**
 * Whether a completion (or an approved signoff) that a course maps to `granted` writes the
 * level (docs/competency.md "Levels from courses"). `completedAt` is the completion's date,
 * which the derived level keeps as its `set_date`, so deriving again from the same completion
 * writes nothing. A level set after the completion stays (a trainer's later word counts); a
 * higher level stays unless it was derived and has expired; a trainer's higher level always stays.
 */
export function derivesLevel(
  existing: { level: number; source: LevelSource; set_date: number; expires_at: number | null } | null,
  granted: number,
  completedAt: number,
  now: number,
): boolean {
  if (!existing) return true;
  if (completedAt <= existing.set_date) return false;
  if (granted >= existing.level) return true;
  const lapsed = existing.expires_at !== null && now >= existing.expires_at;
  return lapsed && existing.source !== 'trainer_signature';
}

export const FORECAST_WINDOWS = [30, 60, 90] as const;

/** Which of the levels lapse within each window from now (already lapsed ones are not forecast). */
export function expiryForecast<T extends { expires_at: number | null }>(
  levels: T[],
  now: number,
): Record<(typeof FORECAST_WINDOWS)[number], T[]> {
  const within = (days: number) =>
    levels.filter(
      (level) => level.expires_at !== null && level.expires_at > now && level.expires_at <= now + days * DAY_SECONDS,
    );
  return { 30: within(30), 60: within(60), 90: within(90) };
}

// ---- acknowledgements ----

export type AcknowledgementStrictness = 'major' | 'minor';

/** `major`: only a major release (N.0) asks for one; `minor`: every release does. */
export function asksForAcknowledgement(strictness: AcknowledgementStrictness, release: ReleaseVersion): boolean {
  return strictness === 'minor' || release.minor === 0;
}

/** Whether someone who last completed or acknowledged `base` needs to acknowledge `release`. */
export function needsAcknowledgement(
  strictness: AcknowledgementStrictness,
  base: ReleaseVersion | null,
  release: ReleaseVersion,
): boolean {
  return asksForAcknowledgement(strictness, release) && (base === null || isNewerVersion(release, base));
}

/** The strictest of two: `minor` asks for more releases. */
export const stricter = (a: AcknowledgementStrictness, b: AcknowledgementStrictness): AcknowledgementStrictness =>
  a === 'minor' || b === 'minor' ? 'minor' : 'major';

/** The strictest of the stages' own strictness (null: none of them has one). */
export function stagesStrictness(
  stages: ReadonlyArray<AcknowledgementStrictness | null>,
): AcknowledgementStrictness | null {
  return stages.reduce<AcknowledgementStrictness | null>(
    (found, stage) => (stage === null ? found : found === null ? stage : stricter(found, stage)),
    null,
  );
}

/** Why one person is concerned by a release of a document, as the strictness rule needs it. */
export interface ConcernFacts {
  /** Per course the person is assigned that has the document as a stage: those stages' strictness. */
  assignedCourses: Array<Array<AcknowledgementStrictness | null>>;
  /** Every course stage on the document (empty: the document is in no course). */
  allStages: Array<AcknowledgementStrictness | null>;
  document: AcknowledgementStrictness | null;
  site: AcknowledgementStrictness | null;
  /** A completion of the document, or the author's audience. */
  traineeOrAudience: boolean;
  /** The settings of the skills with the guide the person holds a level in. */
  skills: AcknowledgementStrictness[];
}

/**
 * Which strictness decides whether a release asks the person (docs/competency.md, decision 246):
 * a course decides for its assignees (its stages' own, else the document's, the site's, `major`;
 * several courses: the strictest); others take the strictest of every stage on the document, and
 * for a skill outside any course, the document's setting else the skill's. Null: not concerned.
 */
export function concernStrictness(facts: ConcernFacts): AcknowledgementStrictness | null {
  const fallback = facts.document ?? facts.site ?? 'major';
  if (facts.assignedCourses.length > 0)
    return facts.assignedCourses.map((stages) => stagesStrictness(stages) ?? fallback).reduce(stricter);
  const courses = stagesStrictness(facts.allStages) ?? fallback;
  const inCourse = facts.allStages.length > 0;
  const found = [
    ...(facts.traineeOrAudience ? [courses] : []),
    ...facts.skills.map((skill) => (inCourse ? courses : (facts.document ?? skill))),
  ];
  return found.length === 0 ? null : found.reduce(stricter);
}

export const DEFAULT_ACKNOWLEDGEMENT_DUE_DAYS = 14;

export function acknowledgementDueDate(releaseDate: number, dueDays: number): number {
  return releaseDate + dueDays * DAY_SECONDS;
}

export type AcknowledgementState = 'signed' | 'pending' | 'overdue';

export function acknowledgementState(
  ack: { signed_date: number | null; due_date: number },
  now: number,
): AcknowledgementState {
  if (ack.signed_date !== null) return 'signed';
  return now >= ack.due_date ? 'overdue' : 'pending';
}

// ---- the gate on work ----

export const GATE_MODES = ['off', 'warn', 'block'] as const;
export type GateMode = (typeof GATE_MODES)[number];

export interface SkillCheck {
  skillid: number;
  name: string;
  required: number;
  /** The level that counts (effectiveLevel). */
  held: number;
  standing: LevelStanding;
}

export type GateOutcome = 'allow' | 'warn' | 'block';

/**
 * The gate: every skill the guide belongs to must be held at the minimum. A guide in no skill,
 * or mode `off`, lets everyone work; a shortfall is refused (`block`) or let through flagged (`warn`).
 */
export function gateDecision(mode: GateMode, checks: SkillCheck[]): { outcome: GateOutcome; shortfalls: SkillCheck[] } {
  const shortfalls = checks.filter((check) => check.held < check.required);
  if (mode === 'off' || shortfalls.length === 0) return { outcome: 'allow', shortfalls };
  return { outcome: mode, shortfalls };
}

const STANDING_NOTE: Record<LevelStanding, string> = {
  current: '',
  none: '',
  expired: ' (expired)',
  outdated: ' (outdated by a newer release)',
};

/** The 403's reason: names each skill, the level required and the level held. */
export function shortfallMessage(shortfalls: SkillCheck[]): string {
  const parts = shortfalls.map(
    (check) =>
      `skill "${check.name}" (skillid ${check.skillid}) requires level ${check.required}, ` +
      `level held ${check.held}${STANDING_NOTE[check.standing]}`,
  );
  return `Not qualified for this guide: ${parts.join('; ')}`;
}
