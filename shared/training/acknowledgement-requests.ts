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
  concernStrictness,
  needsAcknowledgement,
  type AcknowledgementStrictness,
  type ConcernFacts,
} from '../domain/competency.ts';
import { isNewerVersion, type ReleaseVersion } from '../domain/stage-status.ts';
import { mapLimit } from './map-limit.ts';
import { acknowledgementNoticeWrites } from './notice-queue.ts';
import { noticeSettings } from '../db/entities/notice.ts';
import { courseAssigneeIds, coursesOnDocument } from './document-courses.ts';

type Reason = AcknowledgementRecord['reasons'][number];

interface Concerned {
  reasons: Set<Reason>;
  /** The facts of the strictness rule (concernStrictness), gathered reason by reason. */
  facts: ConcernFacts;
  /** What the person last earned the document on (completion or level), before acknowledgements. */
  earned: ReleaseVersion | null;
}

const newest = (a: ReleaseVersion | null, b: ReleaseVersion | null): ReleaseVersion | null =>
  !a ? b : !b ? a : isNewerVersion(b, a) ? b : a;

/** How many people one release's audit record names (the rest are counted). */
const AUDITED_USERIDS = 500;

/**
 * Who is concerned, and the facts that decide their strictness (concernStrictness,
 * docs/competency.md "Which releases ask"): the assignees of every course with a stage on the
 * document (finished it or not), whoever has a completion of it (trainee index), holders of a
 * level in a skill with the guide, the author's audience.
 */
async function concernedPeople(
  doc: { doctype: AckDoctype; docid: number },
  documentStrictness: AcknowledgementStrictness | null,
  siteStrictness: AcknowledgementStrictness | null,
  audience: number[],
): Promise<Map<number, Concerned>> {
  const courses = await coursesOnDocument(doc);
  const allStages = courses.flatMap((entry) => entry.stages.map((stage) => stage.strictness));
  const people = new Map<number, Concerned>();
  const person = (userid: number, reason: Reason, earned: ReleaseVersion | null): ConcernFacts => {
    let known = people.get(userid);
    if (!known) {
      const facts: ConcernFacts = {
        assignedCourses: [],
        allStages,
        document: documentStrictness,
        site: siteStrictness,
        traineeOrAudience: false,
        skills: [],
      };
      known = { reasons: new Set(), facts, earned: null };
      people.set(userid, known);
    }
    known.reasons.add(reason);
    known.earned = newest(known.earned, earned);
    return known.facts;
  };
  for (const { course, stages } of courses) {
    const strictness = stages.map((stage) => stage.strictness);
    for (const userid of await courseAssigneeIds(course.wikiid))
      person(userid, 'trainee', null).assignedCourses.push(strictness);
  }
  for await (const userids of documentTraineeChunks(doc)) {
    const completions = await getCompletions(userids.map((userid) => ({ userid, doc })));
    for (const completion of completions) {
      if (completion.end_date === null) continue; // in progress: nothing earned to carry over
      const earned =
        completion.release_major === null
          ? null
          : { major: completion.release_major, minor: completion.release_minor ?? 0 };
      person(completion.userid, 'trainee', earned).traineeOrAudience = true;
    }
  }
  if (doc.doctype === 'guide') {
    for (const skill of await skillsOfGuide(doc.docid)) {
      for (const level of await levelsAll(skillLevelsCollection(skill.skillid))) {
        if (level.level <= 0) continue;
        const earned = level.earned.find((entry) => entry.guideid === doc.docid)?.release ?? null;
        person(level.userid, 'skill', earned).skills.push(skill.acknowledgement_strictness);
      }
    }
  }
  for (const userid of audience) person(userid, 'audience', null).traineeOrAudience = true;
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
  const notices = await noticeSettings();
  const asked: number[] = [];
  await mapLimit(userids, 8, async (userid) => {
    const person = people.get(userid)!;
    const base = newest(person.earned, acked.get(userid) ?? null);
    const strictness = concernStrictness(person.facts);
    if (strictness === null || !needsAcknowledgement(strictness, base, release)) return;
    const ack = acknowledgementFor(release, userid, base, revisions, [...person.reasons], now, dueDays);
    if (await insertAcknowledgement(ack, acknowledgementNoticeWrites(ack, notices))) asked.push(userid);
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
