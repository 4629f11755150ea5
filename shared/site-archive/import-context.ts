/** What the phases of an import step share: the job, its scratch, the time budget, refusals. */
import { createHash } from 'node:crypto';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import type { ImportReport, SiteImportRecord } from '../db/entities/site-transfer-job.ts';
import { objectSize } from '../storage/objects.ts';
import { s3Client } from '../storage/s3-client.ts';
import type { ImportScratch } from './import-scratch.ts';
import { bucketOf } from './keys.ts';
import { isSealedSecret } from './secret-box.ts';
import { entityOf, siteRecordSchema, type SiteRecord } from './records.ts';
import { schemaProblem, StoredItemError } from '../db/stored-item.ts';
import * as z from 'zod/mini';

/** A reason the file or the target refuses the import: the job fails with it, nothing is written. */
export class ImportRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImportRefused';
  }
}

/** A Scan read across steps: the segment and its LastEvaluatedKey. */
export interface ScanCursor {
  segment: number;
  last_key: Record<string, unknown> | null;
}

/** The validation's state between steps (saved in the job item). */
export interface ValidationPass {
  phase: 'file' | 'target';
  /** Records read so far. */
  records: number;
  /** The end record was read. */
  end: boolean;
  /** The file's items the target holds identically: the first Admin's kinds, the others, accounts. */
  same_footprint: number;
  same_other: number;
  same_users: number;
  /** The userid the file gives the operator's account (matched by email). */
  operator_in_file: number | null;
  /** Item records per entity name as the records claim it (what the end record counts). */
  claimed: Record<string, number>;
  /** `empty` mode: what the target holds, counted the same way. */
  target: (ScanCursor & { footprint: number; other: number; users: number }) | null;
}

/** The writing's state between steps. */
export interface WritingPass {
  phase: 'clear' | 'items';
  records: number;
  written: number;
  present: number;
  /** The operator's password hash, given to the file's account with their email. */
  operator_hash: string;
  operator_in_file: number | null;
  /** The operator's roles on this site: their account in the file keeps them (decision 164). */
  operator_privileges: string[];
  clear: ScanCursor;
}

/** The writing pass as saved in the job item, checked when a step takes it up again. */
const writingPassSchema = z.strictObject({
  phase: z.enum(['clear', 'items']),
  records: z.int(),
  written: z.int(),
  present: z.int(),
  operator_hash: z.string(),
  operator_in_file: z.nullable(z.int()),
  operator_privileges: z.array(z.string()),
  clear: z.strictObject({ segment: z.int(), last_key: z.nullable(z.record(z.string(), z.unknown())) }),
});

/** The saved writing pass of a job; a pass of another shape is a StoredItemError naming the job. */
export function savedWritingPass(job: SiteImportRecord, saved: Record<string, unknown>): WritingPass {
  const parsed = writingPassSchema.safeParse(saved);
  if (parsed.success) return parsed.data;
  const problem = schemaProblem(parsed.error.issues, saved) ?? 'pass: invalid';
  throw new StoredItemError({ pk: `SITE_IMPORT#${job.importid}`, sk: 'JOB' }, `pass.${problem}`);
}

export function freshValidationPass(): ValidationPass {
  return {
    phase: 'file',
    records: 0,
    end: false,
    same_footprint: 0,
    same_other: 0,
    same_users: 0,
    operator_in_file: null,
    claimed: {},
    target: null,
  };
}

export interface ImportStep<Pass = ValidationPass | WritingPass> {
  job: SiteImportRecord;
  report: ImportReport;
  /** The current phase's small state (saved with the job). */
  pass: Pass;
  scratch: ImportScratch;
  full(): boolean;
}

export const LISTED = 100;

/** Adds a label to a report list that keeps the first LISTED and a total. */
export function listIn(list: { items: string[]; total: number }, label: string): void {
  list.total += 1;
  if (list.items.length < LISTED) list.items.push(label);
}

/** One line of the file as a record, or a refusal naming the line. */
export function parseRecord(text: string, lineNumber: number): SiteRecord {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ImportRefused(`Line ${lineNumber} is not JSON`);
  }
  const parsed = siteRecordSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ImportRefused(
      `Line ${lineNumber} is not a site record: ${issue?.path.join('.') || 'record'}: ${issue?.message}`,
    );
  }
  return parsed.data;
}

/** Whether an item is the file's account of the operator (matched by email). */
export function isOperatorUser(plain: Record<string, unknown>, operatorEmail: string): boolean {
  return entityOf(plain) === 'User' && String(plain.email ?? '').toLowerCase() === operatorEmail.toLowerCase();
}

/**
 * Attributes the import itself decides, so a target item differing only there is the file's
 * item already written: the operator's password hash and roles, a webhook's secret (and, for
 * one that came without, its active flag).
 */
export function decidedByImport(plain: Record<string, unknown>, operatorEmail: string): string[] {
  if (isOperatorUser(plain, operatorEmail)) return ['password_hash', 'privileges'];
  if (entityOf(plain) !== 'Webhook') return [];
  const secret = String(plain.secret ?? '');
  if (secret === '') return ['secret', 'active'];
  return isSealedSecret(secret) ? ['secret'] : [];
}

/** Whether the target bucket already holds these exact bytes under the key; undefined: no object there. */
export async function targetObjectMatches(
  role: 'media' | 'modules',
  key: string,
  size: number,
  sha256: string,
): Promise<boolean | undefined> {
  const bucket = bucketOf(role);
  const existing = await objectSize(bucket, key);
  if (existing === undefined) return undefined;
  if (existing !== size) return false;
  const result = await s3Client().send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  const hash = createHash('sha256');
  for await (const chunk of result.Body as AsyncIterable<Uint8Array>) hash.update(chunk);
  return hash.digest('hex') === sha256;
}
