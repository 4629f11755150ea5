/**
 * The state that flows through the module import state machine. Execution input (written by
 * functions/modules when an import starts) is `{ importid, moduleid, bucket, key, source, url? }`;
 * each task returns the state it received plus what it learned, so later tasks see it all.
 */
import type { ManifestFacts } from '../../shared/domain/module-package.ts';
import { PipelineError, PipelineErrorName } from './errors.ts';

export interface ImportState {
  importid: number;
  moduleid: number;
  bucket: string;
  /** The package zip. */
  key: string;
  source: 'upload' | 'url';
  url?: string;
  /** InspectPackage */
  size?: number;
  contentType?: string | null;
  /** ValidatePackage */
  layout?: { manifestPath: string; rootPrefix: string; repaired: boolean };
  manifest?: ManifestFacts;
  files?: number;
  totalBytes?: number;
  /** ExtractPackage */
  extractedFiles?: number;
  extractedBytes?: number;
  /** Set by the Catch that leads to MarkImportFailed. */
  failure?: { Error?: string; Cause?: string };
}

export function requireImportState(input: unknown): ImportState {
  const state = input as Partial<ImportState> | null;
  if (
    !state ||
    !Number.isInteger(state.importid) ||
    !Number.isInteger(state.moduleid) ||
    typeof state.bucket !== 'string' ||
    typeof state.key !== 'string' ||
    (state.source !== 'upload' && state.source !== 'url')
  ) {
    throw new PipelineError(
      PipelineErrorName.InvalidInput,
      'Expected input { importid, moduleid, bucket, key, source }',
    );
  }
  return state as ImportState;
}

export function requireSize(state: ImportState): number {
  if (typeof state.size !== 'number')
    throw new PipelineError(PipelineErrorName.InvalidInput, 'The package size is missing (InspectPackage runs first)');
  return state.size;
}
