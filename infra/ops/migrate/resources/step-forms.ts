/**
 * Step forms: per guide (ids from the guides crawler) the current form of each step, every
 * earlier form revision (reached through previous_form_revisionid: old revisions stay readable
 * for old work-log data) and every field revision, naming the newest form revision that holds
 * it. Written through the step-form entity's own builders. Nothing here is left unexposed.
 */
import { itemsOfWrites, SourceError, type CrawlContext, type ResourceCrawler } from '../crawl.ts';
import { isDenied } from './training-common.ts';
import {
  currentFormPut,
  fieldRevisionPut,
  formRevisionPut,
  type FieldRevisionRecord,
  type StepFormRecord,
} from '../../../../shared/db/entities/step-form.ts';
import type { StepFormView } from '../../../../shared/views/step-form-views.ts';

export function formRecordOf(view: StepFormView): StepFormRecord {
  return {
    form_revisionid: view.form_revisionid,
    stepid: view.stepid,
    guideid: view.guideid,
    userid: view.userid,
    date: view.date,
    previous_form_revisionid: view.previous_form_revisionid,
    fields: view.fields.map((field) => ({
      field_revisionid: field.field_revisionid,
      field_guid: field.field_guid,
      field_type: field.field_type,
      label: field.label,
      placeholder: field.placeholder,
      textarea: field.textarea,
      options: field.options,
    })),
  };
}

/** The step's form revisions, newest first, down its previous_form_revisionid chain. */
async function revisionChain(context: CrawlContext, current: StepFormRecord): Promise<StepFormRecord[]> {
  const chain = [current];
  let previous = current.previous_form_revisionid;
  while (previous !== null) {
    const view = await context.api.find<StepFormView>(`/step_forms/form_revisionid/${previous}`);
    if (!view) {
      context.report.skipped(`step form revision ${previous}`, 'not readable on the source');
      break;
    }
    const form = formRecordOf(view);
    chain.push(form);
    previous = form.previous_form_revisionid;
  }
  return chain;
}

/** Every field revision of the chain, naming the newest revision that holds it. */
function fieldRevisionsOf(chain: StepFormRecord[]): FieldRevisionRecord[] {
  const fields = new Map<number, FieldRevisionRecord>();
  for (const form of chain) {
    for (const field of form.fields) {
      if (fields.has(field.field_revisionid)) continue; // newest first: the first holder is the newest
      fields.set(field.field_revisionid, {
        ...field,
        stepid: form.stepid,
        guideid: form.guideid,
        form_revisionid: form.form_revisionid,
      });
    }
  }
  return [...fields.values()];
}

async function guideFormItems(context: CrawlContext, guideid: number) {
  const forms = await context.api.get<StepFormView[]>(`/step_forms/guideid/${guideid}`).catch((error: unknown) => {
    if (error instanceof SourceError && error.status === 404) return []; // the guide went meanwhile
    throw error;
  });
  const items: Record<string, unknown>[] = [];
  // The answer holds the prerequisite guides' forms too; they are carried with their own guide.
  for (const view of forms.filter((form) => form.guideid === guideid)) {
    const chain = await revisionChain(context, formRecordOf(view));
    for (const form of chain) {
      context.sink.idSeen('form_revision', form.form_revisionid);
      for (const field of form.fields) context.sink.idSeen('form_field_revision', field.field_revisionid);
    }
    items.push(
      ...itemsOfWrites([
        currentFormPut(chain[0]!, null),
        ...chain.map(formRevisionPut),
        ...fieldRevisionsOf(chain).map(fieldRevisionPut),
      ]),
    );
  }
  return items;
}

export const stepFormsCrawler: ResourceCrawler = {
  name: 'step-forms',
  after: ['guides'],
  async crawl(context) {
    try {
      for (const guideid of context.known.all('guide')) {
        const unit = `step_forms:guide:${guideid}`;
        if (context.isDone(unit)) continue;
        await context.sink.items(await guideFormItems(context, guideid));
        await context.completed(unit);
      }
    } catch (error) {
      if (!isDenied(error)) throw error;
      context.report.unexposed('step forms', 'the source refused them to this account');
    }
  },
};
