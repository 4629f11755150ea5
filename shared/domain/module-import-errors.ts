/**
 * The stable error codes a module import reports (shared/domain/module-package.ts refuses packages
 * with them). A file of its own, without the package parser, so the module-import entity, which most
 * API bundles reach, does not pull fast-xml-parser into them (docs/benchmarks.md, "Cold start").
 */
export const IMPORT_ERROR_CODES = [
  'not_a_zip',
  'package_too_large',
  'manifest_missing',
  'manifest_invalid',
  'unsupported_version',
  'launch_missing',
  'unsafe_path',
  'zip_bomb',
  'too_many_files',
  'upload_missing',
  'url_not_allowed',
  'fetch_failed',
  'fetch_timeout',
  'download_too_large',
  'storage_unavailable',
  'timeout',
  'internal',
  /**
   * Its execution ended without the pipeline recording an outcome (a crash, a stop, a timeout); can be started again.
   */
  'interrupted',
] as const;
export type ImportErrorCode = (typeof IMPORT_ERROR_CODES)[number];
