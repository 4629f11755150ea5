/**
 * The states of the two import jobs (site files, training module packages), declared once for
 * their entities' schemas and their views' answer schemas.
 */

export const SITE_IMPORT_STATUSES = [
  'awaiting_upload',
  'validating',
  'writing',
  'finishing',
  'validated',
  'complete',
  'failed',
  'cancelled',
] as const;

export const MODULE_IMPORT_STATUSES = ['created', 'running', 'complete', 'failed', 'cancelled'] as const;

export const MODULE_IMPORT_STAGES = [
  'awaiting_package',
  'awaiting_upload',
  'downloading',
  'validating',
  'extracting',
  'recording',
  'done',
] as const;
