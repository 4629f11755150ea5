/**
 * Module import: pk IMPORT#<importid> / sk IMPORT. One import is one version of a module's
 * package; a module's imports are gsi1 MODULE#<moduleid>#IMPORTS sorted by padded
 * provider_version_number (newest first when read descending).
 *
 * status: created (no package yet) -> running (a Step Functions execution works on it) ->
 * complete | failed | cancelled. Every move is conditional on the status it leaves, so a
 * cancelled import is never overwritten by a task that was still running. An import failed as
 * `interrupted` (its execution ended without the pipeline recording it) moves back to running
 * with a new execution (`attempt` + 1); both moves are conditional on the execution_arn they
 * replace, so a stale reader never fails or restarts a newer execution.
 */
import { isConditionFailed } from '../retry.ts';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { IMPORT_ERROR_CODES } from '../../domain/module-import-errors.ts';
import { db, tableName } from '../client.ts';
import { getItem } from '../items.ts';
import { padId } from '../keys.ts';
import { recordsOf, type StoredRecord } from '../stored-item.ts';
import { batchGetInOrder } from '../batch.ts';
import { queryPage } from '../paging.ts';
import { INDEXES } from '../table.ts';
import { transactWrite, TransactionConditionFailed } from '../transactions.ts';
import { outboxPut } from './outbox.ts';
import { domainEvent } from '../../domain/events/catalogue.ts';
import { scormStructureSchema } from '../../domain/scorm-structure.ts';
import { cmi5CourseSchema } from '../../domain/xapi/cmi5-structure.ts';
import * as z from 'zod/mini';
import { serviceAuthorSchema } from './api-token.ts';
import { MODULE_IMPORT_STAGES, MODULE_IMPORT_STATUSES } from '../../domain/import-statuses.ts';

export type ImportStatus = (typeof MODULE_IMPORT_STATUSES)[number];
export type ImportStage = (typeof MODULE_IMPORT_STAGES)[number];

/** A ModuleImport as insertImport puts it and the status moves SET (any record field). */
export const moduleImportItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.literal('IMPORT'),
  entity: z.literal('ModuleImport'),
  gsi1pk: z.string(),
  gsi1sk: z.string(),
  importid: z.int().check(z.positive()),
  moduleid: z.int().check(z.positive()),
  provider_version_number: z.int(),
  status: z.enum(MODULE_IMPORT_STATUSES),
  stage: z.enum(MODULE_IMPORT_STAGES),
  percent: z.number(),
  source: z.nullable(z.enum(['upload', 'url'])),
  url: z.nullable(z.string()),
  execution_arn: z.nullable(z.string()),
  /** Executions started for this import (1 + restarts after an interruption); absent on older records: 1. */
  attempt: z.optional(z.int()),
  /** Bytes of the package zip. */
  size: z.nullable(z.number()),
  manifest: z.nullable(
    z.object({
      standard: z.enum(['scorm12', 'scorm2004', 'cmi5', 'tincan']),
      identifier: z.nullable(z.string()),
      title: z.string(),
      launch: z.string(),
      schema_version: z.nullable(z.string()),
      scorm: z.optional(scormStructureSchema),
      cmi5: z.optional(cmi5CourseSchema),
    }),
  ),
  /** The package was zipped one folder too deep and was extracted from that folder. */
  repaired: z.boolean(),
  file_count: z.nullable(z.int()),
  extracted_bytes: z.nullable(z.number()),
  error: z.nullable(z.object({ code: z.enum([...IMPORT_ERROR_CODES, 'cancelled']), message: z.string() })),
  /** null for a site API token, named by created_by_token (decision 260); 0: a token's, before it. */
  created_by: z.nullable(z.int()),
  created_by_token: z.optional(serviceAuthorSchema),
  created_date: z.number(),
  modified_date: z.number(),
  completed_date: z.nullable(z.number()),
});

export type ModuleImportRecord = StoredRecord<typeof moduleImportItemSchema>;

export function importKey(importid: number) {
  return { pk: `IMPORT#${importid}`, sk: 'IMPORT' } as const;
}

const fromItem = recordsOf(moduleImportItemSchema);

export async function insertImport(record: ModuleImportRecord): Promise<void> {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...importKey(record.importid),
        entity: 'ModuleImport',
        [INDEXES.gsi1.pk]: `MODULE#${record.moduleid}#IMPORTS`,
        [INDEXES.gsi1.sk]: `${padId(record.provider_version_number)}#${padId(record.importid)}`,
        ...record,
      } satisfies z.input<typeof moduleImportItemSchema>,
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

export async function getImport(importid: number): Promise<ModuleImportRecord | undefined> {
  const item = await getItem(importKey(importid), { consistent: true });
  return item ? fromItem(item) : undefined;
}

/** Imports in the order of the ids asked for; unknown ids are left out. */
export async function getImports(importids: number[]): Promise<ModuleImportRecord[]> {
  return (await batchGetInOrder(importids.map(importKey))).map(fromItem);
}

/** A module's imports, newest provider_version_number first. */
export async function listModuleImports(
  moduleid: number,
  page: { limit: number; offset: number },
): Promise<ModuleImportRecord[]> {
  return (
    await queryPage({ index: INDEXES.gsi1, partition: `MODULE#${moduleid}#IMPORTS`, descending: true }, page)
  ).map(fromItem);
}

/**
 * Only when the execution judged is still the import's own (a reconciliation; a restart also checks the error code).
 */
type ExecutionGuard = { executionArn: string; errorCode?: string };
type EndEvent = 'module_import.finished' | 'module_import.failed';

