/** Step forms: data-entry forms attached to guide steps, saved as revisions (spec "Step forms"). */
import * as z from 'zod/mini';
import { defineGroup, route } from '../../shared/http/route.ts';
import { idParams } from '../../shared/http/schemas.ts';
import { optionalRevisionQuery } from '../../shared/http/revision.ts';
import * as forms from './step-forms.service.ts';
import { stepFormBody } from './step-forms.schemas.ts';
import { stepFormSchema } from '../../shared/views/step-form-views.ts';

const readNote = 'Readable by whoever can view the guide (anonymous callers too, on public guides).';

export const stepFormsGroup = defineGroup({
  name: 'step-forms',
  access: { table: 'readwrite' },
  routes: [
    route({
      method: 'GET',
      path: '/step_forms/stepid/{stepid}',
      auth: 'public',
      summary: 'The current form of a step, with its fields (404 when the step has no form)',
      description: readNote,
      params: idParams('stepid'),
      response: stepFormSchema,
      handler: ({ caller, params }) => forms.byStep(caller, params.stepid),
    }),
    route({
      method: 'GET',
      path: '/step_forms/form_revisionid/{form_revisionid}',
      auth: 'public',
      summary: 'A form by its revision (old revisions stay readable)',
      description: readNote,
      params: idParams('form_revisionid'),
      response: stepFormSchema,
      handler: ({ caller, params }) => forms.byFormRevision(caller, params.form_revisionid),
    }),
    route({
      method: 'GET',
      path: '/step_forms/field_revisionid/{field_revisionid}',
      auth: 'public',
      summary: 'The newest form containing a field revision (several field revisions may give the same form)',
      description: `Resolves old work-log data keyed on field_revisionid. ${readNote}`,
      params: idParams('field_revisionid'),
      response: stepFormSchema,
      handler: ({ caller, params }) => forms.byFieldRevision(caller, params.field_revisionid),
    }),
    route({
      method: 'GET',
      path: '/step_forms/guideid/{guideid}',
      auth: 'public',
      summary: "Current forms of the guide's steps and of its prerequisite guides' steps (no order guaranteed)",
      description: `Steps without a form are left out. ${readNote}`,
      params: idParams('guideid'),
      response: z.array(stepFormSchema),
      handler: ({ caller, params }) => forms.byGuide(caller, params.guideid),
    }),
    route({
      method: 'POST',
      path: '/step_forms/{stepid}',
      auth: 'user',
      status: 201,
      summary: "Save the step's form as a new form revision; answers the saved form",
      description:
        '`fields` is the whole form, in order. A field naming the `field_guid` of a field of the current ' +
        'form is that field: attributes left out keep their value, and it keeps its `field_revisionid` ' +
        'unless its content changes. A field without `field_guid` is new. `field_type` (one of the nine) ' +
        'and `label` are required for new fields; `options` (JSON of an array of options, or an array) for ' +
        'Radios and Select. `placeholder` is used by Text Input and Numeric Input (a Checkbox is checked by ' +
        'default when it is 1); `textarea` by Text Area; attributes a type does not use are dropped. 422 ' +
        'names every bad field (`fields.<index>.<attribute>`). Optional `?revisionid=` (the form_revisionid ' +
        'the edit started from): 409 with the current form when stale. Whoever may edit the guide.',
      params: idParams('stepid'),
      query: optionalRevisionQuery,
      revision: 'when-given',
      body: stepFormBody,
      example: {
        fields: [
          { field_type: 'Text Input', label: 'Serial number', placeholder: 'SN-0000' },
          { field_type: 'Checkbox', label: 'Torque checked', placeholder: '1' },
          { field_type: 'Select', label: 'Result', options: '["pass","fail"]' },
        ],
      },
      response: stepFormSchema,
      handler: ({ caller, params, query, body }) => forms.save(caller, params.stepid, body, query.revisionid),
    }),
  ],
});
