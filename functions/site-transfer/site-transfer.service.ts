/**
 * Site export and import (beyond the spec, Admins only): the routes create a job item and start
 * its state machine (functions/pipeline/site-transfer.definition.ts); the work happens there.
 */
import type { Caller } from '../../shared/domain/caller.ts';
import { ConflictError, NotFoundError } from '../../shared/domain/errors.ts';
import { nowSeconds } from '../../shared/clock.ts';
import {
  cancelExportJob,
  cancelImportJob,
  failExport,
  failImport,
  getExport,
  getImport,
  insertExport,
  insertImport,
  markExportInterrupted,
  markImportInterrupted,
  nextExportId,
  nextImportId,
  restartImportJob,
  setExportExecution,
  startImportJob,
  type SiteExportRecord,
  type SiteImportRecord,
} from '../../shared/db/entities/site-transfer-job.ts';
import { deleteByPrefixes } from '../../shared/storage/objects.ts';
import { reconciledJob } from '../../shared/workflow/job-reconciliation.ts';
import { SITE_TRANSFER_PREFIX } from '../../shared/site-archive/keys.ts';
import { getUser } from '../../shared/db/entities/user.ts';
import { bucketOf, importFileKey } from '../../shared/site-archive/keys.ts';
import { dropScratch } from '../../shared/site-archive/import-scratch.ts';
import { objectSize, presignedUpload } from '../../shared/storage/objects.ts';
import { siteExportView, siteImportView } from '../../shared/views/site-transfer-views.ts';
import {
  importExecutionArn,
  startExportExecution,
  startSiteImportExecution,
  stopSiteJobExecution,
} from '../../shared/workflow/site-transfer-runs.ts';
import type { CreateExportInput, CreateImportInput } from './site-transfer.schemas.ts';

/** A presigned POST takes one request of at most 5 GiB (S3's limit for a single upload). */
const MAX_SITE_FILE_BYTES = 5 * 1024 ** 3;
const UPLOAD_WINDOW_SECONDS = 3600;
const SITE_FILE_TYPE = 'application/x-ndjson';

const FRESH_REPORT = {
  counts: {},
  objects: 0,
  unknown_types: [],
  broken_references: { items: [], total: 0 },
  collisions: { items: [], total: 0 },
  already_present: 0,
  chains: null,
  written: 0,
  refusal: null,
};

