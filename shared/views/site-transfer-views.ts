/** How site export and import jobs are shown (beyond the spec: docs/export-format.md). */
import * as z from 'zod/mini';
import type { ImportReport, SiteExportRecord, SiteImportRecord } from '../db/entities/site-transfer-job.ts';
import { SITE_IMPORT_STATUSES } from '../domain/import-statuses.ts';
import { modulesBucket } from '../storage/module-objects.ts';
import { presignedGetUrl } from '../storage/objects.ts';

/** Download links of a finished export stay valid this long (a GET answers fresh ones). */
export const EXPORT_URL_SECONDS = 3600;

export const siteExportSchema = z.object({
  exportid: z.int(),
  status: z.enum(['running', 'complete', 'failed', 'cancelled']),
  /** Failed because its execution ended without the job saying so (a crash, a stop from outside). */
  interrupted: z.boolean(),
  include_objects: z.boolean(),
  /** Webhook secrets travel, sealed with a passphrase (otherwise they are left out). */
  webhook_secrets: z.boolean(),
  percent: z.number(),
  counts: z.record(z.string(), z.int()),
  objects: z.int(),
  created_at: z.int(),
  completed_at: z.nullable(z.int()),
  error: z.nullable(z.string()),
  /** Only once complete: the site file is these parts concatenated in `part` order. */
  files: z.array(z.object({ part: z.int(), url: z.string(), size: z.int(), expires_at: z.int() })),
});

const reportList = z.object({ items: z.array(z.string()), total: z.int() });

export const siteImportReportSchema = z.object({
  counts: z.record(z.string(), z.int()),
  objects: z.int(),
  unknown_types: z.array(z.string()),
  broken_references: reportList,
  collisions: reportList,
  already_present: z.int(),
  chains: z.nullable(z.object({ verified: z.int(), broken: z.array(z.string()) })),
  written: z.int(),
  refusal: z.nullable(z.string()),
  /** Items and objects refused by key shape, schema or size, each with its reason. */
  invalid_items: reportList,
  /** Credential items and what the import does with each (written only with a new account). */
  credentials: reportList,
  /** Accounts the file gives Admin or Author. */
  privileged: reportList,
  /** Webhooks that came without their secret: set it with PATCH /webhooks/{id}, then activate them. */
  webhook_secrets: reportList,
});

export const siteImportSchema = z.object({
  importid: z.int(),
  status: z.enum(SITE_IMPORT_STATUSES),
  /** Failed because its execution ended without the job saying so; POST …/start runs it again. */
  interrupted: z.boolean(),
  mode: z.enum(['empty', 'merge']),
  dry_run: z.boolean(),
  allow_admin_grants: z.boolean(),
  mail_password_resets: z.boolean(),
  percent: z.number(),
  size: z.nullable(z.int()),
  report: siteImportReportSchema,
  error: z.nullable(z.string()),
  created_at: z.int(),
  completed_at: z.nullable(z.int()),
});

/** POST /admin/imports: the import plus where to POST the site file. */
export const siteImportCreatedSchema = z.extend(siteImportSchema, {
  upload: z.object({ url: z.string(), fields: z.record(z.string(), z.string()), expires: z.int(), max_bytes: z.int() }),
});

export type SiteExportView = z.output<typeof siteExportSchema>;
export type SiteImportView = z.output<typeof siteImportSchema>;

export async function siteExportView(record: SiteExportRecord, now: number): Promise<SiteExportView> {
  const files =
    record.status === 'complete'
      ? await Promise.all(
          record.parts.map(async (part) => ({
            part: part.part,
            url: await presignedGetUrl(
              modulesBucket(), // export parts live in the modules bucket (shared/site-archive/keys.ts)
              part.key,
              EXPORT_URL_SECONDS,
              `site-${record.exportid}-part-${part.part}.jsonl`,
            ),
            size: part.size,
            expires_at: now + EXPORT_URL_SECONDS,
          })),
        )
      : [];
  return {
    exportid: record.exportid,
    status: record.status,
    interrupted: record.interrupted === true,
    include_objects: record.include_objects,
    webhook_secrets: record.webhook_secrets === true,
    percent: record.percent,
    counts: record.counts,
    objects: record.objects,
    created_at: record.created_at,
    completed_at: record.completed_at,
    error: record.error,
    files,
  };
}

export function siteImportView(record: SiteImportRecord): SiteImportView {
  return {
    importid: record.importid,
    status: record.status,
    interrupted: record.interrupted === true,
    mode: record.mode,
    dry_run: record.dry_run,
    allow_admin_grants: record.allow_admin_grants === true,
    mail_password_resets: record.mail_password_resets,
    percent: record.percent,
    size: record.size,
    report: fullReport(record.report),
    error: record.error,
    created_at: record.created_at,
    completed_at: record.completed_at,
  };
}

/** A report with every list present: jobs stored before a list was added have none of it. */
function fullReport(report: ImportReport): Required<ImportReport> {
  const none = () => ({ items: [], total: 0 });
  return {
    ...report,
    invalid_items: report.invalid_items ?? none(),
    credentials: report.credentials ?? none(),
    privileged: report.privileged ?? none(),
    webhook_secrets: report.webhook_secrets ?? none(),
  };
}
