/**
 * Trainer authority, one rule (docs/competency.md "Trainer authority"; decision 303): who
 * certifies (sets a level in a skill), countersigns an acknowledgement or overrides the gate
 * is an Admin, or someone whose level 4 COUNTS in the skills concerned — the same test the gate
 * makes (`effectiveLevel`): not expired, and not outdated by a newer major release of a guide
 * of the skill that they have not acknowledged (or by a release marked for retraining).
 *
 * - certify in a skill: the level must count on every guide of the skill (a skill with no guide:
 *   unexpired is enough);
 * - countersign / override on a guide: the level must count on that guide in every skill of it
 *   (a guide in no skill has no trainer but Admins).
 */
import { ForbiddenError } from '../domain/errors.ts';
import { isAdmin, type Caller } from '../domain/caller.ts';
import { effectiveLevel, TRAINER_LEVEL, type LevelStanding } from '../domain/competency.ts';
import { getLevel } from '../db/entities/qualification-level.ts';
import type { SkillRecord } from '../db/entities/skill.ts';
import { guideFacts, qualificationChecks } from './qualification-gate.ts';

export type TrainerAct = 'certify' | 'countersign' | 'override';

/** One skill (on one guide, when a guide decides) where the trainer's level falls short. */
export interface TrainerShortfall {
  skillid: number;
  name: string;
  guideid: number | null;
  level_held: number;
  standing: LevelStanding;
}

const ACT_WORDS: Record<TrainerAct, string> = {
  certify: 'sets levels',
  countersign: 'countersigns',
  override: 'overrides the gate',
};

/** Why a shortfall refuses, in words. */
function reason(short: TrainerShortfall): string {
  const where = short.guideid === null ? '' : ` for guide ${short.guideid}`;
  switch (short.standing) {
    case 'expired':
      return `your level in "${short.name}" has expired`;
    case 'outdated':
      return `your level in "${short.name}" is outdated${where} by a newer major release (acknowledge it first)`;
    case 'none':
      return `you hold no level in "${short.name}"`;
    default:
      return `you hold level ${short.level_held} in "${short.name}"`;
  }
}

/** Where a person's level 4 in the skill does not count, guide by guide (empty: they may certify in it). */
export async function certifyShortfalls(userid: number, skill: SkillRecord, now: number): Promise<TrainerShortfall[]> {
  const held = await getLevel(userid, skill.skillid);
  const guides: (number | null)[] = skill.guideids.length > 0 ? skill.guideids : [null];
  const counted = await Promise.all(
    guides.map(async (guideid) => {
      const earned = guideid === null ? null : (held?.earned.find((e) => e.guideid === guideid)?.release ?? null);
      const facts =
        guideid === null ? { latest: null, acknowledged: null, retraining: null } : await guideFacts(guideid, userid);
      const level = effectiveLevel(
        held ? { level: held.level, expires_at: held.expires_at, earned } : null,
        facts,
        now,
      );
      return { guideid, ...level };
    }),
  );
  return counted
    .filter((c) => c.level < TRAINER_LEVEL)
    .map((c) => ({
      skillid: skill.skillid,
      name: skill.name,
      guideid: c.guideid,
      level_held: held?.level ?? 0,
      standing: c.standing,
    }));
}

/** Where a person's level 4 does not count on the guide (null: the guide is in no skill). */
export async function guideTrainerShortfalls(
  userid: number,
  guideid: number,
  now: number,
): Promise<TrainerShortfall[] | null> {
  const checks = await qualificationChecks(guideid, userid, TRAINER_LEVEL, now);
  if (checks.length === 0) return null;
  return checks
    .filter((check) => check.held < TRAINER_LEVEL)
    .map((check) => ({
      skillid: check.skillid,
      name: check.name,
      guideid,
      level_held: check.level,
      standing: check.standing,
    }));
}

/** Whether someone is a trainer on the guide (level 4 counting in every skill of it); Admins aside. */
export async function isTrainerFor(guideid: number, userid: number, now: number): Promise<boolean> {
  const shortfalls = await guideTrainerShortfalls(userid, guideid, now);
  return shortfalls !== null && shortfalls.length === 0;
}

function refuse(act: TrainerAct, subject: string, shortfalls: TrainerShortfall[]): never {
  const reasons = shortfalls.length > 0 ? `: ${[...new Set(shortfalls.map(reason))].join('; ')}` : '';
  throw new ForbiddenError(
    `Only an Admin or a trainer holding a current level ${TRAINER_LEVEL} (not expired, not outdated by a ` +
      `newer major release) in ${subject} ${ACT_WORDS[act]}${reasons}`,
    { skills: shortfalls },
  );
}

/** Certifying in a skill: an Admin, or level 4 counting on every guide of the skill; else 403. */
export async function assertMayCertify(caller: Caller, skill: SkillRecord, now: number): Promise<void> {
  if (isAdmin(caller)) return;
  const shortfalls = await certifyShortfalls(caller.userid, skill, now);
  if (shortfalls.length > 0) refuse('certify', `skill "${skill.name}"`, shortfalls);
}

/** Countersigning or overriding on a guide: an Admin, or level 4 counting in every skill of it; else 403. */
export async function assertTrainerOnGuide(
  caller: Caller,
  act: Exclude<TrainerAct, 'certify'>,
  guideid: number,
  now: number,
): Promise<void> {
  if (isAdmin(caller)) return;
  const shortfalls = await guideTrainerShortfalls(caller.userid, guideid, now);
  if (shortfalls === null) refuse(act, `every skill of guide ${guideid} (it is in none)`, []);
  if (shortfalls.length > 0) refuse(act, `every skill of guide ${guideid}`, shortfalls);
}
