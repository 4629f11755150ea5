/**
 * Step forms: each save of a step's form is a new form revision. A field keeps its field_guid
 * across revisions and gets a new field_revisionid only when its content changes, so work-log
 * values keyed on a field_revisionid always find the field they were entered against. Reading
 * follows the guide (whoever can view it); saving follows editing the guide. Rules:
 * docs/work-log.md "Step forms".
 */
import { randomUUID } from 'node:crypto';
import type { StepFormBody } from './step-forms.schemas.ts';
import { formView } from '../../shared/views/step-form-views.ts';
import { ConflictError, NotFoundError, ValidationError, type FieldProblem } from '../../shared/domain/errors.ts';
import { fieldContent, sameFieldContent, type FieldInput } from '../../shared/domain/step-forms.ts';
import { isAdmin, type Caller } from '../../shared/domain/caller.ts';
import { assertCanEditGuide, assertCanViewGuide, canViewGuideNow } from '../../shared/content/guide-access.ts';
import { nextId, nextIds } from '../../shared/db/counters.ts';
import { nowSeconds } from '../../shared/clock.ts';
import { isLostRace, labelsIn, retryOnLostRace } from '../../shared/db/retry.ts';
import { getGuide, getGuides } from '../../shared/db/entities/guide.ts';
import { getStep } from '../../shared/db/entities/step.ts';
import {
  getCurrentForm,
  getFieldRevision,
  getFormRevision,
  listCurrentForms,
  saveFormRevision,
  type FormFieldRecord,
  type StepFormRecord,
} from '../../shared/db/entities/step-form.ts';

const MAX_ATTEMPTS = 8;
/** The step's current-form pointer moved: another save came first. */
const formRace = labelsIn('current');
const CLIENT_GUID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Reading a form follows its guide. A form of a deleted guide stays readable by Admins, so old
 * work-log data keyed on its field revisions can still be resolved.
 */
async function assertCanReadFormsOf(caller: Caller | null, guideid: number): Promise<void> {
  const guide = await getGuide(guideid);
  if (!guide && isAdmin(caller)) return;
  await assertCanViewGuide(caller, guideid);
}

export async function byStep(caller: Caller | null, stepid: number) {
  const step = await getStep(stepid);
  if (!step) throw new NotFoundError(`No step with stepid ${stepid}`);
  await assertCanViewGuide(caller, step.guideid);
  const form = await getCurrentForm(step.guideid, stepid);
  if (!form) throw new NotFoundError(`Step ${stepid} has no form`);
  return formView(form);
}

export async function byFormRevision(caller: Caller | null, formRevisionid: number) {
  const form = await getFormRevision(formRevisionid);
  if (!form) throw new NotFoundError(`No form with form_revisionid ${formRevisionid}`);
  await assertCanReadFormsOf(caller, form.guideid);
  return formView(form);
}

/** The newest form revision that contains the field revision. */
export async function byFieldRevision(caller: Caller | null, fieldRevisionid: number) {
  const field = await getFieldRevision(fieldRevisionid);
  if (!field) throw new NotFoundError(`No form field with field_revisionid ${fieldRevisionid}`);
  await assertCanReadFormsOf(caller, field.guideid);
  const form = await getFormRevision(field.form_revisionid);
  if (!form) throw new NotFoundError(`No form with form_revisionid ${field.form_revisionid}`);
  return formView(form);
}

/** Current forms of the guide's steps and of its prerequisite guides' steps (those the caller can view). */
export async function byGuide(caller: Caller | null, guideid: number) {
  const guide = await assertCanViewGuide(caller, guideid);
  const prerequisites = (await getGuides(guide.prerequisites)).filter((prerequisite) =>
    canViewGuideNow(caller, prerequisite),
  );
  const perGuide = await Promise.all(
    [guide, ...prerequisites].map(async (each) => {
      const stepids = new Set(each.steps.map((step) => step.stepid));
      return (await listCurrentForms(each.guideid)).filter((form) => stepids.has(form.stepid));
    }),
  );
  return perGuide.flat().map(formView);
}

interface PlannedField {
  field: Omit<FormFieldRecord, 'field_revisionid'> & { field_revisionid: number | null };
}

