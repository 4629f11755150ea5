/** Site import, failure path: the import is marked failed with the reason the API reports. */
import { nowSeconds } from '../../shared/clock.ts';
import { failImport } from '../../shared/db/entities/site-transfer-job.ts';
import { jobFailureReason, requireJobId } from './site-job-input.ts';

export async function handler(input: { failure?: { Error?: string; Cause?: string } }) {
  const importid = requireJobId(input, 'importid');
  await failImport(importid, jobFailureReason(input.failure), nowSeconds());
  return input;
}
