/**
 * External training module use cases. An import is created first (its module is new, or an
 * existing one gets a new version number), then started by upload (a presigned POST target)
 * or by URL (fetched server-side); either way one execution of the import state machine
 * (functions/pipeline/module-import.definition.ts) validates, extracts and records it.
 *
 * "Manage external training modules" is held by Admins and by users whose account carries the
 * flag MANAGE_MODULES_FLAG (set by an Admin with PATCH /users/{userid} `flags`).
 */
import { config } from '../../shared/config.ts';
import {
  ConflictError,
  ForbiddenError,
  NotFoundError,
  ServiceUnavailableError,
  ValidationError,
} from '../../shared/domain/errors.ts';
import { actorFields, type Caller } from '../../shared/domain/caller.ts';
import { nextId } from '../../shared/db/counters.ts';
import { nowSeconds } from '../../shared/clock.ts';
import { TransactionConditionFailed } from '../../shared/db/transactions.ts';
import { listModuleUsage } from '../../shared/db/entities/module-usage.ts';
import {
  getImport,
  getImports,
  insertImport,
  listModuleImports,
  markCancelled,
  markInterrupted,
  markRestarted,
  markRunning,
  type ModuleImportRecord,
} from '../../shared/db/entities/module-import.ts';
import {
  getModule,
  getModules,
  insertModule,
  listCurrentModules,
  listDraftModules,
  nextVersionNumber,
  pointAtImport,
  type ImportPointer,
} from '../../shared/db/entities/training-module.ts';
import { FetchRefusedError, vetUrl } from '../../shared/net/safe-fetch.ts';
import { contentPrefix, modulesBucket, packageKey } from '../../shared/storage/module-objects.ts';
import { deleteByPrefixes, presignedUpload } from '../../shared/storage/objects.ts';
import { log } from '../../shared/observability/logger.ts';
import { reconciledJob } from '../../shared/workflow/job-reconciliation.ts';
import {
  importExecutionArn,
  startImportExecution,
  stopImportExecution,
} from '../../shared/workflow/module-import-runs.ts';
import { importView, moduleView, playerView, progressView } from '../../shared/views/module-views.ts';
import type { Page } from '../../shared/db/paging.ts';
import type { CommitInput, CreateImportInput, DraftsInput, StartByUrlInput } from './modules.schemas.ts';
import { attempts, launchState } from '../../shared/training/scorm-attempts.ts';
import {
  canManageModules,
  commitModuleAttempt,
  currentImport,
  MANAGE_MODULES_FLAG,
  requireAssigned,
  requireModule,
} from '../../shared/training/module-player.ts';

export { canManageModules, MANAGE_MODULES_FLAG };
const UPLOAD_WINDOW_SECONDS = 900;

async function requireManager(caller: Caller): Promise<void> {
  if (!(await canManageModules(caller)))
    throw new ForbiddenError('This needs the permission to manage external training modules');
}

async function requireImport(importid: number): Promise<ModuleImportRecord> {
  const record = await getImport(importid);
  if (!record) throw new NotFoundError(`No module import with id ${importid}`);
  return record;
}

async function importsById(importids: Array<number | null>): Promise<Map<number, ModuleImportRecord>> {
  const ids = [...new Set(importids.filter((id): id is number => id !== null))];
  const records = await getImports(ids);
  return new Map(records.map((record) => [record.importid, record]));
}

/** POST /external_training_modules/imports: a new version of a module (a new module unless moduleid is given). */
export async function createImport(caller: Caller, input: CreateImportInput) {
  await requireManager(caller);
  const now = nowSeconds();
  let moduleid = input.moduleid;
  if (moduleid === undefined) {
    moduleid = await nextId('module');
    await insertModule({
      moduleid,
      title: input.title?.trim() ?? '',
      current_importid: null,
      draft_importid: null,
      version_count: 0,
      ...actorFields('created_by', caller),
      created_date: now,
      modified_date: now,
    });
  } else if (!(await getModule(moduleid))) {
    throw ValidationError.field('moduleid', 'not_found', `No external training module with id ${moduleid}`);
  }
  const record: ModuleImportRecord = {
    importid: await nextId('module-import'),
    moduleid,
    provider_version_number: await nextVersionNumber(moduleid, now),
    status: 'created',
    stage: 'awaiting_package',
    percent: 0,
    source: null,
    url: null,
    execution_arn: null,
    size: null,
    manifest: null,
    repaired: false,
    file_count: null,
    extracted_bytes: null,
    error: null,
    ...actorFields('created_by', caller),
    created_date: now,
    modified_date: now,
    completed_date: null,
  };
  await insertImport(record);
  return importView(record);
}