/** Each posted field over its current version: kept (same field_revisionid) or new; 422 naming every bad field. */
function planFields(inputs: FieldInput[], current: StepFormRecord | undefined): PlannedField[] {
  const byGuid = new Map((current?.fields ?? []).map((field) => [field.field_guid, field]));
  const seen = new Set<string>();
  const problems: FieldProblem[] = [];
  const planned: PlannedField[] = [];
  inputs.forEach((input, index) => {
    const at = `fields.${index}`;
    const guid = input.field_guid?.trim();
    if (guid !== undefined) {
      if (!CLIENT_GUID.test(guid))
        problems.push({
          field: `${at}.field_guid`,
          code: 'invalid_field_guid',
          message: `${at}.field_guid: 1 to 64 letters, digits, - or _`,
        });
      else if (seen.has(guid))
        problems.push({
          field: `${at}.field_guid`,
          code: 'duplicate_field',
          message: `${at}.field_guid names a field already in this form`,
        });
      seen.add(guid);
    }
    const existing = guid === undefined ? undefined : byGuid.get(guid);
    const result = fieldContent(input, existing, at);
    problems.push(...result.problems);
    if (!result.content) return;
    const keptRevision = existing && sameFieldContent(result.content, existing) ? existing.field_revisionid : null;
    planned.push({ field: { ...result.content, field_guid: guid ?? randomUUID(), field_revisionid: keptRevision } });
  });
  if (problems.length > 0) throw new ValidationError(`Invalid form fields: ${problems[0].message}`, problems);
  return planned;
}

/**
 * Saves the posted fields as the step's new form revision (the list is the whole form, in
 * order). `expectedRevision` (the `?revisionid=` a client read) is checked when given: 409 with
 * the current form when another save came first. Without it, a lost race retries on the
 * newer form, so field identities are always worked out against the form being replaced.
 */
export async function save(caller: Caller, stepid: number, body: StepFormBody, expectedRevision?: number) {
  const step = await getStep(stepid);
  if (!step) throw new NotFoundError(`No step with stepid ${stepid}`);
  await assertCanEditGuide(caller, step.guideid);
  const posted = body.fields;
  if (posted === undefined)
    throw ValidationError.field('fields', 'missing_field', "fields is required: the array of the form's fields");

  return retryOnLostRace(
    async () => {
      const current = await getCurrentForm(step.guideid, stepid, { consistent: true });
      if (expectedRevision !== undefined && current?.form_revisionid !== expectedRevision) {
        throw new ConflictError(
          'The revisionid is not the current form_revisionid; the body is the current form',
          current ? formView(current) : undefined,
        );
      }
      const planned = planFields(posted, current);
      const newCount = planned.filter((entry) => entry.field.field_revisionid === null).length;
      const [formRevisionid, newIds] = await Promise.all([
        nextId('form_revision'),
        nextIds('form_field_revision', newCount),
      ]);
      const fields: FormFieldRecord[] = planned.map(({ field }) => ({
        ...field,
        field_revisionid: field.field_revisionid ?? newIds.shift()!,
      }));
      const form: StepFormRecord = {
        form_revisionid: formRevisionid,
        stepid,
        guideid: step.guideid,
        userid: caller.userid,
        date: nowSeconds(),
        previous_form_revisionid: current?.form_revisionid ?? null,
        fields,
      };
      const kept = planned
        .filter((entry) => entry.field.field_revisionid !== null)
        .map((entry) => entry.field.field_revisionid!);
      try {
        await saveFormRevision(form, current?.form_revisionid ?? null, kept);
      } catch (error) {
        if (expectedRevision !== undefined && isLostRace(error, formRace)) {
          // The named revision was replaced meanwhile: 409 with the form as it is now.
          const now = await getCurrentForm(step.guideid, stepid, { consistent: true });
          throw new ConflictError(
            'The revisionid is not the current form_revisionid; the body is the current form',
            now ? formView(now) : undefined,
          );
        }
        throw error;
      }
      return formView(form);
    },
    { attempts: MAX_ATTEMPTS, raceLabels: formRace, message: 'The form is being changed by others; try again' },
  );
}
