/**
 * Retraining after a lapsed level (docs/notices.md): the courses that restore the level are
 * assigned to its former holder with a due date, once per lapse. The courses that restore it are
 * those with a stage on one of the skill's guides whose level mappings (docs/competency.md
 * "Levels from courses") give the skill at the lapsed level or higher; when no course maps it,
 * every course with a stage on the skill's guides (a trainer then signs the level). The
 * assignment, a marker of its cause (person, skill, expiry, course: created on condition it is
 * absent) and the `retraining_assigned` notice are one transaction, so a second sweep or a retry
 * assigns nothing again. A course the person already has: an unfinished assignment stands (it is
 * the retraining); a finished one is cancelled and the course assigned afresh.
 *
 * A release marked for retraining (decision 316) does the same for the holders of a level in a
 * skill of the guide who earned it on an older release: the restoring courses that have a stage
 * on that guide are assigned, once per mark, person, skill and course (the cause names the
 * marked release instead of the expiry).
 */
import { TransactionConditionFailed } from '../db/transactions.ts';
import { emittedMarkerWrite, emittedMarkers } from '../db/entities/outbox.ts';
import { getAssignment } from '../db/entities/course-assignment.ts';
import { noticeDueWrites, noticeSettings } from '../db/entities/notice.ts';
import type { QualificationLevelRecord } from '../db/entities/qualification-level.ts';
import type { SkillRecord } from '../db/entities/skill.ts';
import { getRow } from '../db/entities/training-row.ts';
import { getManyTrainingSettings } from '../db/entities/training-settings.ts';
import { getUser, getUsers, type UserRecord } from '../db/entities/user.ts';
import { levelsAll, skillLevelsCollection } from '../db/entities/qualification-level.ts';
import { skillsOfGuide } from '../db/entities/skill.ts';
import { isNewerVersion, type ReleaseVersion } from '../domain/stage-status.ts';
import type { CourseRecord } from '../db/entities/course.ts';
import { SERVICE_USERID, type Caller } from '../domain/caller.ts';
import { AlreadyAssigned, assignCourse, cancelAssignment } from './assignments.ts';
import { coursesOnDocument } from './document-courses.ts';

const DAY = 24 * 3600;

/**
 * Who assigns a retraining: the site itself, named like a site API token (decision 300) so the
 * assignment's `created_by` is null and its audit record names it.
 */
export const RETRAINING_ASSIGNER: Caller = {
  userid: SERVICE_USERID,
  username: 'retraining',
  privileges: [],
  teams: [],
  service: { tokenid: '0000000000000000', name: 'Retraining after a lapsed level', scopes: [] },
};

/** The courses that restore `level` of `skill` (see the file's note), on `guideids` (default: the skill's). */
export async function restoringCourses(
  skill: SkillRecord,
  level: number,
  guideids: readonly number[] = skill.guideids,
): Promise<CourseRecord[]> {
  const byId = new Map<number, CourseRecord>();
  for (const guideid of guideids) {
    for (const { course } of await coursesOnDocument({ doctype: 'guide', docid: guideid }))
      byId.set(course.wikiid, course);
  }
  const courses = [...byId.values()].sort((a, b) => a.wikiid - b.wikiid);
  if (courses.length === 0) return [];
  const settings = await getManyTrainingSettings(courses.map((course) => ({ kind: 'wiki', docid: course.wikiid })));
  const mapping = courses.filter((_, index) =>
    (settings[index].level_grants ?? []).some((grant) => grant.skillid === skill.skillid && grant.level >= level),
  );
  return mapping.length > 0 ? mapping : courses;
}