/** The SET of `changes` on condition of the status being one of `from` (and the execution guard). */
function transitionUpdate(
  importid: number,
  from: ImportStatus[],
  changes: Partial<ModuleImportRecord>,
  guard?: ExecutionGuard,
) {
  const names: Record<string, string> = { '#status': 'status' };
  const values: Record<string, unknown> = {};
  const sets = Object.entries(changes).map(([name, value], i) => {
    names[`#a${i}`] = name;
    values[`:v${i}`] = value;
    return `#a${i} = :v${i}`;
  });
  for (const [i, status] of from.entries()) values[`:from${i}`] = status;
  let condition = `#status IN (${from.map((_, i) => `:from${i}`).join(', ')})`;
  if (guard) {
    names['#executionArn'] = 'execution_arn';
    values[':executionArn'] = guard.executionArn;
    condition += ' AND #executionArn = :executionArn';
    if (guard.errorCode) {
      names['#error'] = 'error';
      names['#code'] = 'code';
      values[':errorCode'] = guard.errorCode;
      condition += ' AND #error.#code = :errorCode';
    }
  }
  return {
    TableName: tableName(),
    Key: importKey(importid),
    UpdateExpression: `SET ${sets.join(', ')}`,
    ConditionExpression: condition,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
}

/**
 * Sets attributes when the import is in one of `from`. Returns the updated record, or
 * undefined when the status had moved on (someone else won). An import's end writes its
 * event (module_import.finished / failed) in the same transaction.
 */
async function transition(
  importid: number,
  from: ImportStatus[],
  changes: Partial<ModuleImportRecord>,
  guard?: ExecutionGuard,
  ends?: EndEvent,
): Promise<ModuleImportRecord | undefined> {
  if (ends) return endWithEvent(importid, from, changes, guard, ends);
  try {
    const result = await db().send(
      new UpdateCommand({ ...transitionUpdate(importid, from, changes, guard), ReturnValues: 'ALL_NEW' }),
    );
    return fromItem(result.Attributes!);
  } catch (error) {
    if (isConditionFailed(error)) return undefined;
    throw error;
  }
}

async function endWithEvent(
  importid: number,
  from: ImportStatus[],
  changes: Partial<ModuleImportRecord>,
  guard: ExecutionGuard | undefined,
  name: EndEvent,
) {
  const current = await getImport(importid);
  if (!current || !from.includes(current.status)) return undefined;
  const after: ModuleImportRecord = { ...current, ...changes };
  const ref = {
    importid,
    moduleid: current.moduleid,
    provider_version_number: current.provider_version_number,
    // Who started it; null for a site API token (decision 260), also where one stored 0 before.
    userid: current.created_by || null,
  };
  const event =
    name === 'module_import.finished'
      ? domainEvent(name, `MODULE#${current.moduleid}`, ref)
      : domainEvent(name, `MODULE#${current.moduleid}`, {
          ...ref,
          error: after.error?.message ?? null,
          code: after.error?.code ?? null,
        });
  try {
    await transactWrite([
      { label: 'import', item: { Update: transitionUpdate(importid, from, changes, guard) } },
      outboxPut(event),
    ]);
  } catch (error) {
    if (error instanceof TransactionConditionFailed && error.failedLabels.includes('import')) return undefined;
    throw error;
  }
  return after;
}

type StartChanges = Pick<ModuleImportRecord, 'source' | 'url' | 'execution_arn' | 'stage'>;

export function markRunning(importid: number, changes: StartChanges, now: number) {
  return transition(importid, ['created'], {
    ...changes,
    attempt: 1,
    status: 'running',
    percent: 0,
    modified_date: now,
  });
}

/** An import failed as `interrupted` runs again under a new execution; undefined if it moved on. */
export function markRestarted(
  importid: number,
  previousExecutionArn: string,
  changes: StartChanges & { attempt: number },
  now: number,
) {
  return transition(
    importid,
    ['failed'],
    { ...changes, status: 'running', percent: 0, error: null, completed_date: null, modified_date: now },
    { executionArn: previousExecutionArn, errorCode: 'interrupted' },
  );
}

/** A running import whose execution `executionArn` ended without recording it; undefined if it moved on. */
export function markInterrupted(importid: number, executionArn: string, message: string, now: number) {
  return transition(
    importid,
    ['running'],
    { status: 'failed', error: { code: 'interrupted', message }, modified_date: now, completed_date: now },
    { executionArn },
    'module_import.failed',
  );
}

/** Progress of a running import; false when it is no longer running (e.g. cancelled). */
export async function setProgress(
  importid: number,
  stage: ImportStage,
  percent: number,
  now: number,
  extra: Partial<ModuleImportRecord> = {},
): Promise<boolean> {
  return (
    (await transition(importid, ['running'], { ...extra, stage, percent: Math.round(percent), modified_date: now })) !==
    undefined
  );
}

export function recordVersion(
  importid: number,
  facts: Pick<ModuleImportRecord, 'manifest' | 'repaired' | 'file_count' | 'extracted_bytes' | 'size'>,
  now: number,
) {
  return transition(
    importid,
    ['running'],
    { ...facts, status: 'complete', stage: 'done', percent: 100, modified_date: now, completed_date: now },
    undefined,
    'module_import.finished',
  );
}

export function markFailed(importid: number, error: NonNullable<ModuleImportRecord['error']>, now: number) {
  return transition(
    importid,
    ['created', 'running'],
    { status: 'failed', error, modified_date: now, completed_date: now },
    undefined,
    'module_import.failed',
  );
}

export function markCancelled(importid: number, now: number) {
  return transition(importid, ['created', 'running'], {
    status: 'cancelled',
    error: { code: 'cancelled', message: 'The import was cancelled' },
    modified_date: now,
    completed_date: now,
  });
}
