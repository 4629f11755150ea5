/**
 * Requirements and gaps (docs/competency.md "Requirements and gaps"): what a person must hold,
 * from the teams they are in and the roles they hold (roles nest: a `User` requirement is
 * everyone's, an `Author` one Authors' and Admins'), and how what they hold stands against it.
 * Pure: the caller gathers the requirements, levels and the time.
 */
import type { Role } from './caller.ts';

export type GapStatus = 'met' | 'expiring' | 'expired' | 'outdated' | 'missing';

export type RequiredBy = { scope: 'team'; teamid: number } | { scope: 'role'; role: Role };

export interface Requirement {
  skillid: number;
  level: number;
  by: RequiredBy;
}

const RANK: Record<Role, number> = { User: 1, Author: 2, Admin: 3 };

/** Whether a role's requirement applies to someone with these privileges (roles nest). */
export function roleApplies(required: Role, privileges: readonly Role[]): boolean {
  const rank = Math.max(RANK.User, ...privileges.map((role) => RANK[role] ?? 0));
  return rank >= RANK[required];
}

/** A person's requirements merged per skill: the highest level asked, and every scope asking. */
export function mergeRequirements(
  requirements: readonly Requirement[],
): Map<number, { level: number; by: RequiredBy[] }> {
  const merged = new Map<number, { level: number; by: RequiredBy[] }>();
  for (const requirement of [...requirements].sort((a, b) => a.skillid - b.skillid)) {
    const seen = merged.get(requirement.skillid);
    if (seen) {
      seen.level = Math.max(seen.level, requirement.level);
      seen.by.push(requirement.by);
    } else merged.set(requirement.skillid, { level: requirement.level, by: [requirement.by] });
  }
  return merged;
}

/**
 * How a level held stands against the level required, first matching line wins: none held or
 * below it → `missing`; lapsed → `expired`; outdated by a newer major release of a guide of the
 * skill (the gate's standing, `standing`; the gate counts it as 0) → `outdated`; lapsing within
 * the lead window → `expiring`; else `met`.
 */
export function gapStatus(
  required: number,
  held: { level: number; expires_at: number | null } | null,
  now: number,
  leadSeconds: number,
  standing: 'current' | 'none' | 'expired' | 'outdated' = 'current',
): GapStatus {
  if (!held || held.level < required) return 'missing';
  if (held.expires_at !== null && now >= held.expires_at) return 'expired';
  if (standing === 'outdated') return 'outdated';
  if (held.expires_at !== null && held.expires_at <= now + leadSeconds) return 'expiring';
  return 'met';
}
