/**
 * Module import, failure path: every task's Catch leads here with the error under
 * `$.failure` ({ Error, Cause }, Cause being Lambda's error document). The import is marked
 * failed with an error code and reason the API reports (a cancelled import stays cancelled),
 * and whatever was extracted is removed. The state passes on unchanged to the Fail state.
 */
import { nowSeconds } from '../../shared/clock.ts';
import { markFailed } from '../../shared/db/entities/module-import.ts';
import type { ImportErrorCode } from '../../shared/domain/module-import-errors.ts';
import { contentPrefix } from '../../shared/storage/module-objects.ts';
import { deleteByPrefixes } from '../../shared/storage/objects.ts';
import { PipelineErrorName, rejectionOf } from './errors.ts';
import { importTask } from './import-task.ts';

/** What the failure means for the user, from Step Functions' Error and Cause. */
export function failureReason(failure: { Error?: string; Cause?: string } | undefined): {
  code: ImportErrorCode;
  message: string;
} {
  const error = failure?.Error ?? 'States.Runtime';
  let message = failure?.Cause ?? '';
  try {
    const document = JSON.parse(message) as { errorMessage?: string };
    if (typeof document.errorMessage === 'string') message = document.errorMessage;
  } catch {
    // a plain-text cause (States.* errors)
  }
  if (error === PipelineErrorName.PackageRejected) return rejectionOf(message) ?? { code: 'internal', message };
  if (error === PipelineErrorName.PackageNotUploaded || error === PipelineErrorName.PackageNotFound) {
    return { code: 'upload_missing', message: 'The package was never uploaded; start the import again' };
  }
  if (error === PipelineErrorName.TransientStorage)
    return { code: 'storage_unavailable', message: `Storage kept failing: ${message}` };
  if (error === 'States.Timeout') return { code: 'timeout', message: 'A step of the import took too long' };
  return { code: 'internal', message: `${error}: ${message}`.slice(0, 1000) };
}

export const handler = importTask('MarkImportFailed', async (state) => {
  await markFailed(state.importid, failureReason(state.failure), nowSeconds());
  await deleteByPrefixes(state.bucket, [contentPrefix(state.importid)]);
  return state;
});