/** Assigns the restoring courses for a lapsed level; returns how many were assigned now. */
export async function assignRetraining(
  level: QualificationLevelRecord,
  skill: SkillRecord,
  asOf: number,
): Promise<number> {
  const user = await getUser(level.userid);
  if (!user || level.expires_at === null) return 0;
  const settings = await noticeSettings();
  let assigned = 0;
  for (const course of await restoringCourses(skill, level.level)) {
    const cause = `retraining#${level.userid}#${level.skillid}#${level.expires_at}#${course.wikiid}`;
    const why = { cause, reason: 'Retraining: a level it gives lapsed' };
    if (await assignOne(user, course, level, settings.retraining_due_days * DAY, asOf, why)) assigned += 1;
  }
  return assigned;
}

/**
 * A guide's release marked for retraining: each holder of a level (above 0, not lapsed: a lapse
 * has its own retraining) in a skill of the guide, earned on an older release of it or on none,
 * is assigned the restoring courses with a stage on the guide. Returns how many were assigned now.
 */
export async function assignRetrainingAfterMark(
  mark: { guideid: number; releaseid: number; version: ReleaseVersion },
  asOf: number,
): Promise<number> {
  const settings = await noticeSettings();
  let assigned = 0;
  for (const skill of await skillsOfGuide(mark.guideid)) {
    const levels = (await levelsAll(skillLevelsCollection(skill.skillid))).filter((level) => {
      if (level.level <= 0 || (level.expires_at !== null && asOf >= level.expires_at)) return false;
      const earned = level.earned.find((entry) => entry.guideid === mark.guideid)?.release ?? null;
      return earned === null || isNewerVersion(mark.version, earned);
    });
    if (levels.length === 0) continue;
    const users = new Map((await getUsers(levels.map((level) => level.userid))).map((user) => [user.userid, user]));
    for (const level of levels) {
      const user = users.get(level.userid);
      if (!user) continue;
      for (const course of await restoringCourses(skill, level.level, [mark.guideid])) {
        const cause = `retraining#mark#${mark.releaseid}#${level.userid}#${level.skillid}#${course.wikiid}`;
        const why = { cause, reason: 'Retraining: a release of a guide it covers was marked for retraining' };
        if (await assignOne(user, course, level, settings.retraining_due_days * DAY, asOf, why)) assigned += 1;
      }
    }
  }
  return assigned;
}

async function assignOne(
  user: UserRecord,
  course: CourseRecord,
  level: QualificationLevelRecord,
  dueWithin: number,
  asOf: number,
  { cause, reason }: { cause: string; reason: string },
): Promise<boolean> {
  const attempt = () =>
    assignCourse({
      course,
      assignee: { kind: 'user', user },
      due_within: dueWithin,
      by: RETRAINING_ASSIGNER,
      extraWrites: (assignment) => [
        emittedMarkerWrite(cause, 'retraining.assigned', 'retraining-cause'),
        ...noticeDueWrites(
          {
            subject: `ASSIGN#${assignment.course_assignmentid}#${user.userid}`,
            userid: user.userid,
            skillid: level.skillid,
            course_assignmentid: assignment.course_assignmentid,
            wikiid: course.wikiid,
          },
          [{ kind: 'retraining_assigned', fire_at: asOf, due: assignment.created_date + dueWithin }],
        ),
      ],
    });
  try {
    await attempt();
    return true;
  } catch (error) {
    if (error instanceof TransactionConditionFailed && error.failedLabels.includes('retraining-cause')) return false;
    if (!(error instanceof AlreadyAssigned) || error.course_assignmentid === undefined) throw error;
    const row = await getRow(error.course_assignmentid, user.userid);
    if (row && row.status !== 'completed') return false; // still training on it: that is the retraining
    if ((await emittedMarkers([cause])).size > 0) return false; // this cause's course was assigned and finished
    const existing = await getAssignment(error.course_assignmentid);
    if (!existing) return false;
    await cancelAssignment(existing, { by: RETRAINING_ASSIGNER, reason });
    try {
      await attempt();
      return true;
    } catch (again) {
      if (again instanceof TransactionConditionFailed && again.failedLabels.includes('retraining-cause')) return false;
      if (again instanceof AlreadyAssigned) return false;
      throw again;
    }
  }
}
