/** The report lists an import added after its first version; a job stored before them has none. */
import type { ImportReport } from '../db/entities/site-transfer-job.ts';

export type ReportListName = 'invalid_items' | 'credentials' | 'privileged' | 'webhook_secrets';

/** The named list of the report, created empty when the job has none yet. */
export function listOf(report: ImportReport, name: ReportListName): { items: string[]; total: number } {
  report[name] ??= { items: [], total: 0 };
  return report[name];
}

export const invalidList = (report: ImportReport) => listOf(report, 'invalid_items');
