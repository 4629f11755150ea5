/**
 * Module import, last step: the import becomes a complete version of its module, with the
 * provider_version_number it was given at creation and what the manifest said. A module without
 * a title takes the package's.
 */
import { nowSeconds } from '../../shared/clock.ts';
import { recordVersion } from '../../shared/db/entities/module-import.ts';
import { adoptTitle } from '../../shared/db/entities/training-module.ts';
import { PipelineError, PipelineErrorName } from './errors.ts';
import { importTask } from './import-task.ts';

export const handler = importTask('RecordVersion', async (state) => {
  if (!state.manifest || !state.layout)
    throw new PipelineError(
      PipelineErrorName.InvalidInput,
      'The manifest facts are missing (ValidatePackage runs first)',
    );
  const now = nowSeconds();
  const recorded = await recordVersion(
    state.importid,
    {
      manifest: state.manifest,
      repaired: state.layout.repaired,
      file_count: state.extractedFiles ?? state.files ?? 0,
      extracted_bytes: state.extractedBytes ?? state.totalBytes ?? 0,
      size: state.size ?? null,
    },
    now,
  );
  if (!recorded)
    throw new PipelineError(PipelineErrorName.ImportCancelled, `Import ${state.importid} is no longer running`);
  await adoptTitle(state.moduleid, state.manifest.title, now);
  return state;
});
