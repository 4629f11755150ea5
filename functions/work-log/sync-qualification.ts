/**
 * The qualification-lapse conflict of the journal (docs/offline.md, issue 29's gate): the gate
 * is checked at the server's time, so a level that expired (or a minimum raised) while the
 * device was offline counts. Under `block` the start or step data is not applied and the
 * conflict names each skill short; under `warn` the start is applied flagged and says so.
 */
import type { ForbiddenError } from '../../shared/domain/errors.ts';
import { getWorkLogQualification } from '../../shared/db/entities/work-log-qualification.ts';

export interface SkillShort {
  skillid: number;
  name: string;
  level_required: number;
  level_held: number;
  standing: string;
}

/** The skills a blocked gate's 403 named (undefined for any other 403). */
export function shortOf(error: ForbiddenError): { message: string; current: { skills: SkillShort[] } } | undefined {
  const skills = error.details?.skills;
  if (!Array.isArray(skills)) return undefined;
  return { message: error.message, current: { skills: skills as SkillShort[] } };
}

/**
 * The conflict of a start the gate let through flagged (`warn`), read from what the entry
 * recorded at its start; `alsoNewRelease` keeps the revision the entry was made on beside it.
 */
export async function qualificationConflict(
  entryid: number,
  alsoNewRelease?: { current?: unknown },
): Promise<{ reason: 'qualification'; message: string; current: Record<string, unknown> } | undefined> {
  const record = await getWorkLogQualification(entryid);
  if (!record?.flagged) return undefined;
  const skills: SkillShort[] = record.skills
    .filter((skill) => skill.held < skill.required)
    .map((skill) => ({
      skillid: skill.skillid,
      name: skill.name,
      level_required: skill.required,
      level_held: skill.held,
      standing: skill.standing,
    }));
  const named = skills.map((skill) => `"${skill.name}" requires ${skill.level_required}, held ${skill.level_held}`);
  return {
    reason: 'qualification',
    message:
      `Applied, flagged: the operator is not qualified (${named.join('; ')}); ` +
      'a qualified supervisor signs an override on the entry',
    current: { flagged: true, skills, ...(alsoNewRelease?.current as Record<string, unknown> | undefined) },
  };
}
