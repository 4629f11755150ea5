/**
 * Step forms (data-entry forms attached to guide steps).
 * - Form revision: pk FORMREV#<form_revisionid> / sk FORM, the whole form as saved (immutable:
 *   old revisions stay readable for old work-log data).
 * - Current form of a step: pk STEPFORMS#GUIDE#<guideid> / sk STEP#<padded stepid>, a copy of
 *   the newest revision, so a guide's forms are one Query. Replaced only on condition that it is
 *   still the revision the save was based on.
 * - Field revision: pk FIELDREV#<field_revisionid> / sk FIELD, the field's content, its step and
 *   guide, and the newest form revision that contains it (moved when a save keeps the field).
 * Ids come from the counters `form_revision` and `form_field_revision`.
 */
import { tableName } from '../client.ts';
import { getItem } from '../items.ts';
import { padId } from '../keys.ts';
import { batchGetInOrder } from '../batch.ts';
import { queryAll } from '../paging.ts';
import { transactWrite, type LabelledWrite } from '../transactions.ts';
import { FIELD_TYPES } from '../../domain/step-forms.ts';
import { recordFrom, recordsOf, type StoredRecord } from '../stored-item.ts';
import * as z from 'zod/mini';

const formField = {
  field_type: z.enum(FIELD_TYPES),
  label: z.string(),
  placeholder: z.string(),
  textarea: z.string(),
  options: z.nullable(z.string()),
  field_revisionid: z.int().check(z.positive()),
  /** The same for every revision of one field. */
  field_guid: z.string(),
};
const formFieldSchema = z.object(formField);
/** A field of a form: its content (FieldContent) and its revision. */
export type FormFieldRecord = z.output<typeof formFieldSchema>;

const formContent = {
  form_revisionid: z.int().check(z.positive()),
  stepid: z.int().check(z.positive()),
  guideid: z.int().check(z.positive()),
  /** Who saved this revision. */
  userid: z.int(),
  date: z.number(),
  /** The revision this one replaced; null for a step's first form. */
  previous_form_revisionid: z.nullable(z.int()),
  fields: z.array(formFieldSchema),
};

/** A form revision (FORMREV#) and the current form of a step (STEPFORMS#GUIDE#), each the whole form. */
export const stepFormRevisionItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.literal('FORM'),
  entity: z.literal('StepFormRevision'),
  ...formContent,
});
export const stepFormItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.string(),
  entity: z.literal('StepForm'),
  ...formContent,
});

export const stepFormFieldItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.literal('FIELD'),
  entity: z.literal('StepFormField'),
  ...formField,
  stepid: z.int().check(z.positive()),
  guideid: z.int().check(z.positive()),
  /** The newest form revision that contains this field revision. */
  form_revisionid: z.int().check(z.positive()),
});

export type StepFormRecord = StoredRecord<typeof stepFormItemSchema>;
export type FieldRevisionRecord = StoredRecord<typeof stepFormFieldItemSchema>;

export function formRevisionKey(formRevisionid: number) {
  return { pk: `FORMREV#${formRevisionid}`, sk: 'FORM' as const };
}

export function currentFormKey(guideid: number, stepid: number) {
  return { pk: `STEPFORMS#GUIDE#${guideid}`, sk: `STEP#${padId(stepid)}` };
}

export function fieldRevisionKey(fieldRevisionid: number) {
  return { pk: `FIELDREV#${fieldRevisionid}`, sk: 'FIELD' as const };
}

const formFromItem = recordsOf(stepFormItemSchema);
const fieldFromItem = recordsOf(stepFormFieldItemSchema);

export async function getCurrentForm(
  guideid: number,
  stepid: number,
  options: { consistent?: boolean } = {},
): Promise<StepFormRecord | undefined> {
  const item = await getItem(currentFormKey(guideid, stepid), { consistent: options.consistent });
  return item ? formFromItem(item) : undefined;
}

