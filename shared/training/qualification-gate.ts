/**
 * The gate on work (docs/competency.md): the operator's level in every skill a guide belongs to,
 * as it counts for the guide's current major release (expiry; carried over by an acknowledgement
 * unless a retraining release came after), against the minimum. Mode and minimum: the guide's
 * setting, else the site's, else off.
 */
import { getAcknowledgedVersions, getRetrainingMarks, versionOf } from '../db/entities/acknowledgement.ts';
import { getLevels, type QualificationLevelRecord } from '../db/entities/qualification-level.ts';
import { latestRelease } from '../db/entities/release.ts';
import { skillsOfGuide, type SkillRecord } from '../db/entities/skill.ts';
import { getSiteAndDocumentSettings } from '../db/entities/training-settings.ts';
import {
  effectiveLevel,
  gateDecision,
  type GateMode,
  type GateOutcome,
  type LevelStanding,
  type SkillCheck,
} from '../domain/competency.ts';
import type { ReleaseVersion } from '../domain/stage-status.ts';

export interface GateCheck extends SkillCheck {
  /** The level stored, its expiry and source (recorded on the entry as they were). */
  level: number;
  expires_at: number | null;
  source: QualificationLevelRecord['source'] | null;
}

export interface GateResult {
  mode: GateMode;
  min_level: number;
  outcome: GateOutcome;
  checks: GateCheck[];
  shortfalls: GateCheck[];
}

/** The level a minimum of nothing set means: independent work. */
const DEFAULT_MIN_LEVEL = 3;

/**
 * What decides whether a level still counts on a guide: its latest release, the person's
 * acknowledged version, the last retraining mark.
 */
export async function guideFacts(guideid: number, userid: number) {
  const [release, [acked], [mark]] = await Promise.all([
    latestRelease('guide', guideid),
    getAcknowledgedVersions([{ userid, doctype: 'guide', docid: guideid }]),
    getRetrainingMarks([{ doctype: 'guide', docid: guideid }]),
  ]);
  const latest: ReleaseVersion | null = release ? { major: release.major, minor: release.minor } : null;
  return { latest, acknowledged: acked ? versionOf(acked) : null, retraining: mark ? versionOf(mark) : null };
}

/**
 * How held levels stand now across every guide of their skill, for reports over many people: the
 * gate's test (effectiveLevel) on each guide, the first guide where the level does not count
 * decides (`expired`, `outdated`); a skill with no guide: expiry only. Read in batches: one Query
 * per distinct guide for its current release, BatchGets for the marks and the acknowledgements.
 */
export async function skillStandings(
  entries: ReadonlyArray<{ held: QualificationLevelRecord; skill: SkillRecord }>,
  now: number,
): Promise<LevelStanding[]> {
  const guideids = [...new Set(entries.flatMap((entry) => entry.skill.guideids))];
  const pairs = [
    ...new Map(
      entries.flatMap((entry) =>
        entry.skill.guideids.map((docid) => [
          `${entry.held.userid}#${docid}`,
          { userid: entry.held.userid, doctype: 'guide' as const, docid },
        ]),
      ),
    ).values(),
  ];
  const [releases, marks, acked] = await Promise.all([
    Promise.all(guideids.map((guideid) => latestRelease('guide', guideid))),
    getRetrainingMarks(guideids.map((docid) => ({ doctype: 'guide' as const, docid }))),
    getAcknowledgedVersions(pairs),
  ]);
  const latestOf = new Map<number, ReleaseVersion>();
  guideids.forEach((guideid, index) => {
    const release = releases[index];
    if (release) latestOf.set(guideid, { major: release.major, minor: release.minor });
  });
  const markOf = new Map(marks.map((mark) => [mark.docid, versionOf(mark)]));
  const ackedOf = new Map(acked.map((record) => [`${record.userid}#${record.docid}`, versionOf(record)]));
  return entries.map(({ held, skill }) => {
    const guides: (number | null)[] = skill.guideids.length > 0 ? skill.guideids : [null];
    for (const guideid of guides) {
      const earned =
        guideid === null ? null : (held.earned.find((entry) => entry.guideid === guideid)?.release ?? null);
      const facts =
        guideid === null
          ? { latest: null, acknowledged: null, retraining: null }
          : {
              latest: latestOf.get(guideid) ?? null,
              acknowledged: ackedOf.get(`${held.userid}#${guideid}`) ?? null,
              retraining: markOf.get(guideid) ?? null,
            };
      const counted = effectiveLevel({ level: held.level, expires_at: held.expires_at, earned }, facts, now);
      if (counted.standing !== 'current') return counted.standing;
    }
    return 'current';
  });
}

/** Each skill of the guide with the operator's level as it counts now. */
export async function qualificationChecks(guideid: number, userid: number, required: number, now: number) {
  const skills = await skillsOfGuide(guideid);
  if (skills.length === 0) return [];
  const [levels, facts] = await Promise.all([
    getLevels(skills.map((skill) => ({ userid, skillid: skill.skillid }))),
    guideFacts(guideid, userid),
  ]);
  const levelOf = new Map(levels.map((level) => [level.skillid, level]));
  return skills.map((skill): GateCheck => {
    const held = levelOf.get(skill.skillid);
    const earned = held?.earned.find((entry) => entry.guideid === guideid)?.release ?? null;
    const counted = effectiveLevel(
      held ? { level: held.level, expires_at: held.expires_at, earned } : null,
      facts,
      now,
    );
    return {
      skillid: skill.skillid,
      name: skill.name,
      required,
      held: counted.level,
      standing: counted.standing,
      level: held?.level ?? 0,
      expires_at: held?.expires_at ?? null,
      source: held?.source ?? null,
    };
  });
}

/** The gate for an operator on a guide; the checks are made in every mode (an entry records them). */
export async function gateFor(guideid: number, userid: number, now: number): Promise<GateResult> {
  const [site, guide] = await getSiteAndDocumentSettings({ kind: 'guide', docid: guideid });
  const mode = guide.gate_mode ?? site.gate_mode ?? 'off';
  const min_level = guide.min_level ?? site.min_level ?? DEFAULT_MIN_LEVEL;
  const checks = await qualificationChecks(guideid, userid, min_level, now);
  const decision = gateDecision(mode, checks);
  return { mode, min_level, outcome: decision.outcome, checks, shortfalls: decision.shortfalls as GateCheck[] };
}

/** Only whether the gate blocks the operator (one BatchGet when the guide is not gated `block`). */
export async function gateBlocks(guideid: number, userid: number, now: number): Promise<GateResult | null> {
  const [site, guide] = await getSiteAndDocumentSettings({ kind: 'guide', docid: guideid });
  if ((guide.gate_mode ?? site.gate_mode) !== 'block') return null;
  const gate = await gateFor(guideid, userid, now);
  return gate.outcome === 'block' ? gate : null;
}
