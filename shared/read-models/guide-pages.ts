/**
 * Loads what the guide views need (authors, steps, prerequisites, the caller's marks, media,
 * review schedules) and builds them: summaries for lists, the full guide, a step with its
 * position. Reads of one stage share one BatchGet through the entity files' BatchParts
 * (shared/db/batch.ts): a list's authors, images and review-schedule claims; the full guide's
 * author, steps, prerequisites, their claims and the caller's marks. Media objects (images,
 * videos, documents, embeds) come from one BatchGet per view (shared/read-models/media.ts),
 * never one read per item.
 */
import { documentCommentViews } from './comments.ts';
import { viewMediaById, viewMediaFrom, viewMediaPart } from './media.ts';
import type { GuideMarkView } from '../views/guide-mark-views.ts';
import { siteUrl } from '../config.ts';
import type { Caller } from '../domain/caller.ts';
import { batchGetParts, type BatchPart } from '../db/batch.ts';
import { guidesPart, type GuideRecord } from '../db/entities/guide.ts';
import { stepsPart, type StepRecord } from '../db/entities/step.ts';
import { usersPart, type UserRecord } from '../db/entities/user.ts';
import { guideMarksPart } from '../db/entities/guide-mark.ts';
import {
  getSchedules,
  scheduledClaimsPart,
  schedulesPart,
  type ReviewScheduleRecord,
  type ScheduleClaim,
} from '../db/entities/review-schedule.ts';
import {
  fullGuideView,
  guideSummary,
  mediaIdsOf,
  stepView,
  type FullGuideView,
  type GuideSummary,
  type StepView,
  type ViewMedia,
} from '../views/guide-views.ts';
import { canEditGuide, canViewGuideNow } from '../content/guide-access.ts';

type ReviewSchedules = Map<number, NonNullable<GuideSummary['periodicReviewSchedule']>>;

/** A guide read for a list with its review-schedule claim from the same BatchGet (null: in no schedule). */
export interface ListedGuide {
  guide: GuideRecord;
  scheduleClaim: ScheduleClaim | null;
}

/** A guide to summarize; `scheduleClaim` undefined: its claim is not read yet. */
type Summarized = { guide: GuideRecord; scheduleClaim?: ScheduleClaim | null };

const asDocuments = (guideids: number[]) => guideids.map((docid) => ({ doctype: 'guide' as const, docid }));

/**
 * Guides by id for a list, in the order given (unknown ids left out), each with its review-schedule
 * claim: guides and claims in ONE BatchGet, so their summaries (listedGuideSummaries) read no claim.
 */
export async function guidesForList(guideids: number[]): Promise<ListedGuide[]> {
  const [guides, claims] = await batchGetParts(guidesPart(guideids), scheduledClaimsPart(asDocuments(guideids)));
  const claimOf = new Map(claims.map((claim) => [claim.docid, claim]));
  return guides.map((guide) => ({ guide, scheduleClaim: claimOf.get(guide.guideid) ?? null }));
}

/** The periodic-review schedule of each guide whose claim names a schedule found, by guideid. */
function schedulesOf(claims: ScheduleClaim[], schedules: ReviewScheduleRecord[]): ReviewSchedules {
  const names = new Map(schedules.map((schedule) => [schedule.prsid, schedule.name]));
  const found: ReviewSchedules = new Map();
  for (const claim of claims) {
    const name = names.get(claim.prsid);
    if (claim.doctype === 'guide' && name !== undefined)
      found.set(claim.docid, { prsid: claim.prsid, prdid: claim.prdid, name });
  }
  return found;
}

function summariesOf(
  guides: GuideRecord[],
  authors: Map<number, UserRecord>,
  media: ViewMedia,
  schedules: ReviewSchedules,
): GuideSummary[] {
  return guides.map((guide) =>
    guideSummary(guide, authors.get(guide.userid), siteUrl(), media, {
      periodicReviewSchedule: schedules.get(guide.guideid) ?? null,
    }),
  );
}

/**
 * Summaries in the order given, from ONE BatchGet of the authors not cached, the images, the
 * claims not read yet (every guide's, unless guidesForList read them) and the schedules of the
 * claims already read; a second BatchGet only for the schedules of claims found in that one.
 * Guides in no schedule cost no BatchGet of their own for it, except where the list would make
 * none at all (every author cached, no image, claims not read with the guides): decision 353.
 */
async function summaries(entries: Summarized[]): Promise<GuideSummary[]> {
  if (entries.length === 0) return [];
  const guides = entries.map((entry) => entry.guide);
  const known = entries.flatMap((entry) => (entry.scheduleClaim ? [entry.scheduleClaim] : []));
  const unread = entries.filter((entry) => entry.scheduleClaim === undefined).map((entry) => entry.guide.guideid);
  const mediaIds = mediaIdsOf(guides);
  const [authors, mediaItems, found, knownSchedules] = await batchGetParts(
    usersPart([...new Set(guides.map((guide) => guide.userid))]),
    viewMediaPart(mediaIds),
    scheduledClaimsPart(asDocuments(unread)),
    schedulesPart(known.map((claim) => claim.prsid)),
  );
  const readAlready = new Set(knownSchedules.map((schedule) => schedule.prsid));
  const missing = found.map((claim) => claim.prsid).filter((prsid) => !readAlready.has(prsid));
  const [media, foundSchedules] = await Promise.all([
    viewMediaFrom(mediaIds, mediaItems),
    missing.length > 0 ? getSchedules(missing) : Promise.resolve([]),
  ]);
  return summariesOf(
    guides,
    new Map(authors.map((author) => [author.userid, author])),
    media,
    schedulesOf([...known, ...found], [...knownSchedules, ...foundSchedules]),
  );
}

