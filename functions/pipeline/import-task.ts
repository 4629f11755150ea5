/**
 * What every module import task shares: its input and output checked against the pipeline's
 * contract (shared/workflow/module-import-contract.ts), progress that notices a cancelled
 * import, and the translation of errors into the names the state machine retries or catches.
 */
import { config } from '../../shared/config.ts';
import { nowSeconds } from '../../shared/clock.ts';
import { setProgress, type ImportStage } from '../../shared/db/entities/module-import.ts';
import { PackageRejection } from '../../shared/domain/module-package.ts';
import { FetchRefusedError } from '../../shared/net/safe-fetch.ts';
import { packageRejected, PipelineError, PipelineErrorName, storageError } from './errors.ts';
import { checkedOutput, requireImportState, type ImportState } from './import-state.ts';
import { contentPrefix } from '../../shared/storage/module-objects.ts';
import { deleteByPrefixes } from '../../shared/storage/objects.ts';

export function importTask(name: string, work: (state: ImportState) => Promise<ImportState>) {
  return async (input: unknown): Promise<ImportState> => {
    const state = requireImportState(input);
    let output: ImportState;
    try {
      output = await work(state);
    } catch (error) {
      if (error instanceof PackageRejection || error instanceof FetchRefusedError)
        throw packageRejected(error.code, error.message, error);
      throw storageError(error, `${name} of import ${state.importid}`);
    }
    return checkedOutput(name, output);
  };
}

/**
 * Records progress; a cancelled (no longer running) import stops the task. The task removes
 * what it extracted itself: after StopExecution no failure path runs, and a task still in
 * flight may have written objects after the cancel's own clean-up.
 */
export async function progress(state: ImportState, stage: ImportStage, percent: number): Promise<void> {
  if (!(await setProgress(state.importid, stage, percent, nowSeconds()))) {
    await deleteByPrefixes(state.bucket, [contentPrefix(state.importid)]);
    throw new PipelineError(PipelineErrorName.ImportCancelled, `Import ${state.importid} is no longer running`);
  }
}

/** Calls `report` when the percentage moved by at least `step` points since the last call. */
export function throttledPercent(report: (percent: number) => Promise<void>, step = 5) {
  let last = -Infinity;
  return async (percent: number) => {
    if (percent - last < step) return;
    last = percent;
    await report(percent);
  };
}

export function packageLimits() {
  const settings = config();
  return {
    maxPackageBytes: settings.STEPWISE_MODULE_MAX_PACKAGE_BYTES,
    maxExtractedBytes: settings.STEPWISE_MODULE_MAX_EXTRACTED_BYTES,
    fetchTimeoutMs: settings.STEPWISE_MODULE_FETCH_TIMEOUT_SECONDS * 1000,
    allowHosts: settings.STEPWISE_FETCH_ALLOW_HOSTS,
  };
}
