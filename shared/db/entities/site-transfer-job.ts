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
import { isConditionFailed } from '../retry.ts';
import { recordFrom, type StoredRecord } from '../stored-item.ts';
import * as z from 'zod/mini';
import { SITE_IMPORT_STATUSES } from '../../domain/import-statuses.ts';

export const SITE_EXPORT_ENTITY = 'SiteExport';
export const SITE_IMPORT_ENTITY = 'SiteImport';
/** Counter types of the job ids (COUNTER#<type>). */
export const JOB_COUNTER_TYPES = ['site_export', 'site_import'] as const;

export type JobStatus = 'running' | 'complete' | 'failed' | 'cancelled';

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

export type ImportStatus = (typeof SITE_IMPORT_STATUSES)[number];
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
  /** Items refused by their key shape, schema or size, each with the reason (decision 165). */
  invalid_items?: { items: string[]; total: number };
  /** Credential items (tokens, reset and signing links) and what the import does with each (decision 164). */
  credentials?: { items: string[]; total: number };
  /** Accounts the file gives Admin or Author (decision 164). */
  privileged?: { items: string[]; total: number };
  /** Webhooks whose secret did not travel: enter it again with PATCH /webhooks/{id} (decision 167). */
  webhook_secrets?: { items: string[]; total: number };
}

/** A map attribute typed by its interface: its inner shape is the job's own business (checked: a map). */
const jobMap = <T>() => z.custom<T>((value) => typeof value === 'object' && value !== null && !Array.isArray(value));
const nullableString = z.nullable(z.string());

/**
 * Job items never travel (an import refuses them by key); their schemas type every field the
 * record declares, the report, cursor and pass only as maps (their insides are the job's own),
 * and stay open to attributes they do not name (loose: not exact).
 */
const siteExportShape = {
  pk: z.string(),
  sk: z.literal('JOB'),
  entity: z.literal(SITE_EXPORT_ENTITY),
  exportid: z.int().check(z.positive()),
  /** Failed because its execution ended without the job saying so (decision 166). */
  interrupted: z.optional(z.boolean()),
  /** Webhook secrets travel sealed (decision 167). */
  webhook_secrets: z.optional(z.boolean()),
  /** Seals webhook secrets into the file; kept while the job runs, removed once it ends (decision 167). */
  secrets_passphrase: z.optional(nullableString),
  status: z.enum(['running', 'complete', 'failed', 'cancelled']),
  include_objects: z.boolean(),
  percent: z.number(),
  cursor: jobMap<ExportCursor>(),
  parts: z.array(jobMap<ExportPart>()),
  /** Records written so far (the header included). */
  records: z.int(),
  counts: z.record(z.string(), z.number()),
  objects: z.int(),
  execution_arn: nullableString,
  error: nullableString,
  created_by: z.int(),
  created_at: z.number(),
  completed_at: z.nullable(z.number()),
};
const siteImportShape = {
  pk: z.string(),
  sk: z.literal('JOB'),
  entity: z.literal(SITE_IMPORT_ENTITY),
  importid: z.int().check(z.positive()),
  /** Merge mode may write accounts with Admin only when the operator said so (decision 164). */
  allow_admin_grants: z.optional(z.boolean()),
  /** Opens sealed webhook secrets; kept while the job works, removed once it ends (decision 167). */
  secrets_passphrase: z.optional(nullableString),
  /** Executions started (a restart after an interruption is attempt 2, ...). */
  attempt: z.optional(z.int()),
  /** When the current attempt was started (an execution not visible yet is not believed gone before). */
  started_at: z.optional(z.number()),
  /** Failed because its execution ended without the job saying so (decision 166). */
  interrupted: z.optional(z.boolean()),
  status: z.enum(SITE_IMPORT_STATUSES),
  mode: z.enum(['empty', 'merge']),
  dry_run: z.boolean(),
  mail_password_resets: z.boolean(),
  percent: z.number(),
  /** The uploaded file: modules bucket key and size (known once started). */
  key: z.string(),
  size: z.nullable(z.number()),
  /** Byte offset of the next line to read in the current pass. */
  offset: z.number(),
  /** Steps the job has taken (the condition of every save). */
  steps: z.int(),
  report: jobMap<ImportReport>(),
  /** Scratch state of the current pass (small: counters of the pass, never the file's items). */
  pass: z.record(z.string(), z.unknown()),
  operator: z.object({ userid: z.int(), email: z.string() }),
  execution_arn: nullableString,
  error: nullableString,
  created_by: z.int(),
  created_at: z.number(),
  completed_at: z.nullable(z.number()),
};
export const siteExportItemSchema = z.looseObject(siteExportShape);
export const siteImportItemSchema = z.looseObject(siteImportShape);
/** Reads keep the attributes the records name (an open object has no record type of its own). */
const storedExportSchema = z.object(siteExportShape);

