/** Site export, failure path: the export is marked failed with the reason the API reports. */
import { nowSeconds } from '../../shared/clock.ts';
import { failExport } from '../../shared/db/entities/site-transfer-job.ts';
import { jobFailureReason, requireJobId } from './site-job-input.ts';

export async function handler(input: { failure?: { Error?: string; Cause?: string } }) {
  const exportid = requireJobId(input, 'exportid');
  await failExport(exportid, jobFailureReason(input.failure), nowSeconds());
  return input;
}
