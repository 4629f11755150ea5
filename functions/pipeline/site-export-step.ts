/** Site export: one step (shared/site-archive/export-step.ts); the state machine loops until done. */
import { runExportStep } from '../../shared/site-archive/export-step.ts';
import { siteExportStateSchema } from '../../shared/workflow/site-transfer-contract.ts';
import { siteJobTask } from './site-job-input.ts';

export const handler = siteJobTask('ExportStep', siteExportStateSchema, async ({ exportid }) => {
  const { done } = await runExportStep(exportid);
  return { exportid, done };
});