export type SiteExportRecord = StoredRecord<typeof storedExportSchema>;
const storedImportSchema = z.object(siteImportShape);

export type SiteImportRecord = StoredRecord<typeof storedImportSchema>;

export const exportKey = (exportid: number) => ({ pk: `SITE_EXPORT#${exportid}`, sk: 'JOB' as const });
export const importKey = (importid: number) => ({ pk: `SITE_IMPORT#${importid}`, sk: 'JOB' as const });

export function nextExportId(): Promise<number> {
  return nextId('site_export');
}

export function nextImportId(): Promise<number> {
  return nextId('site_import');
}

export async function insertExport(record: SiteExportRecord): Promise<void> {
  const item = { ...exportKey(record.exportid), entity: SITE_EXPORT_ENTITY, ...record } as const;
  await putItem(item satisfies z.input<typeof siteExportItemSchema>, { ifAbsent: true });
}

export async function getExport(exportid: number): Promise<SiteExportRecord | undefined> {
  const item = await getItem(exportKey(exportid), { consistent: true });
  return item ? recordFrom(storedExportSchema, item) : undefined;
}

export async function insertImport(record: SiteImportRecord): Promise<void> {
  const item = { ...importKey(record.importid), entity: SITE_IMPORT_ENTITY, ...record } as const;
  await putItem(item satisfies z.input<typeof siteImportItemSchema>, { ifAbsent: true });
}

export async function getImport(importid: number): Promise<SiteImportRecord | undefined> {
  const item = await getItem(importKey(importid), { consistent: true });
  return item ? recordFrom(storedImportSchema, item) : undefined;
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
    { status: 'failed', error, completed_at: now, secrets_passphrase: null },
    {
      names: { '#status': 'status' },
      values: { ':running': 'running' },
      expression: '#status = :running',
    },
  );
}

const IMPORT_WORKING: ImportStatus[] = ['validating', 'writing', 'finishing'];

/** Moves an upload-awaiting import to validating (the start); false when it had left that status. */
export function startImportJob(importid: number, size: number, executionArn: string, now: number): Promise<boolean> {
  return conditionalSet(
    importKey(importid),
    { status: 'validating', size, execution_arn: executionArn, attempt: 1, started_at: now },
    {
      names: { '#status': 'status' },
      values: { ':awaiting': 'awaiting_upload' },
      expression: '#status = :awaiting',
    },
  );
}

/** Saves an import step: only a working import of this attempt still at `stepsBefore` steps moves. */
export function saveImportStep(
  importid: number,
  stepsBefore: number,
  attempt: number,
  changes: Partial<SiteImportRecord>,
): Promise<boolean> {
  return conditionalSet(
    importKey(importid),
    { ...changes, steps: stepsBefore + 1 },
    {
      names: { '#status': 'status', '#steps': 'steps', '#attempt': 'attempt' },
      values: {
        ':s0': IMPORT_WORKING[0],
        ':s1': IMPORT_WORKING[1],
        ':s2': IMPORT_WORKING[2],
        ':steps': stepsBefore,
        ':attempt': attempt,
      },
      expression:
        '#status IN (:s0, :s1, :s2) AND #steps = :steps AND (attribute_not_exists(#attempt) OR #attempt = :attempt)',
    },
  );
}

