/** Site export, failure path: the export is marked failed with the reason the API reports. */
import { nowSeconds } from '../../shared/clock.ts';
import { failExport } from '../../shared/db/entities/site-transfer-job.ts';
import { siteExportStateSchema } from '../../shared/workflow/site-transfer-contract.ts';
import { jobFailureReason, siteJobTask } from './site-job-input.ts';

export const handler = siteJobTask('MarkExportFailed', siteExportStateSchema, async (state) => {
  await failExport(state.exportid, jobFailureReason(state.failure), nowSeconds());
  return state;
});
