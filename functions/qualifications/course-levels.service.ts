/**
 * A course's mapping of completions to levels (docs/competency.md "Levels from courses"):
 * "completing this stage (or the whole course) gives level N in skill S". Read and changed by
 * Authors and Admins (who change courses); audited on the course page's chain. The levels are
 * derived in shared/training/level-grants.ts when the rows are refreshed.
 */
import { nowSeconds } from '../../shared/clock.ts';
import { NotFoundError, ValidationError } from '../../shared/domain/errors.ts';
import { actorFields, auditActor, type Caller } from '../../shared/domain/caller.ts';
import { appendAudit, auditSubject } from '../../shared/db/audit.ts';
import { getCourse } from '../../shared/db/entities/course.ts';
import { getSkills } from '../../shared/db/entities/skill.ts';
import { getTrainingSettings, putTrainingSettings } from '../../shared/db/entities/training-settings.ts';
import type { CourseLevelsInput } from './qualifications.schemas.ts';

async function requireCourse(wikiid: number) {
  const course = await getCourse(wikiid, { consistent: true });
  if (!course) throw new NotFoundError(`No course with wikiid ${wikiid}`);
  return course;
}

export async function getCourseLevels(wikiid: number) {
  await requireCourse(wikiid);
  const settings = await getTrainingSettings({ kind: 'wiki', docid: wikiid });
  return { wikiid, grants: settings.level_grants ?? [] };
}

export async function putCourseLevels(caller: Caller, wikiid: number, input: CourseLevelsInput) {
  const course = await requireCourse(wikiid);
  const stageids = new Set(course.stages.map((stage) => stage.course_stageid));
  const seen = new Set<string>();
  input.grants.forEach((grant, index) => {
    if (grant.course_stageid !== null && !stageids.has(grant.course_stageid))
      throw ValidationError.field(
        `grants[${index}].course_stageid`,
        'not_found',
        `Course ${wikiid} has no stage ${grant.course_stageid}`,
      );
    const key = `${grant.course_stageid}|${grant.skillid}`;
    if (seen.has(key))
      throw ValidationError.field(`grants[${index}]`, 'duplicate', 'One level per stage (or course) and skill');
    seen.add(key);
  });
  const skillids = [...new Set(input.grants.map((grant) => grant.skillid))];
  const found = new Set((await getSkills(skillids)).map((skill) => skill.skillid));
  const missing = input.grants.findIndex((grant) => !found.has(grant.skillid));
  if (missing >= 0)
    throw ValidationError.field(
      `grants[${missing}].skillid`,
      'not_found',
      `No skill with skillid ${input.grants[missing].skillid}`,
    );
  const before = await getTrainingSettings({ kind: 'wiki', docid: wikiid });
  const after = {
    ...before,
    level_grants: input.grants,
    level_grants_by: caller.service ? null : caller.userid,
    modified_date: nowSeconds(),
    ...actorFields('modified_by', caller),
  };
  await putTrainingSettings({ kind: 'wiki', docid: wikiid }, after);
  await appendAudit({
    action: 'qualification.course_levels_changed',
    ...auditActor(caller),
    subjects: [auditSubject.document('wiki', wikiid)],
    details: { old: before.level_grants ?? [], new: input.grants },
  });
  return { wikiid, grants: input.grants };
}
