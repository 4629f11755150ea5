/**
 * A new release → acknowledgements for the people it concerns (docs/competency.md), called
 * where every release becomes released (release-refresh.ts: at once, or when its approval is
 * given). The people concerned, without a Scan: the assignees of the courses with a stage on
 * the document (document-courses.ts), the document's trainees (its trainee index: whoever
 * completed it), the holders of a level in a skill that includes the guide (each skill's holder
 * index), and the audience the author set. Each is asked when the release is
 * newer than what they last completed, acknowledged or earned their level on and the strictness
 * asks for it; asking twice is a no-op (the item is put if absent).
 */
import { nowSeconds } from '../clock.ts';
import { appendAudit, auditSubject } from '../db/audit.ts';
import {
  getAcknowledgedVersions,
  insertAcknowledgement,
  versionOf,
  type AcknowledgementRecord,
  type AckDoctype,
} from '../db/entities/acknowledgement.ts';
import { latestRelease, listReleases, type CurrentRelease } from '../db/entities/release.ts';
import { levelsAll, skillLevelsCollection } from '../db/entities/qualification-level.ts';
import { skillsOfGuide } from '../db/entities/skill.ts';
import { documentTraineeChunks, getCompletions } from '../db/entities/training-record.ts';
import { getSiteAndDocumentSettings } from '../db/entities/training-settings.ts';
import {
  DEFAULT_ACKNOWLEDGEMENT_DUE_DAYS,
  acknowledgementDueDate,
  needsAcknowledgement,
  type AcknowledgementStrictness,
} from '../domain/competency.ts';
import { isNewerVersion, type ReleaseVersion } from '../domain/stage-status.ts';
import { mapLimit } from './map-limit.ts';
import { courseAssigneeIds, coursesOnDocument } from './document-courses.ts';

type Reason = AcknowledgementRecord['reasons'][number];

interface Concerned {
  reasons: Set<Reason>;
  strictness: AcknowledgementStrictness;
  /** What the person last earned the document on (completion or level), before acknowledgements. */
  earned: ReleaseVersion | null;
  /** The strictness is a course stage's own, for an assignee of that course. */
  courseDecided: boolean;
}

/** The strictest of two: `minor` asks for more releases. */
const stricter = (a: AcknowledgementStrictness, b: AcknowledgementStrictness): AcknowledgementStrictness =>
  a === 'minor' || b === 'minor' ? 'minor' : 'major';

const newest = (a: ReleaseVersion | null, b: ReleaseVersion | null): ReleaseVersion | null =>
  !a ? b : !b ? a : isNewerVersion(b, a) ? b : a;

/** How many people one release's audit record names (the rest are counted). */
const AUDITED_USERIDS = 500;

/** The strictest of the stages' own strictness (null: none of them has one). */
function stagesStrictness(stages: Array<{ strictness: AcknowledgementStrictness | null }>) {
  return stages.reduce<AcknowledgementStrictness | null>(
    (found, stage) =>
      stage.strictness === null ? found : found === null ? stage.strictness : stricter(found, stage.strictness),
    null,
  );
}

/**
 * Who is concerned and under which strictness (docs/competency.md "Which releases ask"):
 * - the assignees of every course with a stage on the document (finished it or not): that
 *   course's stage strictness, else the document's, the site's, `major`;
 * - whoever has a completion of it (trainee index), when no course assignment named them:
 *   the stages' strictness, else as above;
 * - holders of a level in a skill with the guide: when the guide is a stage of a course, as the
 *   trainees; outside any course the document's setting, else the skill's;
 * - the author's audience: as the trainees.
 */