/** Summaries of guides in the order given (never one read per guide: see `summaries`). */
export async function guideSummaries(guides: GuideRecord[]): Promise<GuideSummary[]> {
  return summaries(guides.map((guide) => ({ guide })));
}

/** Summaries of guides read by guidesForList: their claims are not read again. */
export async function listedGuideSummaries(listed: ListedGuide[]): Promise<GuideSummary[]> {
  return summaries(listed);
}

/** A step with its 1-based position among the guide's own steps. */
export async function stepOfGuide(guide: GuideRecord, step: StepRecord): Promise<StepView> {
  const media = await viewMediaById(mediaIdsOf([], [step]));
  return stepView(step, guide.steps.findIndex((ref) => ref.stepid === step.stepid) + 1, media);
}

/** The guide's steps in order (references whose step item is missing are left out). */
function ownSteps(guide: GuideRecord, steps: StepRecord[]): Array<{ step: StepRecord; orderby: number }> {
  const byId = new Map(steps.map((step) => [step.stepid, step]));
  return guide.steps.flatMap((ref, index) => {
    const step = byId.get(ref.stepid);
    return step ? [{ step, orderby: index + 1 }] : [];
  });
}

/**
 * The full guide as the caller sees it. Prerequisites the caller may not read are left out;
 * their steps come first (each keeps its own guideid and orderby) unless excluded. Only one
 * level of prerequisites is inlined, so a cycle cannot loop.
 */
export async function fullGuide(
  caller: Caller | null,
  guide: GuideRecord,
  options: { prerequisiteSteps?: boolean } = {},
): Promise<FullGuideView> {
  // The author (unless authentication cached them), the steps, the prerequisites, their
  // review-schedule claims and the caller's marks: one BatchGet.
  const noMarks: BatchPart<{ favorited: boolean; completed: boolean }> = {
    keys: [],
    decode: () => ({ favorited: false, completed: false }),
  };
  const [[author], guideSteps, marks, prerequisiteGuides, prerequisiteClaims] = await batchGetParts(
    usersPart([guide.userid]),
    stepsPart(guide.steps.map((ref) => ref.stepid)),
    caller ? guideMarksPart(caller.userid, guide.guideid) : noMarks,
    guidesPart(guide.prerequisites),
    scheduledClaimsPart(asDocuments(guide.prerequisites)),
  );
  const visiblePrerequisites = prerequisiteGuides.filter((prerequisite) => canViewGuideNow(caller, prerequisite));
  const visibleIds = new Set(visiblePrerequisites.map((prerequisite) => prerequisite.guideid));
  const visibleClaims = prerequisiteClaims.filter((claim) => visibleIds.has(claim.docid));
  // Their authors, steps and schedules: one more BatchGet (none when nothing is to be read).
  const [prerequisiteAuthors, prerequisiteSteps, prerequisiteSchedules] = await batchGetParts(
    usersPart([...new Set(visiblePrerequisites.map((prerequisite) => prerequisite.userid))]),
    stepsPart(
      options.prerequisiteSteps === false
        ? []
        : visiblePrerequisites.flatMap((prerequisite) => prerequisite.steps.map((ref) => ref.stepid)),
    ),
    schedulesPart(visibleClaims.map((claim) => claim.prsid)),
  );
  const inlined =
    options.prerequisiteSteps === false
      ? []
      : visiblePrerequisites.flatMap((prerequisite) => ownSteps(prerequisite, prerequisiteSteps));
  const stepRecords = [...inlined, ...ownSteps(guide, guideSteps)];
  // Every media object the view shows (images of the guide, prerequisites and steps, step videos
  // and embeds, the guide's documents) in one BatchGet; comments inline: the guide's, and only
  // the steps' that have any (their comment_count says so).
  const shownIds = mediaIdsOf(
    [guide, ...visiblePrerequisites],
    stepRecords.map(({ step }) => step),
  );
  shownIds.documents.push(...guide.documents);
  const [media, guideComments, stepComments] = await Promise.all([
    viewMediaById(shownIds),
    documentCommentViews('guide', guide.guideid),
    Promise.all(
      stepRecords.map(({ step }) =>
        (step.comment_count ?? 0) > 0 ? documentCommentViews('step', step.stepid) : Promise.resolve([]),
      ),
    ),
  ]);
  const steps = stepRecords.map(({ step, orderby }, index) => ({
    ...stepView(step, orderby, media),
    comments: stepComments[index],
  }));
  const view = fullGuideView({
    guide,
    author,
    steps,
    prerequisites: summariesOf(
      visiblePrerequisites,
      new Map(prerequisiteAuthors.map((user) => [user.userid, user])),
      media,
      schedulesOf(visibleClaims, prerequisiteSchedules),
    ),
    favorited: marks.favorited,
    completed: marks.completed,
    canEdit: canEditGuide(caller, guide),
    workLogEnabled: caller !== null,
    siteUrl: siteUrl(),
    media,
  });
  view.comments = guideComments;
  return view;
}

/** `[{guide, date}]` of marks in the order given (their guides read by guidesForList). */
export async function guideMarkViews(marks: Array<ListedGuide & { date: number }>): Promise<GuideMarkView[]> {
  const shown = await listedGuideSummaries(marks);
  return marks.map((mark, index) => ({ guide: shown[index], date: mark.date }));
}
