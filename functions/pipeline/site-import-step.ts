/** Site import: one step (shared/site-archive/import-step.ts); the state machine loops until done. */
import { runImportStep } from '../../shared/site-archive/import-step.ts';
import { siteImportStateSchema } from '../../shared/workflow/site-transfer-contract.ts';
import { siteJobTask } from './site-job-input.ts';

export const handler = siteJobTask('ImportStep', siteImportStateSchema, async ({ importid, attempt }) => {
  const { done } = await runImportStep(importid, attempt);
  // The output is the next step's input: the attempt goes round with it.
  return { importid, attempt, done };
});