async function concernedPeople(
  doc: { doctype: AckDoctype; docid: number },
  documentStrictness: AcknowledgementStrictness | null,
  siteStrictness: AcknowledgementStrictness | null,
  audience: number[],
): Promise<Map<number, Concerned>> {
  const people = new Map<number, Concerned>();
  /** Adds a reason; `strictness` null: keep the one a course already gave the person. */
  const add = (
    userid: number,
    reason: Reason,
    strictness: AcknowledgementStrictness,
    earned: ReleaseVersion | null,
    courseDecided = false,
  ) => {
    const known = people.get(userid);
    if (!known) return people.set(userid, { reasons: new Set([reason]), strictness, earned, courseDecided });
    known.reasons.add(reason);
    // A course's own stage strictness decides for its assignees; other reasons only add to it.
    if (courseDecided && !known.courseDecided) known.strictness = strictness;
    else if (courseDecided || !known.courseDecided) known.strictness = stricter(known.strictness, strictness);
    known.courseDecided ||= courseDecided;
    known.earned = newest(known.earned, earned);
  };
  const fallback = documentStrictness ?? siteStrictness ?? 'major';
  const courses = await coursesOnDocument(doc);
  for (const { course, stages } of courses) {
    const strictness = stagesStrictness(stages) ?? fallback;
    for (const userid of await courseAssigneeIds(course.wikiid)) add(userid, 'trainee', strictness, null, true);
  }
  const inCourse = courses.length > 0;
  const courseStrictness = stagesStrictness(courses.flatMap((entry) => entry.stages)) ?? fallback;
  for await (const userids of documentTraineeChunks(doc)) {
    const completions = await getCompletions(userids.map((userid) => ({ userid, doc })));
    for (const completion of completions) {
      if (completion.end_date === null) continue; // in progress: nothing earned to carry over
      const earned =
        completion.release_major === null
          ? null
          : { major: completion.release_major, minor: completion.release_minor ?? 0 };
      add(completion.userid, 'trainee', courseStrictness, earned);
    }
  }
  if (doc.doctype === 'guide') {
    for (const skill of await skillsOfGuide(doc.docid)) {
      const strictness = inCourse ? courseStrictness : (documentStrictness ?? skill.acknowledgement_strictness);
      for (const level of await levelsAll(skillLevelsCollection(skill.skillid))) {
        if (level.level <= 0) continue;
        const earned = level.earned.find((entry) => entry.guideid === doc.docid)?.release ?? null;
        add(level.userid, 'skill', strictness, earned);
      }
    }
  }
  for (const userid of audience) add(userid, 'audience', courseStrictness, null);
  return people;
}

/** Asks the people concerned to acknowledge the document's current release; returns how many were asked. */
export async function requestAcknowledgements(doctype: AckDoctype, docid: number): Promise<number> {
  const release = await latestRelease(doctype, docid);
  if (!release) return 0;
  const [site, document] = await getSiteAndDocumentSettings({ kind: doctype, docid });
  const people = await concernedPeople(
    { doctype, docid },
    document.acknowledgement_strictness,
    site.acknowledgement_strictness,
    document.audience_userids,
  );
  if (people.size === 0) return 0;
  const userids = [...people.keys()];
  const acked = new Map(
    (await getAcknowledgedVersions(userids.map((userid) => ({ userid, doctype, docid })))).map((record) => [
      record.userid,
      versionOf(record),
    ]),
  );
  const revisions = await releaseRevisions(doctype, docid);
  const now = nowSeconds();
  const dueDays =
    document.acknowledgement_due_days ?? site.acknowledgement_due_days ?? DEFAULT_ACKNOWLEDGEMENT_DUE_DAYS;
  const asked: number[] = [];
  await mapLimit(userids, 8, async (userid) => {
    const person = people.get(userid)!;
    const base = newest(person.earned, acked.get(userid) ?? null);
    if (!needsAcknowledgement(person.strictness, base, release)) return;
    const ack = acknowledgementFor(release, userid, base, revisions, [...person.reasons], now, dueDays);
    if (await insertAcknowledgement(ack)) asked.push(userid);
  });
  if (asked.length > 0) {
    asked.sort((a, b) => a - b);
    await appendAudit({
      action: 'acknowledgement.requested',
      actor_userid: release.userid,
      subjects: [auditSubject.document(doctype, docid)],
      details: {
        releaseid: release.releaseid,
        version: release.version,
        userids: asked.slice(0, AUDITED_USERIDS),
        count: asked.length,
        due_date: acknowledgementDueDate(release.release_date ?? now, dueDays),
      },
    });
  }
  return asked.length;
}

/** `major.minor` → the revision that release names. */
async function releaseRevisions(doctype: AckDoctype, docid: number): Promise<Map<string, number>> {
  const releases = await listReleases(doctype, docid);
  return new Map(
    releases.filter((release) => release.version !== null).map((release) => [release.version!, release.revisionid]),
  );
}

function acknowledgementFor(
  release: CurrentRelease,
  userid: number,
  base: ReleaseVersion | null,
  revisions: Map<string, number>,
  reasons: Reason[],
  now: number,
  dueDays: number,
): AcknowledgementRecord {
  const baseVersion = base ? `${base.major}.${base.minor}` : null;
  return {
    releaseid: release.releaseid,
    doctype: release.doctype,
    docid: release.docid,
    userid,
    version: release.version,
    major: release.major,
    minor: release.minor,
    revisionid: release.revisionid,
    base_version: baseVersion,
    base_revisionid: baseVersion === null ? null : (revisions.get(baseVersion) ?? null),
    reasons: reasons.sort(),
    created_date: now,
    due_date: acknowledgementDueDate(release.release_date ?? now, dueDays),
    status: 'pending',
    signed_date: null,
    signature: null,
  };
}
