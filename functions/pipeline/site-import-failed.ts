/** Site import, failure path: the import is marked failed with the reason the API reports. */
import { nowSeconds } from '../../shared/clock.ts';
import { failImport } from '../../shared/db/entities/site-transfer-job.ts';
import { siteImportStateSchema } from '../../shared/workflow/site-transfer-contract.ts';
import { jobFailureReason, siteJobTask } from './site-job-input.ts';

export const handler = siteJobTask('MarkSiteImportFailed', siteImportStateSchema, async (state) => {
  await failImport(state.importid, jobFailureReason(state.failure), nowSeconds());
  return state;
});
