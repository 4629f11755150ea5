/**
 * Module import: pk IMPORT#<importid> / sk IMPORT. One import is one version of a module's
 * package; a module's imports are gsi1 MODULE#<moduleid>#IMPORTS sorted by padded
 * provider_version_number (newest first when read descending).
 *
 * status: created (no package yet) -> running (a Step Functions execution works on it) ->
 * complete | failed | cancelled. Every move is conditional on the status it leaves, so a
 * cancelled import is never overwritten by a task that was still running.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ImportErrorCode, ManifestFacts } from '../../domain/module-package.ts';
import { db, tableName } from '../client.ts';
import { padId, withoutKeys } from '../keys.ts';
import { queryPage } from '../paging.ts';
import { INDEXES } from '../table.ts';
import { transactWrite, TransactionConditionFailed } from '../transactions.ts';
import { outboxPut } from './outbox.ts';
import { domainEvent } from '../../domain/events/catalogue.ts';

export type ImportStatus = 'created' | 'running' | 'complete' | 'failed' | 'cancelled';
export type ImportStage = 'awaiting_package' | 'awaiting_upload' | 'downloading' | 'validating' | 'extracting' | 'recording' | 'done';

export interface ModuleImportRecord {
  importid: number;
  moduleid: number;
  provider_version_number: number;
  status: ImportStatus;
  stage: ImportStage;
  percent: number;
  source: 'upload' | 'url' | null;
  url: string | null;
  execution_arn: string | null;
  /** Bytes of the package zip. */
  size: number | null;
  manifest: ManifestFacts | null;
  /** The package was zipped one folder too deep and was extracted from that folder. */
  repaired: boolean;
  file_count: number | null;
  extracted_bytes: number | null;
  error: { code: ImportErrorCode | 'cancelled'; message: string } | null;
  created_by: number;
  created_date: number;
  modified_date: number;
  completed_date: number | null;
}

export function importKey(importid: number) {
  return { pk: `IMPORT#${importid}`, sk: 'IMPORT' };
}

const fromItem = (item: Record<string, unknown>) => withoutKeys(item) as unknown as ModuleImportRecord;

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
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

export async function getImport(importid: number): Promise<ModuleImportRecord | undefined> {
  const result = await db().send(new GetCommand({ TableName: tableName(), Key: importKey(importid), ConsistentRead: true }));
  return result.Item ? fromItem(result.Item) : undefined;
}

/** A module's imports, newest provider_version_number first. */
export async function listModuleImports(moduleid: number, page: { limit: number; offset: number }): Promise<ModuleImportRecord[]> {
  return (await queryPage({ index: INDEXES.gsi1, partition: `MODULE#${moduleid}#IMPORTS`, descending: true }, page)).map(fromItem);
}

/**
 * Sets attributes when the import is in one of `from`. Returns the updated record, or
 * undefined when the status had moved on (someone else won).
 */
async function transition(
  importid: number,
  from: ImportStatus[],
  changes: Partial<ModuleImportRecord>,
  ends?: 'module_import.finished' | 'module_import.failed',
): Promise<ModuleImportRecord | undefined> {
  if (ends) return endWithEvent(importid, from, changes, ends);
  const entries = Object.entries(changes);
  const names: Record<string, string> = { '#status': 'status' };
  const values: Record<string, unknown> = {};
  const sets = entries.map(([name, value], i) => {
    names[`#a${i}`] = name;
    values[`:v${i}`] = value;
    return `#a${i} = :v${i}`;
  });
  from.forEach((status, i) => (values[`:from${i}`] = status));
  try {
    const result = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: importKey(importid),
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: `#status IN (${from.map((_, i) => `:from${i}`).join(', ')})`,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
    );
    return fromItem(result.Attributes!);
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return undefined;
    throw error;
  }
}

/** An import's end and its event (module_import.finished / failed) in one transaction. */
async function endWithEvent(importid: number, from: ImportStatus[], changes: Partial<ModuleImportRecord>, name: 'module_import.finished' | 'module_import.failed') {
  const current = await getImport(importid);
  if (!current || !from.includes(current.status)) return undefined;
  const after: ModuleImportRecord = { ...current, ...changes };
  const names: Record<string, string> = { '#status': 'status' };
  const values: Record<string, unknown> = {};
  const sets = Object.entries(changes).map(([field, value], i) => {
    names[`#a${i}`] = field;
    values[`:v${i}`] = value;
    return `#a${i} = :v${i}`;
  });
  from.forEach((status, i) => (values[`:from${i}`] = status));
  const ref = { importid, moduleid: current.moduleid, provider_version_number: current.provider_version_number, userid: current.created_by };
  const event =
    name === 'module_import.finished'
      ? domainEvent(name, `MODULE#${current.moduleid}`, ref)
      : domainEvent(name, `MODULE#${current.moduleid}`, { ...ref, error: after.error?.message ?? null, code: after.error?.code ?? null });
  try {
    await transactWrite([
      {
        label: 'import',
        item: {
          Update: {
            TableName: tableName(),
            Key: importKey(importid),
            UpdateExpression: `SET ${sets.join(', ')}`,
            ConditionExpression: `#status IN (${from.map((_, i) => `:from${i}`).join(', ')})`,
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: values,
          },
        },
      },
      outboxPut(event),
    ]);
  } catch (error) {
    if (error instanceof TransactionConditionFailed && error.failedLabels.includes('import')) return undefined;
    throw error;
  }
  return after;
}

export function markRunning(importid: number, changes: Pick<ModuleImportRecord, 'source' | 'url' | 'execution_arn' | 'stage'>, now: number) {
  return transition(importid, ['created'], { ...changes, status: 'running', percent: 0, modified_date: now });
}

/** Progress of a running import; false when it is no longer running (e.g. cancelled). */
export async function setProgress(importid: number, stage: ImportStage, percent: number, now: number, extra: Partial<ModuleImportRecord> = {}): Promise<boolean> {
  return (await transition(importid, ['running'], { ...extra, stage, percent: Math.round(percent), modified_date: now })) !== undefined;
}

export function recordVersion(importid: number, facts: Pick<ModuleImportRecord, 'manifest' | 'repaired' | 'file_count' | 'extracted_bytes' | 'size'>, now: number) {
  return transition(importid, ['running'], { ...facts, status: 'complete', stage: 'done', percent: 100, modified_date: now, completed_date: now }, 'module_import.finished');
}

export function markFailed(importid: number, error: NonNullable<ModuleImportRecord['error']>, now: number) {
  return transition(importid, ['created', 'running'], { status: 'failed', error, modified_date: now, completed_date: now }, 'module_import.failed');
}

export function markCancelled(importid: number, now: number) {
  return transition(importid, ['created', 'running'], {
    status: 'cancelled',
    error: { code: 'cancelled', message: 'The import was cancelled' },
    modified_date: now,
    completed_date: now,
  });
}
