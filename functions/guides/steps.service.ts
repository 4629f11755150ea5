/**
 * Step use cases. A step write names the step's revision (adding a step optionally names the
 * guide's); it commits together with a new guide revision, so the guide's revisionid moves on
 * every step change and each guide revision records which step revisions it had.
 */
import { type ConflictError, NotFoundError, StaleRevisionError, ValidationError } from '../../shared/domain/errors.ts';
import type { LineInput } from '../../shared/domain/guide-rules.ts';
import type { Caller } from '../../shared/domain/caller.ts';
import { nextId } from '../../shared/db/counters.ts';
import { nextRevisionId, staleRevisionConflict } from '../../shared/db/revisions.ts';
import { TransactionConditionFailed } from '../../shared/db/transactions.ts';
import type { GuideRecord } from '../../shared/db/entities/guide.ts';
import {
  getStep,
  stepCreateWrites,
  stepDeleteWrite,
  stepFromItem,
  stepReplaceWrites,
  type StepRecord,
} from '../../shared/db/entities/step.ts';
import { assertCanEditGuide } from '../../shared/content/guide-access.ts';
import { stillMayEdit } from './edit-permission.ts';
import { changeGuide } from '../../shared/content/guide-revisions.ts';
import { fullGuide, stepOfGuide } from '../../shared/read-models/guide-pages.ts';
import {
  assertUsableStepMedia,
  buildLines,
  previewLines,
  recordMediaUse,
  stepMediaIds,
  storedMedia,
} from './guide-content.ts';
import { assertNamedImagesUsable } from '../../shared/media/wiki-image-guids.ts';
import type { AddStepInput, StepInput } from './guides.schemas.ts';
import { guideConflictView, requiredRevision } from './guides.service.ts';

/** The step of this guide, or 404 (also when the step belongs to another guide). */
async function requireStep(guideid: number, stepid: number): Promise<StepRecord> {
  const step = await getStep(stepid);
  if (!step || step.guideid !== guideid) throw new NotFoundError(`No step ${stepid} in guide ${guideid}`);
  return step;
}

async function staleStep(guide: GuideRecord, step: StepRecord): Promise<ConflictError> {
  return new StaleRevisionError(step.revisionid, await stepOfGuide(guide, step), 'step');
}

/** Turns a failed step guard inside a guide change into 409 with the step as it is now. */
async function rethrowAsStepConflict(guide: GuideRecord, error: unknown): Promise<never> {
  const conflict = await staleRevisionConflict(error, 'step', (item) => stepOfGuide(guide, stepFromItem(item)));
  if (conflict) throw conflict;
  // The guard failed without an item: the step was deleted meanwhile.
  if (error instanceof TransactionConditionFailed && error.failedLabels.includes('step'))
    throw new NotFoundError('The step no longer exists');
  throw error;
}

/** The texts of lines as written or stored (what `[image|id]` checks read). */
const lineTexts = (lines: Array<{ text?: string; text_raw?: string }>): string[] =>
  lines.map((line) => line.text ?? line.text_raw ?? '');

function requireOwnStep(current: GuideRecord, stepid: number): void {
  if (!current.steps.some((ref) => ref.stepid === stepid))
    throw new NotFoundError(`No step ${stepid} in guide ${current.guideid}`);
}

/** Adds a step at `orderby` (1 .. steps + 1); later steps move down. Answers the whole guide. */
export async function addStep(caller: Caller, guideid: number, guideRevision: number | undefined, input: AddStepInput) {
  await assertCanEditGuide(caller, guideid);
  await assertUsableStepMedia(caller, input.media);
  await assertNamedImagesUsable(caller, 'lines', lineTexts(input.lines), [], { lines: true });
  const step: StepRecord = {
    guideid,
    stepid: 0,
    revisionid: 0,
    title: input.title ?? '',
    lines: await buildLines(input.lines),
    media: storedMedia(input.media),
  };
  const guide = await changeGuide(
    guideid,
    {
      expectedRevision: guideRevision,
      reason: 'step.add',
      changedBy: caller.userid,
      conflictView: guideConflictView(caller),
    },
    async (current) => {
      stillMayEdit(caller, current);
      if (input.orderby < 1 || input.orderby > current.steps.length + 1) {
        throw ValidationError.field(
          'orderby',
          'out_of_range',
          `orderby must be between 1 and ${current.steps.length + 1}`,
        );
      }
      step.stepid ||= await nextId('step');
      step.revisionid ||= await nextRevisionId();
      const steps = [...current.steps];
      steps.splice(input.orderby - 1, 0, { stepid: step.stepid, revisionid: step.revisionid });
      return { guide: { ...current, steps }, writes: stepCreateWrites(step) };
    },
  );
  await recordMediaUse(guideid, stepMediaIds(step.media));
  return fullGuide(caller, guide);
}

