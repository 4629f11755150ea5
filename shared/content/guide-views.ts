/**
 * Loads what the guide views need (authors, steps, prerequisites, the caller's marks) and
 * builds them: summaries for lists, the full guide, a step with its position.
 */
import { documentCommentViews } from './comment-views.ts';
import { config } from '../config.ts';
import type { Caller } from '../http/auth-context.ts';
import { getGuides, getSteps, type GuideRecord, type StepRecord } from '../db/entities/guide.ts';
import { getUser, getUsers, type UserRecord } from '../db/entities/user.ts';
import { guideMarksOf } from '../db/entities/guide-mark.ts';
import { fullGuideView, guideSummary, stepView, type FullGuideView, type GuideSummary, type StepView } from '../domain/guide-view.ts';
import { canEditGuide, canViewGuideNow } from './guide-access.ts';

const siteUrl = () => config().STEPWISE_SITE_URL;

async function authorsOf(guides: GuideRecord[]): Promise<Map<number, UserRecord>> {
  const users = await getUsers([...new Set(guides.map((guide) => guide.userid))]);
  return new Map(users.map((user) => [user.userid, user]));
}

/** Summaries of guides in the order given (one BatchGet for their authors). */
export async function guideSummaries(guides: GuideRecord[]): Promise<GuideSummary[]> {
  if (guides.length === 0) return [];
  const authors = await authorsOf(guides);
  return guides.map((guide) => guideSummary(guide, authors.get(guide.userid), siteUrl()));
}

/** A step with its 1-based position among the guide's own steps. */
export function stepOfGuide(guide: GuideRecord, step: StepRecord): StepView {
  return stepView(step, guide.steps.findIndex((ref) => ref.stepid === step.stepid) + 1);
}

function ownStepViews(guide: GuideRecord, steps: StepRecord[]): StepView[] {
  const byId = new Map(steps.map((step) => [step.stepid, step]));
  return guide.steps.flatMap((ref, index) => {
    const step = byId.get(ref.stepid);
    return step ? [stepView(step, index + 1)] : [];
  });
}

/**
 * The full guide as the caller sees it. Prerequisites the caller may not read are left out;
 * their steps come first (each keeps its own guideid and orderby) unless excluded. Only one
 * level of prerequisites is inlined, so a cycle cannot loop.
 */
export async function fullGuide(caller: Caller | null, guide: GuideRecord, options: { prerequisiteSteps?: boolean } = {}): Promise<FullGuideView> {
  const [author, ownSteps, marks, prerequisiteGuides] = await Promise.all([
    getUser(guide.userid),
    getSteps(guide.steps.map((ref) => ref.stepid)),
    caller ? guideMarksOf(caller.userid, guide.guideid) : Promise.resolve({ favorited: false, completed: false }),
    guide.prerequisites.length > 0 ? getGuides(guide.prerequisites) : Promise.resolve([] as GuideRecord[]),
  ]);
  const visiblePrerequisites = prerequisiteGuides.filter((prerequisite) => canViewGuideNow(caller, prerequisite));
  const [prerequisites, prerequisiteSteps] = await Promise.all([
    guideSummaries(visiblePrerequisites),
    options.prerequisiteSteps === false ? Promise.resolve([] as StepRecord[]) : getSteps(visiblePrerequisites.flatMap((prerequisite) => prerequisite.steps.map((ref) => ref.stepid))),
  ]);
  const inlined = options.prerequisiteSteps === false ? [] : visiblePrerequisites.flatMap((prerequisite) => ownStepViews(prerequisite, prerequisiteSteps));
  const steps = [...inlined, ...ownStepViews(guide, ownSteps)];
  // Comments inline: the guide's, and only the steps' that have any (their comment_count says so).
  const [guideComments, stepComments] = await Promise.all([
    documentCommentViews('guide', guide.guideid),
    Promise.all(steps.map((step) => (step.comment_count > 0 ? documentCommentViews('step', step.stepid) : Promise.resolve([])))),
  ]);
  steps.forEach((step, index) => (step.comments = stepComments[index]));
  const view = fullGuideView({
    guide,
    author,
    steps,
    prerequisites,
    favorited: marks.favorited,
    completed: marks.completed,
    canEdit: canEditGuide(caller, guide),
    siteUrl: siteUrl(),
  });
  view.comments = guideComments;
  return view;
}