export async function createExport(caller: Caller, input: CreateExportInput) {
  const exportid = await nextExportId();
  const now = nowSeconds();
  const record = {
    exportid,
    status: 'running' as const,
    include_objects: input.include_objects ?? true,
    webhook_secrets: input.webhook_secrets_passphrase !== undefined,
    secrets_passphrase: input.webhook_secrets_passphrase ?? null,
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
  return siteExportView(await reconciledExport(await requireExport(exportid)), nowSeconds());
}

async function requireExport(exportid: number): Promise<SiteExportRecord> {
  const record = await getExport(exportid);
  if (!record) throw new NotFoundError(`Export ${exportid} does not exist`);
  return record;
}

async function requireImport(importid: number): Promise<SiteImportRecord> {
  const record = await getImport(importid);
  if (!record) throw new NotFoundError(`Import ${importid} does not exist`);
  return record;
}

/** A running export whose execution ended unrecorded (a kill -9, a stop from outside) fails as interrupted. */
async function reconciledExport(record: SiteExportRecord): Promise<SiteExportRecord> {
  if (record.status !== 'running' || !record.execution_arn) return record;
  const executionArn = record.execution_arn;
  return reconciledJob(record, {
    kind: 'site export',
    ids: { id: record.exportid },
    executionArn,
    startedAt: record.created_at,
    // A job's last step saves before its execution ends: SUCCEEDED while it still works lost that save.
    succeededIsLost: true,
    markInterrupted: async (reason, now) => {
      const error = `The export was interrupted: ${reason}; start a new export`;
      const marked = await markExportInterrupted(record.exportid, executionArn, error, now);
      return marked ? { ...record, status: 'failed', interrupted: true, error, completed_at: now } : undefined;
    },
    reread: () => requireExport(record.exportid),
    removeOutput: () => deleteByPrefixes(bucketOf('modules'), [exportPartsPrefix(record.exportid)]),
  });
}

/** A working import whose execution ended unrecorded fails as interrupted; POST …/start runs it again. */
async function reconciledImport(record: SiteImportRecord): Promise<SiteImportRecord> {
  const working = ['validating', 'writing', 'finishing'].includes(record.status);
  if (!working || !record.execution_arn) return record;
  const executionArn = record.execution_arn;
  return reconciledJob(record, {
    kind: 'site import',
    ids: { id: record.importid },
    executionArn,
    startedAt: record.started_at ?? record.created_at,
    succeededIsLost: true,
    markInterrupted: async (reason, now) => {
      const again = `POST /admin/imports/${record.importid}/start`;
      const error = `The import was interrupted: ${reason}; start it again (${again})`;
      const marked = await markImportInterrupted(record.importid, executionArn, error, now);
      return marked ? { ...record, status: 'failed', interrupted: true, error, completed_at: now } : undefined;
    },
    reread: () => requireImport(record.importid),
  });
}

const exportPartsPrefix = (exportid: number) => `${SITE_TRANSFER_PREFIX}exports/${exportid}/`;

/** Stops a running export and removes the parts it wrote; 409 once it has finished. */
export async function cancelExport(caller: Caller, exportid: number) {
  const record = await reconciledExport(await requireExport(exportid));
  if (!(await cancelExportJob(exportid, nowSeconds()))) {
    throw new ConflictError(`Export ${exportid} is ${record.status}; only a running export can be cancelled`);
  }
  if (record.execution_arn) await stopSiteJobExecution(record.execution_arn, `Cancelled by user ${caller.userid}`);
  await deleteByPrefixes(bucketOf('modules'), [exportPartsPrefix(exportid)]);
  return siteExportView(await requireExport(exportid), nowSeconds());
}

/**
 * Stops an import that has written nothing yet (awaiting its upload, or validating) and removes
 * its uploaded file: the site is as before. 409 once writing (it runs to its end) or finished.
 */
export async function cancelImport(caller: Caller, importid: number) {
  const record = await reconciledImport(await requireImport(importid));
  if (!(await cancelImportJob(importid, nowSeconds()))) {
    const why =
      record.status === 'writing' || record.status === 'finishing' ? ' (it is writing and runs to its end)' : '';
    throw new ConflictError(`Import ${importid} is ${record.status}; it cannot be cancelled${why}`);
  }
  if (record.execution_arn) await stopSiteJobExecution(record.execution_arn, `Cancelled by user ${caller.userid}`);
  await deleteByPrefixes(bucketOf('modules'), [`${SITE_TRANSFER_PREFIX}imports/${importid}/`]);
  return siteImportView(await requireImport(importid));
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
    allow_admin_grants: input.allow_admin_grants ?? false,
    secrets_passphrase: input.secrets_passphrase ?? null,
    percent: 0,
    key: importFileKey(importid),
    size: null,
    offset: 0,
    steps: 0,
    report: structuredClone(FRESH_REPORT),
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
  return siteImportView(await reconciledImport(await requireImport(importid)));
}

/** Starts the job once the file is uploaded, or again once interrupted: 409 before the upload or once started. */
export async function startImport(importid: number) {
  const record = await reconciledImport(await requireImport(importid));
  if (record.status === 'failed' && record.interrupted && record.execution_arn) return restartImport(record);
  if (record.status !== 'awaiting_upload') throw new ConflictError(`Import ${importid} has already started`);
  const size = await objectSize(bucketOf('modules'), record.key);
  if (size === undefined) throw new ConflictError(`The site file of import ${importid} has not been uploaded yet`);
  // The job item moves first (the condition makes a second start a 409); the execution name is fixed per import.
  if (!(await startImportJob(importid, size, importExecutionArn(importid), nowSeconds()))) {
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

/** An interrupted import's next attempt: a new execution reads the file again from its start. */
async function restartImport(record: SiteImportRecord) {
  const attempt = (record.attempt ?? 1) + 1;
  const executionArn = importExecutionArn(record.importid, attempt);
  const report = { ...record.report, ...FRESH_REPORT };
  const restarted = await restartImportJob(
    record.importid,
    record.execution_arn!,
    { attempt, execution_arn: executionArn, report },
    nowSeconds(),
  );
  if (!restarted) throw new ConflictError(`Import ${record.importid} has already started again`);
  await dropScratch(record.importid);
  try {
    await startSiteImportExecution(record.importid, attempt);
  } catch (error) {
    await failImport(record.importid, 'The import job could not be started', nowSeconds());
    throw error;
  }
  return siteImportView(await requireImport(record.importid));
}
