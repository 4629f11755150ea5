/** Request schema of PUT step forms, shared by the routes file and step-forms.service.ts. */
import * as z from 'zod/mini';
import { boundedNumber } from '../../shared/http/schemas.ts';
import { FIELD_TYPES } from '../../shared/domain/step-forms.ts';

/** A save is one transaction: the revision, the current form and one write per field (the routes enforce it). */
export const MAX_FIELDS_PER_FORM = 60;

const field = z.object({
  field_guid: z.optional(z.string()),
  field_type: z.optional(z.enum(FIELD_TYPES)),
  label: z.optional(z.string()),
  placeholder: z.optional(z.nullable(z.union([z.string(), boundedNumber(), z.boolean()]))),
  textarea: z.optional(z.nullable(z.string())),
  options: z.optional(z.nullable(z.union([z.string(), z.array(z.string())]))),
});

export const stepFormBody = z.object({ fields: z.optional(z.array(field).check(z.maxLength(MAX_FIELDS_PER_FORM))) });

export type StepFormBody = z.output<typeof stepFormBody>;