/** Edits a step named at its current revision; answers the step. */
export async function patchStep(
  caller: Caller,
  guideid: number,
  stepid: number,
  revisionid: number | undefined,
  input: StepInput,
) {
  const guideBefore = await assertCanEditGuide(caller, guideid);
  const before = await requireStep(guideid, stepid);
  const expected = requiredRevision(revisionid, before.revisionid);
  if (before.revisionid !== expected) throw await staleStep(guideBefore, before);
  await assertUsableStepMedia(caller, input.media, before.media);
  await assertNamedImagesUsable(caller, 'lines', lineTexts(input.lines ?? []), lineTexts(before.lines), {
    lines: true,
  });
  const after: StepRecord = {
    ...before,
    revisionid: await nextRevisionId(),
    title: input.title ?? before.title,
    lines: input.lines !== undefined ? await buildLines(input.lines, before.lines) : before.lines,
    media: input.media !== undefined ? storedMedia(input.media) : before.media,
  };
  try {
    const guide = await changeGuide(
      guideid,
      { reason: 'step.edit', changedBy: caller.userid, conflictView: guideConflictView(caller) },
      (current) => {
        stillMayEdit(caller, current);
        requireOwnStep(current, stepid);
        const steps = current.steps.map((ref) =>
          ref.stepid === stepid ? { stepid, revisionid: after.revisionid } : ref,
        );
        return { guide: { ...current, steps }, writes: stepReplaceWrites(after, expected) };
      },
    );
    await recordMediaUse(guideid, stepMediaIds(after.media));
    return stepOfGuide(guide, after);
  } catch (error) {
    return rethrowAsStepConflict(guideBefore, error);
  }
}

/** Deletes a step named at its current revision; answers the whole guide (200), as clients expect. */
export async function deleteStep(caller: Caller, guideid: number, stepid: number, revisionid: number | undefined) {
  const guideBefore = await assertCanEditGuide(caller, guideid);
  const step = await requireStep(guideid, stepid);
  const expected = requiredRevision(revisionid, step.revisionid);
  if (step.revisionid !== expected) throw await staleStep(guideBefore, step);
  try {
    const guide = await changeGuide(
      guideid,
      { reason: 'step.delete', changedBy: caller.userid, conflictView: guideConflictView(caller) },
      (current) => {
        stillMayEdit(caller, current);
        requireOwnStep(current, stepid);
        return {
          guide: { ...current, steps: current.steps.filter((ref) => ref.stepid !== stepid) },
          writes: [stepDeleteWrite(stepid, expected)],
        };
      },
    );
    return fullGuide(caller, guide);
  } catch (error) {
    return rethrowAsStepConflict(guideBefore, error);
  }
}

/** Reorders the steps in one write; `stepids` must list each of the guide's steps once. */
export async function reorderSteps(
  caller: Caller,
  guideid: number,
  revisionid: number | undefined,
  stepids: number[] | undefined,
) {
  const guideBefore = await assertCanEditGuide(caller, guideid);
  const expectedRevision = requiredRevision(revisionid, guideBefore.revisionid);
  if (stepids === undefined)
    throw ValidationError.field('stepids', 'missing_field', 'stepids is required (JSON body or query)');
  const guide = await changeGuide(
    guideid,
    { expectedRevision, reason: 'step.reorder', changedBy: caller.userid, conflictView: guideConflictView(caller) },
    (current) => {
      stillMayEdit(caller, current);
      const byId = new Map(current.steps.map((ref) => [ref.stepid, ref]));
      const isPermutation =
        stepids.length === current.steps.length &&
        new Set(stepids).size === stepids.length &&
        stepids.every((id) => byId.has(id));
      if (!isPermutation) {
        throw ValidationError.field(
          'stepids',
          'not_a_permutation',
          `stepids must list each step of the guide exactly once: ` +
            `${current.steps.map((ref) => ref.stepid).join(', ') || 'none'}`,
        );
      }
      return { guide: { ...current, steps: stepids.map((id) => byId.get(id)!) } };
    },
  );
  return fullGuide(caller, guide);
}

export async function preview(caller: Caller, lines: LineInput[]) {
  await assertNamedImagesUsable(caller, 'lines', lineTexts(lines), [], { lines: true });
  return { lines: await previewLines(lines) };
}
