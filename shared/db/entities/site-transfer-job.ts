/**
 * Site export and import jobs: pk SITE_EXPORT#<exportid> / sk JOB and pk SITE_IMPORT#<importid> /
 * sk JOB. A job's Step Functions execution works in steps; each step saves where it stopped (the
 * cursor) with a condition on the step count it started from, so a retried step that lost the
 * race to an earlier attempt never moves the job twice. Ids come from the counters `site_export`
 * and `site_import`, which, like the job items, never travel in a site file.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../client.ts';
import { nextId } from '../counters.ts';
import { getItem, putItem } from '../items.ts';
import { withoutKeys } from '../keys.ts';
import { isConditionFailed } from '../retry.ts';

export const SITE_EXPORT_ENTITY = 'SiteExport';
export const SITE_IMPORT_ENTITY = 'SiteImport';
/** Counter types of the job ids (COUNTER#<type>). */
export const JOB_COUNTER_TYPES = ['site_export', 'site_import'] as const;

export type JobStatus = 'running' | 'complete' | 'failed';

/** Where an export stopped: a Scan segment and its last key, then a bucket and the last object key. */
export interface ExportCursor {
  phase: 'table' | 'objects' | 'done';
  segment: number;
  /** DynamoDB JSON of the Scan's LastEvaluatedKey within `segment`. */
  last_key: Record<string, unknown> | null;
  bucket: 'media' | 'modules';
  /** Objects after this key (ListObjectsV2 StartAfter) are still to go. */
  after_key: string | null;
}

export interface ExportPart {
  part: number;
  key: string;
  size: number;
}

export interface SiteExportRecord {
  exportid: number;
  status: JobStatus;
  include_objects: boolean;
  percent: number;
  cursor: ExportCursor;
  parts: ExportPart[];
  /** Records written so far (the header included). */
  records: number;
  counts: Record<string, number>;
  objects: number;
  execution_arn: string | null;
  error: string | null;
  created_by: number;
  created_at: number;
  completed_at: number | null;
}

export type ImportStatus =
  | 'awaiting_upload'
  | 'validating'
  | 'writing'
  | 'finishing'
  | 'validated'
  | 'complete'
  | 'failed';
export type ImportMode = 'empty' | 'merge';

export interface ImportReport {
  counts: Record<string, number>;
  objects: number;
  unknown_types: string[];
  broken_references: { items: string[]; total: number };
  collisions: { items: string[]; total: number };
  already_present: number;
  chains: { verified: number; broken: string[] } | null;
  /** Items and objects written by this run. */
  written: number;
  /** Why the import was refused, when it was. */
  refusal: string | null;
}

export interface SiteImportRecord {
  importid: number;
  status: ImportStatus;
  mode: ImportMode;
  dry_run: boolean;
  mail_password_resets: boolean;
  percent: number;
  /** The uploaded file: modules bucket key and size (known once started). */
  key: string;
  size: number | null;
  /** Byte offset of the next line to read in the current pass. */
  offset: number;
  /** Steps the job has taken (the condition of every save). */
  steps: number;
  report: ImportReport;
  /** Scratch state of the current pass (small: counters of the pass, never the file's items). */
  pass: Record<string, unknown>;
  operator: { userid: number; email: string };
  execution_arn: string | null;
  error: string | null;
  created_by: number;
  created_at: number;
  completed_at: number | null;
}

const exportKey = (exportid: number) => ({ pk: `SITE_EXPORT#${exportid}`, sk: 'JOB' });
const importKey = (importid: number) => ({ pk: `SITE_IMPORT#${importid}`, sk: 'JOB' });

export function nextExportId(): Promise<number> {
  return nextId('site_export');
}

export function nextImportId(): Promise<number> {
  return nextId('site_import');
}

export async function insertExport(record: SiteExportRecord): Promise<void> {
  await putItem({ ...exportKey(record.exportid), entity: SITE_EXPORT_ENTITY, ...record }, { ifAbsent: true });
}

export async function getExport(exportid: number): Promise<SiteExportRecord | undefined> {
  const item = await getItem(exportKey(exportid), { consistent: true });
  return item ? (withoutKeys(item) as unknown as SiteExportRecord) : undefined;
}

