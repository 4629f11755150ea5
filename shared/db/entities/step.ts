import { tableName } from '../client.ts';
import { getItem } from '../items.ts';
import { padId } from '../keys.ts';
import { batchDelete, batchGetInOrder, batchGetParts, type BatchPart } from '../batch.ts';
import { revisionGuard } from '../revisions.ts';
import type { LabelledWrite } from '../transactions.ts';
import { recordsOf, type StoredRecord } from '../stored-item.ts';
import * as z from 'zod/mini';
import type { StepRef } from './guide.ts';
import { stepLineItemSchema } from '../../domain/step-line.ts';

const id = z.int().check(z.positive());

/** Step media as written: image ids, or one video / embed id (§2.6 write form). */
export type StepMedia =
  | { type: 'image'; data: number[] }
  | { type: 'video'; data: number }
  | { type: 'embed'; data: number };

const stepMedia = z.nullable(
  z.union([
    z.object({ type: z.literal('image'), data: z.array(z.int()) }),
    z.object({ type: z.enum(['video', 'embed']), data: z.int() }),
  ]),
);
const stepContent = {
  guideid: id,
  stepid: id,
  revisionid: z.int(),
  title: z.string(),
  lines: z.array(stepLineItemSchema),
  media: stepMedia,
};

export const stepItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.literal('STEP'),
  entity: z.literal('Step'),
  ...stepContent,
  /** Kept by the comments code (ADD); step writes never overwrite it. */
  comment_count: z.optional(z.int()),
});

export type StepRecord = StoredRecord<typeof stepItemSchema>;

export const stepRevisionItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.string(),
  entity: z.literal('StepRevision'),
  ...stepContent,
});

export function stepKey(stepid: number) {
  return { pk: `STEP#${stepid}`, sk: 'STEP' } as const;
}

export function stepRevisionKey(stepid: number, revisionid: number) {
  return { pk: `STEP#${stepid}`, sk: `REV#${padId(revisionid)}` };
}

/** A step item (read, or the current item a failed step guard returns) as its record. */
export const stepFromItem = recordsOf(stepItemSchema);

/** A step found by its id alone (comments and step forms know only the stepid). */
export async function getStep(stepid: number): Promise<StepRecord | undefined> {
  const item = await getItem(stepKey(stepid));
  return item ? stepFromItem(item) : undefined;
}

/** Steps in the order of the ids asked for; unknown ids are left out. */
export async function getSteps(stepids: number[]): Promise<StepRecord[]> {
  const [steps] = await batchGetParts(stepsPart(stepids));
  return steps;
}

/** Steps in the order of the ids asked for, as a share of a BatchGet. */
export function stepsPart(stepids: number[]): BatchPart<StepRecord[]> {
  return { keys: stepids.map(stepKey), decode: (items) => items.map(stepFromItem) };
}

/** Steps as they were at the given step revisions. */
export async function getStepSnapshots(refs: StepRef[]): Promise<StepRecord[]> {
  const items = await batchGetInOrder(refs.map((ref) => stepRevisionKey(ref.stepid, ref.revisionid)));
  return items.map(recordsOf(stepRevisionItemSchema));
}

function stepSnapshotPut(step: StepRecord): LabelledWrite {
  const { comment_count, ...content } = step;
  return {
    label: `step-revision:${step.stepid}`,
    item: {
      Put: {
        TableName: tableName(),
        Item: {
          ...stepRevisionKey(step.stepid, step.revisionid),
          entity: 'StepRevision',
          ...content,
        } satisfies z.input<typeof stepRevisionItemSchema>,
      },
    },
  };
}

/** A new step with its first snapshot. */
export function stepCreateWrites(step: StepRecord): LabelledWrite[] {
  return [
    {
      label: 'step',
      item: {
        Put: {
          TableName: tableName(),
          Item: { ...stepKey(step.stepid), entity: 'Step', ...step } satisfies z.input<typeof stepItemSchema>,
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    },
    stepSnapshotPut(step),
  ];
}

/** Changes a step if its revision is still `expectedRevision` (label `step`), plus its snapshot. */
export function stepReplaceWrites(step: StepRecord, expectedRevision: number): LabelledWrite[] {
  const guard = revisionGuard(expectedRevision);
  return [
    {
      label: 'step',
      item: {
        Update: {
          TableName: tableName(),
          Key: stepKey(step.stepid),
          UpdateExpression: 'SET #revisionid = :revisionid, #title = :title, #lines = :lines, #media = :media',
          ...guard,
          ExpressionAttributeNames: {
            ...guard.ExpressionAttributeNames,
            '#title': 'title',
            '#lines': 'lines',
            '#media': 'media',
          },
          ExpressionAttributeValues: {
            ...guard.ExpressionAttributeValues,
            ':revisionid': step.revisionid,
            ':title': step.title,
            ':lines': step.lines,
            ':media': step.media,
          },
        },
      },
    },
    stepSnapshotPut(step),
  ];
}

/** Deletes a step if its revision is still `expectedRevision` (label `step`); snapshots stay. */
export function stepDeleteWrite(stepid: number, expectedRevision: number): LabelledWrite {
  return {
    label: 'step',
    item: { Delete: { TableName: tableName(), Key: stepKey(stepid), ...revisionGuard(expectedRevision) } },
  };
}

/** Removes the step items of a deleted guide (their snapshots stay with the guide's history). */
export async function deleteStepItems(stepids: number[]): Promise<void> {
  await batchDelete(stepids.map(stepKey));
}