function isRestartable(record: ModuleImportRecord): boolean {
  return record.status === 'failed' && record.error?.code === 'interrupted' && record.execution_arn !== null;
}

/**
 * A running import whose execution ended without the pipeline recording it (crash of the
 * local runner, a stop from outside, a timeout, a failing failure path) is failed as
 * `interrupted` and its partial output removed. Read-time reconciliation, locally and on AWS;
 * the write is conditional on the execution it judged, so a newer attempt is never touched.
 */
async function reconciled(record: ModuleImportRecord): Promise<ModuleImportRecord> {
  if (record.status !== 'running' || !record.execution_arn) return record;
  const executionArn = record.execution_arn;
  return reconciledJob(record, {
    kind: 'module import',
    ids: { importid: record.importid },
    executionArn,
    // Grace counted from the last write (markRunning is written before StartExecution).
    startedAt: record.modified_date,
    succeededIsLost: false,
    markInterrupted: (reason, now) =>
      markInterrupted(record.importid, executionArn, `The import was interrupted: ${reason}; start it again`, now),
    reread: () => requireImport(record.importid),
    removeOutput: () => deleteByPrefixes(modulesBucket(), [contentPrefix(record.importid)]),
  });
}

/**
 * Moves a created import (or one failed as interrupted) to running and starts its execution;
 * 409 if another start won.
 */
async function start(
  record: ModuleImportRecord,
  source: 'upload' | 'url',
  url: string | null,
): Promise<ModuleImportRecord> {
  const attempt = record.status === 'created' ? 1 : (record.attempt ?? 1) + 1;
  const changes = {
    source,
    url,
    execution_arn: importExecutionArn(record.importid, attempt),
    stage: source === 'url' ? ('downloading' as const) : ('awaiting_upload' as const),
  };
  const running =
    record.status === 'created'
      ? await markRunning(record.importid, changes, nowSeconds())
      : await markRestarted(record.importid, record.execution_arn!, { ...changes, attempt }, nowSeconds());
  if (!running) {
    const current = await requireImport(record.importid);
    throw new ConflictError(
      `Import ${record.importid} was already started (status ${current.status})`,
      importView(current),
    );
  }
  try {
    if (attempt > 1) {
      // What the interrupted attempt left: an old package would pass AwaitUpload before the new upload.
      await deleteByPrefixes(modulesBucket(), [packageKey(record.importid), contentPrefix(record.importid)]);
    }
    await startImportExecution(
      {
        importid: record.importid,
        moduleid: record.moduleid,
        bucket: modulesBucket(),
        key: packageKey(record.importid),
        source,
        ...(url ? { url } : {}),
      },
      attempt,
    );
  } catch (error) {
    // No execution runs it: interrupted, so the same import can be started again.
    log().error('module import: could not start the execution', {
      importid: record.importid,
      error: (error as Error).message,
    });
    await markInterrupted(
      record.importid,
      changes.execution_arn,
      'The import could not be started; start it again',
      nowSeconds(),
    );
    throw new ServiceUnavailableError(`Import ${record.importid} could not be started ; start it again`);
  }
  return running;
}

/** A created import, or one failed as interrupted (started again); 409 otherwise. */
async function startable(caller: Caller, importid: number): Promise<ModuleImportRecord> {
  await requireManager(caller);
  const record = await reconciled(await requireImport(importid));
  if (record.status !== 'created' && !isRestartable(record)) {
    throw new ConflictError(`Import ${importid} was already started (status ${record.status})`, importView(record));
  }
  return record;
}

/** start/byUpload: a presigned POST target for the package; the execution waits for it. */
export async function startByUpload(caller: Caller, importid: number) {
  const record = await startable(caller, importid);
  const upload = await presignedUpload({
    bucket: modulesBucket(),
    key: packageKey(importid),
    contentType: 'application/zip',
    maxBytes: config().STEPWISE_MODULE_MAX_PACKAGE_BYTES,
    expiresInSeconds: UPLOAD_WINDOW_SECONDS,
  });
  const running = await start(record, 'upload', null);
  return { ...importView(running), upload };
}

