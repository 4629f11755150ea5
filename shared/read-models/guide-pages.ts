/**
 * Loads what the guide views need (authors, steps, prerequisites, the caller's marks, media)
 * and builds them: summaries for lists, the full guide, a step with its position. Media objects
 * (images, videos, documents, embeds) come from one BatchGet per view
 * (shared/read-models/media.ts), never one read per item. The caller's marks, the steps and the
 * prerequisites share one BatchGet (BatchPart, shared/db/batch.ts).
 */
import { documentCommentViews } from './comments.ts';
import { viewMediaById } from './media.ts';
import type { GuideMarkView } from '../views/guide-mark-views.ts';
import { siteUrl } from '../config.ts';
import type { Caller } from '../domain/caller.ts';
import { batchGetParts, type BatchPart } from '../db/batch.ts';
import { guidesPart, type GuideRecord } from '../db/entities/guide.ts';
import { getSteps, stepsPart, type StepRecord } from '../db/entities/step.ts';
import { getUsers, usersPart, type UserRecord } from '../db/entities/user.ts';
import { guideMarksPart } from '../db/entities/guide-mark.ts';
import { findScheduledClaims, getSchedules } from '../db/entities/review-schedule.ts';
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

/** The guides' authors; a caller cached by authentication is not read again (usersPart). */
async function authorsOf(guides: GuideRecord[]): Promise<Map<number, UserRecord>> {
  const users = await getUsers([...new Set(guides.map((guide) => guide.userid))]);
  return new Map(users.map((user) => [user.userid, user]));
}

type ReviewSchedules = Map<number, NonNullable<GuideSummary['periodicReviewSchedule']>>;

/**
 * The periodic-review schedule of each guide that is in one, by guideid: one BatchGet of the
 * documents' schedule claims, one of the (distinct) schedules they name.
 */
async function reviewSchedulesOf(guides: GuideRecord[]): Promise<ReviewSchedules> {
  const claims = await findScheduledClaims(guides.map((guide) => ({ doctype: 'guide', docid: guide.guideid })));
  if (claims.length === 0) return new Map();
  const schedules = await getSchedules([...new Set(claims.map((claim) => claim.prsid))]);
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
 * Summaries of guides in the order given: one BatchGet for their authors not cached, one for
 * their images, and the batched reads of their review schedules (never one read per guide).
 */
export async function guideSummaries(guides: GuideRecord[]): Promise<GuideSummary[]> {
  if (guides.length === 0) return [];
  const [authors, media, schedules] = await Promise.all([
    authorsOf(guides),
    viewMediaById(mediaIdsOf(guides)),
    reviewSchedulesOf(guides),
  ]);
  return summariesOf(guides, authors, media, schedules);
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
  // The author (unless authentication cached them), the steps, the prerequisites and the
  // caller's marks: one BatchGet.
  const noMarks: BatchPart<{ favorited: boolean; completed: boolean }> = {
    keys: [],
    decode: () => ({ favorited: false, completed: false }),
  };
  const [[author], guideSteps, marks, prerequisiteGuides] = await batchGetParts(
    usersPart([guide.userid]),
    stepsPart(guide.steps.map((ref) => ref.stepid)),
    caller ? guideMarksPart(caller.userid, guide.guideid) : noMarks,
    guidesPart(guide.prerequisites),
  );
  const visiblePrerequisites = prerequisiteGuides.filter((prerequisite) => canViewGuideNow(caller, prerequisite));
  const [prerequisiteAuthors, prerequisiteSteps, prerequisiteSchedules] = await Promise.all([
    visiblePrerequisites.length > 0 ? authorsOf(visiblePrerequisites) : Promise.resolve(new Map<number, UserRecord>()),
    options.prerequisiteSteps === false
      ? Promise.resolve([] as StepRecord[])
      : getSteps(visiblePrerequisites.flatMap((prerequisite) => prerequisite.steps.map((ref) => ref.stepid))),
    visiblePrerequisites.length > 0 ? reviewSchedulesOf(visiblePrerequisites) : Promise.resolve(new Map()),
  ]);
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
    prerequisites: summariesOf(visiblePrerequisites, prerequisiteAuthors, media, prerequisiteSchedules),
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

/** `[{guide, date}]` of marks in the order given (their guides' summaries read in one batch). */
export async function guideMarkViews(marks: Array<{ guide: GuideRecord; date: number }>): Promise<GuideMarkView[]> {
  const summaries = await guideSummaries(marks.map((mark) => mark.guide));
  return marks.map((mark, index) => ({ guide: summaries[index], date: mark.date }));
}
