/** The wire shape of a step form: its zod schema (the routes' response) and its builder, typed by it. */
import * as z from 'zod/mini';
import { FIELD_TYPES } from '../domain/step-forms.ts';
import type { StepFormRecord } from '../db/entities/step-form.ts';

/** A step form revision with its fields in form order (docs/work-log.md). */
export const stepFormSchema = z.object({
  form_revisionid: z.int(),
  stepid: z.int(),
  guideid: z.int(),
  userid: z.int(),
  date: z.int(),
  previous_form_revisionid: z.nullable(z.int()),
  fields: z.array(
    z.object({
      field_revisionid: z.int(),
      field_guid: z.string(),
      field_type: z.enum(FIELD_TYPES),
      label: z.string(),
      placeholder: z.string(),
      textarea: z.string(),
      options: z.nullable(z.string()),
      orderby: z.int(),
    }),
  ),
});

export type StepFormView = z.output<typeof stepFormSchema>;

export function formView(form: StepFormRecord): StepFormView {
  return {
    form_revisionid: form.form_revisionid,
    stepid: form.stepid,
    guideid: form.guideid,
    userid: form.userid,
    date: form.date,
    previous_form_revisionid: form.previous_form_revisionid,
    fields: form.fields.map((field, index) => ({
      field_revisionid: field.field_revisionid,
      field_guid: field.field_guid,
      field_type: field.field_type,
      label: field.label,
      placeholder: field.placeholder,
      textarea: field.textarea,
      options: field.options,
      orderby: index,
    })),
  };
}