/** start/byUrl: the URL is checked now (SSRF rules) and again, on every hop, when it is fetched. */
export async function startByUrl(caller: Caller, importid: number, input: StartByUrlInput) {
  const record = await startable(caller, importid);
  let url: URL;
  try {
    url = new URL(input.url);
  } catch {
    throw ValidationError.field('url', 'invalid_url', 'url must be an absolute http(s) URL');
  }
  try {
    await vetUrl(url, { allowHosts: config().STEPWISE_FETCH_ALLOW_HOSTS });
  } catch (error) {
    if (error instanceof FetchRefusedError) throw ValidationError.field('url', error.code, error.message);
    throw error;
  }
  return importView(await start(record, 'url', url.toString()));
}

export async function cancel(caller: Caller, importid: number) {
  await requireManager(caller);
  const record = await requireImport(importid);
  const cancelled = await markCancelled(importid, nowSeconds());
  if (!cancelled)
    throw new ConflictError(
      `Import ${importid} is ${record.status}; only a running import can be cancelled`,
      importView((await getImport(importid))!),
    );
  if (cancelled.execution_arn) await stopImportExecution(cancelled.execution_arn, `Cancelled by user ${caller.userid}`);
  // A stopped execution never reaches its failure path, which would remove extracted content.
  await deleteByPrefixes(modulesBucket(), [contentPrefix(importid)]);
  return importView(cancelled);
}

/** For polling a running import; an execution that ended without its tasks saying so is reconciled here. */
export async function progress(caller: Caller, importid: number) {
  await requireManager(caller);
  return progressView(await reconciled(await requireImport(importid)));
}

export async function preview(caller: Caller, importid: number) {
  await requireManager(caller);
  const record = await requireImport(importid);
  if (record.status !== 'complete')
    throw ValidationError.field(
      'importid',
      'not_complete',
      `Import ${importid} is ${record.status}; only a complete import can be previewed`,
    );
  return playerView(record);
}

/** The player: only for users assigned to a course that contains the module; with the caller's attempt (SCORM). */
export async function player(caller: Caller, moduleid: number) {
  const record = await currentImport(await requireAssigned(caller, moduleid));
  return playerView(record, await launchState(caller, record));
}

/** A commit of the runtime (decision 271): assigned learners only, to their own attempts. */
export async function commitAttempt(caller: Caller, moduleid: number, attempt: number, input: CommitInput) {
  return commitModuleAttempt(caller, moduleid, attempt, input);
}

export async function moduleAttempts(caller: Caller, moduleid: number, all: boolean, page: Page) {
  await requireModule(moduleid);
  return attempts(caller, moduleid, all, all && (await canManageModules(caller)), page);
}

export async function imports(moduleid: number, page: Page) {
  await requireModule(moduleid);
  return { imports: (await listModuleImports(moduleid, page)).map(importView) };
}

export async function setPointer(caller: Caller, moduleid: number, importid: number, pointer: ImportPointer) {
  await requireModule(moduleid);
  await requireManager(caller);
  try {
    await pointAtImport(moduleid, importid, pointer, nowSeconds());
  } catch (error) {
    if (!(error instanceof TransactionConditionFailed)) throw error;
    if (error.failedLabels.includes('module'))
      throw new NotFoundError(`No external training module with id ${moduleid}`);
    const old = error.oldItems.import as Partial<ModuleImportRecord> | undefined;
    if (!old) throw ValidationError.field('importid', 'not_found', `No module import with id ${importid}`);
    if (old.moduleid !== moduleid) {
      throw ValidationError.field(
        'importid',
        'wrong_module',
        `Import ${importid} belongs to module ${old.moduleid}, not ${moduleid}`,
      );
    }
    throw ValidationError.field(
      'importid',
      'not_complete',
      `Import ${importid} is ${old.status}; only a complete import can be made ${pointer}`,
    );
  }
  const module = await requireModule(moduleid);
  return moduleView(module, await importsById([module.current_importid, module.draft_importid]));
}

export async function currentModules(page: Page) {
  const modules = await listCurrentModules(page);
  const records = await importsById(modules.map((module) => module.current_importid));
  return { modules: modules.map((module) => moduleView(module, records)) };
}

/** POST drafts: the draft data of the modules asked for (`ids`), or of every module with a draft. */
export async function drafts(input: DraftsInput, page: Page) {
  const modules = input.ids
    ? (await getModules([...new Set(input.ids)])).filter((module) => module.draft_importid !== null)
    : await listDraftModules(page);
  const records = await importsById(modules.map((module) => module.draft_importid));
  return { drafts: modules.map((module) => moduleView(module, records)) };
}

export async function usage(moduleid: number, page: Page) {
  await requireModule(moduleid);
  return {
    usage: (await listModuleUsage(moduleid, page)).map((course) => ({
      doctype: 'course',
      wikiid: course.wikiid,
      title: course.title,
    })),
  };
}
