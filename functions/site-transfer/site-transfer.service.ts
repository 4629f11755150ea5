/**
 * Site export and import (beyond the spec, Admins only): the routes create a job item and start
 * its state machine (functions/pipeline/site-transfer.definition.ts); the work happens there.
 */
import type { Caller } from '../../shared/domain/caller.ts';
import { ConflictError, NotFoundError } from '../../shared/domain/errors.ts';
import { nowSeconds } from '../../shared/clock.ts';
import {
  failExport,
  failImport,
  getExport,
  getImport,
  insertExport,
  insertImport,
  nextExportId,
  nextImportId,
  setExportExecution,
  startImportJob,
} from '../../shared/db/entities/site-transfer-job.ts';
import { getUser } from '../../shared/db/entities/user.ts';
import { bucketOf, importFileKey } from '../../shared/site-archive/keys.ts';
import { objectSize, presignedUpload } from '../../shared/storage/objects.ts';
import { siteExportView, siteImportView } from '../../shared/views/site-transfer-views.ts';
import {
  importExecutionArn,
  startExportExecution,
  startSiteImportExecution,
} from '../../shared/workflow/site-transfer-runs.ts';
import type { CreateExportInput, CreateImportInput } from './site-transfer.schemas.ts';

/** A presigned POST takes one request of at most 5 GiB (S3's limit for a single upload). */
const MAX_SITE_FILE_BYTES = 5 * 1024 ** 3;
const UPLOAD_WINDOW_SECONDS = 3600;
const SITE_FILE_TYPE = 'application/x-ndjson';

export async function createExport(caller: Caller, input: CreateExportInput) {
  const exportid = await nextExportId();
  const now = nowSeconds();
  const record = {
    exportid,
    status: 'running' as const,
    include_objects: input.include_objects ?? true,
    percent: 0,
    cursor: { phase: 'table' as const, segment: 0, last_key: null, bucket: 'media' as const, after_key: null },
    parts: [],
    records: 0,
    counts: {},
    objects: 0,
    execution_arn: null,
    error: null,
    created_by: caller.userid,
    created_at: now,
    completed_at: null,
  };
  await insertExport(record);
  try {
    await setExportExecution(exportid, await startExportExecution(exportid));
  } catch (error) {
    // No execution: the export would otherwise stay running forever.
    await failExport(exportid, 'The export job could not be started', nowSeconds());
    throw error;
  }
  return siteExportView(record, now);
}

export async function exportStatus(exportid: number) {
  const record = await getExport(exportid);
  if (!record) throw new NotFoundError(`Export ${exportid} does not exist`);
  return siteExportView(record, nowSeconds());
}

export async function createImport(caller: Caller, input: CreateImportInput) {
  const operator = await getUser(caller.userid);
  if (!operator) throw new NotFoundError('Your account does not exist');
  const importid = await nextImportId();
  const record = {
    importid,
    status: 'awaiting_upload' as const,
    mode: input.mode ?? ('empty' as const),
    dry_run: input.dry_run ?? false,
    mail_password_resets: input.mail_password_resets ?? false,
    percent: 0,
    key: importFileKey(importid),
    size: null,
    offset: 0,
    steps: 0,
    report: {
      counts: {},
      objects: 0,
      unknown_types: [],
      broken_references: { items: [], total: 0 },
      collisions: { items: [], total: 0 },
      already_present: 0,
      chains: null,
      written: 0,
      refusal: null,
    },
    pass: {},
    operator: { userid: operator.userid, email: operator.email },
    execution_arn: null,
    error: null,
    created_by: caller.userid,
    created_at: nowSeconds(),
    completed_at: null,
  };
  await insertImport(record);
  const upload = await presignedUpload({
    bucket: bucketOf('modules'),
    key: record.key,
    contentType: SITE_FILE_TYPE,
    maxBytes: MAX_SITE_FILE_BYTES,
    expiresInSeconds: UPLOAD_WINDOW_SECONDS,
  });
  return { ...siteImportView(record), upload };
}

export async function importStatus(importid: number) {
  const record = await getImport(importid);
  if (!record) throw new NotFoundError(`Import ${importid} does not exist`);
  return siteImportView(record);
}

/** Starts the job once the file is uploaded: 409 before the upload or once started. */
export async function startImport(importid: number) {
  const record = await getImport(importid);
  if (!record) throw new NotFoundError(`Import ${importid} does not exist`);
  if (record.status !== 'awaiting_upload') throw new ConflictError(`Import ${importid} has already started`);
  const size = await objectSize(bucketOf('modules'), record.key);
  if (size === undefined) throw new ConflictError(`The site file of import ${importid} has not been uploaded yet`);
  // The job item moves first (the condition makes a second start a 409); the execution name is fixed per import.
  if (!(await startImportJob(importid, size, importExecutionArn(importid)))) {
    throw new ConflictError(`Import ${importid} has already started`);
  }
  try {
    await startSiteImportExecution(importid);
  } catch (error) {
    await failImport(importid, 'The import job could not be started', nowSeconds());
    throw error;
  }
  return siteImportView({ ...record, status: 'validating', size, execution_arn: importExecutionArn(importid) });
}