export function failImport(importid: number, error: string, now: number): Promise<boolean> {
  return conditionalSet(
    importKey(importid),
    { status: 'failed', error, completed_at: now, secrets_passphrase: null },
    {
      names: { '#status': 'status' },
      values: { ':s0': IMPORT_WORKING[0], ':s1': IMPORT_WORKING[1], ':s2': IMPORT_WORKING[2] },
      expression: '#status IN (:s0, :s1, :s2)',
    },
  );
}

// ---- interruptions and cancels (decision 166) ----

/** A running export whose execution `executionArn` ended unrecorded: failed as interrupted. */
export function markExportInterrupted(exportid: number, executionArn: string, error: string, now: number) {
  return conditionalSet(
    exportKey(exportid),
    { status: 'failed', interrupted: true, error, completed_at: now, secrets_passphrase: null },
    {
      names: { '#status': 'status', '#arn': 'execution_arn' },
      values: { ':running': 'running', ':arn': executionArn },
      expression: '#status = :running AND #arn = :arn',
    },
  );
}

/** Cancels a running export; false once it has finished. */
export function cancelExportJob(exportid: number, now: number): Promise<boolean> {
  return conditionalSet(
    exportKey(exportid),
    { status: 'cancelled', error: 'Cancelled', completed_at: now, secrets_passphrase: null },
    { names: { '#status': 'status' }, values: { ':running': 'running' }, expression: '#status = :running' },
  );
}

/** A working import whose execution `executionArn` ended unrecorded: failed as interrupted. */
export function markImportInterrupted(importid: number, executionArn: string, error: string, now: number) {
  return conditionalSet(
    importKey(importid),
    { status: 'failed', interrupted: true, error, completed_at: now },
    {
      names: { '#status': 'status', '#arn': 'execution_arn' },
      values: { ':s0': IMPORT_WORKING[0], ':s1': IMPORT_WORKING[1], ':s2': IMPORT_WORKING[2], ':arn': executionArn },
      expression: '#status IN (:s0, :s1, :s2) AND #arn = :arn',
    },
  );
}

/**
 * Runs an interrupted import again from the start of its file (validation, then writing: the
 * items an earlier attempt wrote are found identical and skipped); false if another start won.
 */
export function restartImportJob(
  importid: number,
  previousArn: string,
  changes: { attempt: number; execution_arn: string; report: ImportReport },
  now: number,
): Promise<boolean> {
  return conditionalSet(
    importKey(importid),
    {
      ...changes,
      status: 'validating',
      interrupted: false,
      error: null,
      completed_at: null,
      offset: 0,
      percent: 0,
      pass: {},
      started_at: now,
    },
    {
      names: { '#status': 'status', '#arn': 'execution_arn', '#interrupted': 'interrupted' },
      values: { ':failed': 'failed', ':arn': previousArn, ':yes': true },
      expression: '#status = :failed AND #interrupted = :yes AND #arn = :arn',
    },
  );
}

/**
 * Cancels an import that has written nothing: awaiting its upload or validating. Once writing,
 * it runs to its end (a cancel would leave it half-written); false then, and once finished.
 */
export function cancelImportJob(importid: number, now: number): Promise<boolean> {
  return conditionalSet(
    importKey(importid),
    { status: 'cancelled', error: 'Cancelled', completed_at: now, secrets_passphrase: null, pass: {} },
    {
      names: { '#status': 'status' },
      values: { ':awaiting': 'awaiting_upload', ':validating': 'validating' },
      expression: '#status IN (:awaiting, :validating)',
    },
  );
}
