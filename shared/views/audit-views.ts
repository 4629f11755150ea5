/**
 * The audit trail on the wire (beyond the spec; Admins only): a page of a subject's hash-chained
 * records, and the verdict of verifying a whole chain (shared/db/audit-verify.ts).
 */
import * as z from 'zod/mini';
import type { AuditRecord } from '../db/audit.ts';

export const auditRecordSchema = z.object({
  subject: z.string(),
  seq: z.int(),
  date: z.int(),
  action: z.string(),
  actor_userid: z.nullable(z.int()),
  /** The site API token that acted, when no user did (decision 227). */
  actor_tokenid: z.optional(z.string()),
  impersonator_userid: z.nullable(z.int()),
  subjects: z.array(z.string()),
  details: z.record(z.string(), z.unknown()),
  previous_hash: z.string(),
  hash: z.string(),
});

export const auditHistorySchema = z.object({
  subject: z.string(),
  head_seq: z.int(),
  records: z.array(auditRecordSchema),
});

export const auditVerificationSchema = z.object({
  subject: z.string(),
  valid: z.boolean(),
  records_checked: z.int(),
  head_seq: z.int(),
  first_broken_seq: z.nullable(z.int()),
  problem: z.nullable(z.enum(['missing_record', 'hash_mismatch', 'link_mismatch', 'head_mismatch'])),
});

export type AuditRecordView = z.output<typeof auditRecordSchema>;
export type AuditHistoryView = z.output<typeof auditHistorySchema>;
export type AuditVerificationView = z.output<typeof auditVerificationSchema>;

export function auditRecordView(record: AuditRecord): AuditRecordView {
  return {
    subject: record.subject,
    seq: record.seq,
    date: record.date,
    action: record.action,
    actor_userid: record.actor_userid,
    ...(record.actor_tokenid ? { actor_tokenid: record.actor_tokenid } : {}),
    impersonator_userid: record.impersonator_userid ?? null,
    subjects: record.subjects,
    details: record.details,
    previous_hash: record.previous_hash,
    hash: record.hash,
  };
}