/** The current form of every step of a guide that has one (bounded by the guide's steps). */
export async function listCurrentForms(guideid: number): Promise<StepFormRecord[]> {
  const items = await queryAll({ partition: `STEPFORMS#GUIDE#${guideid}`, sortPrefix: 'STEP#' });
  return items.map(formFromItem);
}

export async function getFormRevision(formRevisionid: number): Promise<StepFormRecord | undefined> {
  const item = await getItem(formRevisionKey(formRevisionid));
  return item ? recordFrom(stepFormRevisionItemSchema, item) : undefined;
}

export async function getFieldRevision(fieldRevisionid: number): Promise<FieldRevisionRecord | undefined> {
  const item = await getItem(fieldRevisionKey(fieldRevisionid));
  return item ? fieldFromItem(item) : undefined;
}

/** Field revisions by id; unknown ids are left out. */
export async function getFieldRevisions(fieldRevisionids: number[]): Promise<FieldRevisionRecord[]> {
  const items = await batchGetInOrder([...new Set(fieldRevisionids)].map(fieldRevisionKey));
  return items.map(fieldFromItem);
}

/**
 * Saves `form` as the step's new revision in one transaction: the revision item, the current
 * form (label `current`: only if the current one is still `basedOn`, or absent when null), a
 * new item per new field revision, and the newest-form pointer of each kept field revision.
 */
export async function saveFormRevision(
  form: StepFormRecord,
  basedOn: number | null,
  keptFieldRevisionids: number[],
): Promise<void> {
  const keptSet = new Set(keptFieldRevisionids);
  const fieldWrites: LabelledWrite[] = form.fields.map((field) =>
    keptSet.has(field.field_revisionid)
      ? {
          label: `field:${field.field_revisionid}`,
          item: {
            Update: {
              TableName: tableName(),
              Key: fieldRevisionKey(field.field_revisionid),
              UpdateExpression: 'SET form_revisionid = :form',
              ConditionExpression: 'attribute_exists(pk)',
              ExpressionAttributeValues: { ':form': form.form_revisionid },
            },
          },
        }
      : fieldRevisionPut({
          ...field,
          stepid: form.stepid,
          guideid: form.guideid,
          form_revisionid: form.form_revisionid,
        }),
  );
  await transactWrite([formRevisionPut(form), currentFormPut(form, basedOn), ...fieldWrites]);
}

/** A form revision item (immutable once written). */
export function formRevisionPut(form: StepFormRecord): LabelledWrite {
  return {
    label: 'revision',
    item: {
      Put: {
        TableName: tableName(),
        Item: { ...formRevisionKey(form.form_revisionid), entity: 'StepFormRevision', ...form } satisfies z.input<
          typeof stepFormRevisionItemSchema
        >,
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  };
}

/** The step's current form (label `current`: only if the current one is still `basedOn`, or absent when null). */
export function currentFormPut(form: StepFormRecord, basedOn: number | null): LabelledWrite {
  return {
    label: 'current',
    item: {
      Put: {
        TableName: tableName(),
        Item: { ...currentFormKey(form.guideid, form.stepid), entity: 'StepForm', ...form } satisfies z.input<
          typeof stepFormItemSchema
        >,
        ...(basedOn === null
          ? { ConditionExpression: 'attribute_not_exists(pk)' }
          : { ConditionExpression: 'form_revisionid = :basedOn', ExpressionAttributeValues: { ':basedOn': basedOn } }),
      },
    },
  };
}

/** A new field revision item, naming the newest form revision that contains it. */
export function fieldRevisionPut(field: FieldRevisionRecord): LabelledWrite {
  return {
    label: `field:${field.field_revisionid}`,
    item: {
      Put: {
        TableName: tableName(),
        Item: { ...fieldRevisionKey(field.field_revisionid), entity: 'StepFormField', ...field } satisfies z.input<
          typeof stepFormFieldItemSchema
        >,
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  };
}
