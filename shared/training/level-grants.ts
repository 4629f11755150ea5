/**
 * Levels derived from courses (docs/competency.md "Levels from courses", decision 245): a course
 * maps completing one of its stages, or the whole course, to a level in a skill. After the
 * person's stored rows are refreshed (the stage rule has spoken), each completed stage or course
 * that a mapping names writes the level — source `signoff` when the stage is assessed by a
 * signoff, else `course_completion` — with its expiry from the skill's recertification interval,
 * on condition of the version read and with its audit record in one transaction. The rule
 * (`derivesLevel`) keeps the completion's date as the level's set_date, so deriving again from
 * the same completion writes nothing, and a crash after the completion is healed by the next
 * refresh of the row.
 */
import { AUDIT_CHAIN_LABELS, appendAudit, auditSubject } from '../db/audit.ts';
import { labelsIn, retryOnLostRace } from '../db/retry.ts';
import { getRows, type TrainingRowRecord } from '../db/entities/training-row.ts';
import { getManyTrainingSettings } from '../db/entities/training-settings.ts';
import { getLevel, levelPut, type QualificationLevelRecord } from '../db/entities/qualification-level.ts';
import { getSkills, type SkillRecord } from '../db/entities/skill.ts';
import { latestRelease } from '../db/entities/release.ts';
import { getCourses, type CourseRecord } from '../db/entities/course.ts';
import { getSignoffRequest, getTraineeSignoff } from '../db/entities/signoff.ts';
import { derivesLevel, levelExpiry, type LevelGrant, type LevelSource } from '../domain/competency.ts';
import { nowSeconds } from '../clock.ts';
import { noticeSettings } from '../db/entities/notice.ts';
import { levelNoticeWrites } from './notice-queue.ts';

interface Derived {
  userid: number;
  grant: LevelGrant;
  source: LevelSource;
  completedAt: number;
  wikiid: number;
  /** The stage's signoff assessment (source `signoff`): its approving signer sets the level. */
  stage_assessmentid?: number;
}

/** What a row's completed stages and course give under the course's mappings. */
function derivedFrom(row: TrainingRowRecord, course: CourseRecord, grants: LevelGrant[]): Derived[] {
  const found: Derived[] = [];
  for (const grant of grants) {
    if (grant.course_stageid === null) {
      if (row.status === 'completed' && row.course_completion_date !== null)
        found.push({
          userid: row.userid,
          grant,
          source: 'course_completion',
          completedAt: row.course_completion_date,
          wikiid: row.wikiid,
        });
      continue;
    }
    const snapshot = row.stages.find((stage) => stage.course_stageid === grant.course_stageid);
    const stage = course.stages.find((entry) => entry.course_stageid === grant.course_stageid);
    if (!snapshot || !stage || snapshot.status !== 'completed' || snapshot.end_date === null) continue;
    const base = { userid: row.userid, grant, completedAt: snapshot.end_date, wikiid: row.wikiid };
    found.push(
      stage.stage_assessmentid !== null
        ? { ...base, source: 'signoff', stage_assessmentid: stage.stage_assessmentid }
        : { ...base, source: 'course_completion' },
    );
  }
  return found;
}

/** Derives the levels the refreshed rows give (a no-op for courses without mappings: one BatchGet). */
export async function deriveLevels(keys: Array<{ course_assignmentid: number; userid: number }>): Promise<void> {
  if (keys.length === 0) return;
  const rows = (await getRows(keys)).filter((row) => row.active);
  const wikiids = [...new Set(rows.map((row) => row.wikiid))];
  const settings = await getManyTrainingSettings(wikiids.map((docid) => ({ kind: 'wiki' as const, docid })));
  const grantsOf = new Map(wikiids.map((wikiid, index) => [wikiid, settings[index].level_grants ?? []]));
  const mappedBy = new Map(wikiids.map((wikiid, index) => [wikiid, settings[index].level_grants_by]));
  // Nobody derives a level from a mapping they wrote themselves (decision 263): the person who
  // last set a course's mappings completing it gains no level from them.
  const mapped = rows.filter(
    (row) => (grantsOf.get(row.wikiid) ?? []).length > 0 && mappedBy.get(row.wikiid) !== row.userid,
  );
  if (mapped.length === 0) return;
  const courses = new Map((await getCourses([...new Set(mapped.map((row) => row.wikiid))])).map((c) => [c.wikiid, c]));
  const derived = mapped.flatMap((row) => {
    const course = courses.get(row.wikiid);
    return course ? derivedFrom(row, course, grantsOf.get(row.wikiid)!) : [];
  });
  if (derived.length === 0) return;
  const skills = new Map(
    (await getSkills([...new Set(derived.map((entry) => entry.grant.skillid))])).map((s) => [s.skillid, s]),
  );
  for (const entry of derived) {
    const skill = skills.get(entry.grant.skillid);
    if (skill) await writeDerivedLevel(entry, skill);
  }
}

/**
 * Who gave a derived level: the signer whose approval, acknowledged, completed the stage (source
 * `signoff`); the person themselves for a completion (nobody signed it).
 */
async function setterOf(entry: Derived): Promise<number> {
  if (entry.stage_assessmentid === undefined) return entry.userid;
  const answer = await getTraineeSignoff(entry.userid, entry.stage_assessmentid);
  if (answer?.state !== 'acknowledged' || !answer.approved) return entry.userid;
  const request = await getSignoffRequest(answer.signoff_requestid);
  return request?.response?.responder_userid ?? entry.userid;
}

async function writeDerivedLevel(entry: Derived, skill: SkillRecord): Promise<void> {
  const { userid, grant, completedAt } = entry;
  await retryOnLostRace(
    async () => {
      const now = nowSeconds();
      const before = await getLevel(userid, skill.skillid);
      if (!derivesLevel(before ?? null, grant.level, completedAt, now)) return;
      const earned = await Promise.all(
        skill.guideids.map(async (guideid) => {
          const release = await latestRelease('guide', guideid);
          return { guideid, release: release ? { major: release.major, minor: release.minor } : null };
        }),
      );
      const level: QualificationLevelRecord = {
        userid,
        skillid: skill.skillid,
        level: grant.level,
        expires_at: levelExpiry(completedAt, skill.recertification_days),
        source: entry.source,
        set_by_userid: await setterOf(entry),
        set_date: completedAt,
        earned,
        version: (before?.version ?? 0) + 1,
      };
      await appendAudit(
        {
          action: 'qualification.level_set',
          actor_userid: null,
          subjects: [auditSubject.user(userid), auditSubject.skill(skill.skillid)],
          details: {
            skillid: skill.skillid,
            old: before ? { level: before.level, expires_at: before.expires_at, source: before.source } : null,
            new: { level: level.level, expires_at: level.expires_at, source: level.source },
            derived_from: { wikiid: entry.wikiid, course_stageid: grant.course_stageid, completed_date: completedAt },
          },
        },
        [levelPut(level, before?.version ?? null), ...levelNoticeWrites(level, await noticeSettings())],
      );
    },
    {
      attempts: 6,
      raceLabels: labelsIn('level', ...AUDIT_CHAIN_LABELS),
      message: 'The level kept changing; try again',
    },
  );
}
