/**
 * Required skills and the gap report (docs/competency.md "Requirements and gaps"): the wire
 * shapes and their builders. Pure projections of the records given.
 */
import * as z from 'zod/mini';
import { actorUserid } from '../domain/caller.ts';
import { actingTokenSchema, actingTokenView } from './common-schemas.ts';
import type { SkillRecord } from '../db/entities/skill.ts';
import type { SkillRequirementRecord } from '../db/entities/skill-requirement.ts';
import type { QualificationLevelRecord } from '../db/entities/qualification-level.ts';
import type { GapStatus, RequiredBy } from '../domain/requirement-gaps.ts';

const roleEnum = z.enum(['Admin', 'Author', 'User']);

export const requirementSchema = z.object({
  skillid: z.int(),
  skill_name: z.string(),
  level: z.int(),
  /** null when a site API token set it (`set_by_userid_token` names it; decision 260). */
  set_by_userid: z.nullable(z.int()),
  set_by_userid_token: z.optional(actingTokenSchema),
  set_date: z.number(),
});

export const requirementsSchema = z.object({
  scope: z.enum(['team', 'role']),
  teamid: z.nullable(z.int()),
  role: z.nullable(roleEnum),
  requirements: z.array(requirementSchema),
});

const requiredBySchema = z.object({
  scope: z.enum(['team', 'role']),
  teamid: z.optional(z.int()),
  role: z.optional(roleEnum),
});

export const gapCellSchema = z.object({
  skillid: z.int(),
  skill_name: z.string(),
  required_level: z.int(),
  level: z.int(),
  expires_at: z.nullable(z.number()),
  status: z.enum(['met', 'expiring', 'expired', 'outdated', 'missing']),
  required_by: z.array(requiredBySchema),
});

export const gapRowSchema = z.object({
  userid: z.int(),
  username: z.string(),
  missing: z.int(),
  expired: z.int(),
  outdated: z.int(),
  expiring: z.int(),
  skills: z.array(gapCellSchema),
});

export type GapCell = z.output<typeof gapCellSchema>;
export type GapRow = z.output<typeof gapRowSchema>;

export function requirementsView(
  scope: { teamid: number | null; role: z.output<typeof roleEnum> | null },
  requirements: SkillRequirementRecord[],
  skills: Map<number, SkillRecord>,
): z.output<typeof requirementsSchema> {
  return {
    scope: scope.teamid === null ? 'role' : 'team',
    teamid: scope.teamid,
    role: scope.role,
    requirements: requirements
      .filter((requirement) => skills.has(requirement.skillid))
      .map((requirement) => ({
        skillid: requirement.skillid,
        skill_name: skills.get(requirement.skillid)?.name ?? '',
        level: requirement.level,
        set_by_userid: actorUserid(requirement.set_by_userid),
        ...actingTokenView('set_by_userid', requirement.set_by_userid_token),
        set_date: requirement.set_date,
      })),
  };
}

export function gapCell(
  skill: SkillRecord,
  required: { level: number; by: RequiredBy[] },
  held: QualificationLevelRecord | undefined,
  status: GapStatus,
): GapCell {
  return {
    skillid: skill.skillid,
    skill_name: skill.name,
    required_level: required.level,
    level: held?.level ?? 0,
    expires_at: held?.expires_at ?? null,
    status,
    required_by: required.by.map((by) => (by.scope === 'team' ? { scope: by.scope, teamid: by.teamid } : by)),
  };
}

export function gapRow(person: { userid: number; username: string }, cells: GapCell[]): GapRow {
  const count = (status: GapStatus) => cells.filter((cell) => cell.status === status).length;
  return {
    userid: person.userid,
    username: person.username,
    missing: count('missing'),
    expired: count('expired'),
    outdated: count('outdated'),
    expiring: count('expiring'),
    skills: cells,
  };
}