export async function insertImport(record: SiteImportRecord): Promise<void> {
  await putItem({ ...importKey(record.importid), entity: SITE_IMPORT_ENTITY, ...record }, { ifAbsent: true });
}

export async function getImport(importid: number): Promise<SiteImportRecord | undefined> {
  const item = await getItem(importKey(importid), { consistent: true });
  return item ? (withoutKeys(item) as unknown as SiteImportRecord) : undefined;
}

/** SETs `changes` when `condition` holds; false when it did not (someone else moved the job). */
async function conditionalSet(
  key: { pk: string; sk: string },
  changes: Record<string, unknown>,
  condition: { names: Record<string, string>; values: Record<string, unknown>; expression: string },
): Promise<boolean> {
  const names: Record<string, string> = { ...condition.names };
  const values: Record<string, unknown> = { ...condition.values };
  const sets = Object.entries(changes).map(([name, value], i) => {
    names[`#c${i}`] = name;
    values[`:c${i}`] = value;
    return `#c${i} = :c${i}`;
  });
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: condition.expression,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailed(error)) return false;
    throw error;
  }
}

/** Saves an export step: only a running export that still has `partsBefore` parts moves. */
export function saveExportStep(
  exportid: number,
  partsBefore: number,
  changes: Partial<SiteExportRecord>,
): Promise<boolean> {
  return conditionalSet(exportKey(exportid), changes, {
    names: { '#status': 'status', '#parts': 'parts' },
    values: { ':running': 'running', ':count': partsBefore },
    expression: '#status = :running AND size(#parts) = :count',
  });
}

/**
 * A step's percent while the step goes on (a step may last 600 s on AWS): the percent only, on
 * the same condition; the counts and the cursor move with the whole step (saveExportStep).
 */
export function saveExportProgress(exportid: number, partsBefore: number, percent: number): Promise<boolean> {
  return saveExportStep(exportid, partsBefore, { percent });
}

export function setExportExecution(exportid: number, executionArn: string): Promise<boolean> {
  return conditionalSet(
    exportKey(exportid),
    { execution_arn: executionArn },
    {
      names: { '#status': 'status' },
      values: { ':running': 'running' },
      expression: '#status = :running',
    },
  );
}

export function failExport(exportid: number, error: string, now: number): Promise<boolean> {
  return conditionalSet(
    exportKey(exportid),
    { status: 'failed', error, completed_at: now },
    {
      names: { '#status': 'status' },
      values: { ':running': 'running' },
      expression: '#status = :running',
    },
  );
}

const IMPORT_WORKING: ImportStatus[] = ['validating', 'writing', 'finishing'];

/** Moves an upload-awaiting import to validating (the start); false when it had left that status. */
export function startImportJob(importid: number, size: number, executionArn: string): Promise<boolean> {
  return conditionalSet(
    importKey(importid),
    { status: 'validating', size, execution_arn: executionArn },
    {
      names: { '#status': 'status' },
      values: { ':awaiting': 'awaiting_upload' },
      expression: '#status = :awaiting',
    },
  );
}

/** Saves an import step: only a working import still at `stepsBefore` steps moves. */
export function saveImportStep(
  importid: number,
  stepsBefore: number,
  changes: Partial<SiteImportRecord>,
): Promise<boolean> {
  return conditionalSet(
    importKey(importid),
    { ...changes, steps: stepsBefore + 1 },
    {
      names: { '#status': 'status', '#steps': 'steps' },
      values: { ':s0': IMPORT_WORKING[0], ':s1': IMPORT_WORKING[1], ':s2': IMPORT_WORKING[2], ':steps': stepsBefore },
      expression: '#status IN (:s0, :s1, :s2) AND #steps = :steps',
    },
  );
}

export function failImport(importid: number, error: string, now: number): Promise<boolean> {
  return conditionalSet(
    importKey(importid),
    { status: 'failed', error, completed_at: now },
    {
      names: { '#status': 'status' },
      values: { ':s0': IMPORT_WORKING[0], ':s1': IMPORT_WORKING[1], ':s2': IMPORT_WORKING[2] },
      expression: '#status IN (:s0, :s1, :s2)',
    },
  );
}
