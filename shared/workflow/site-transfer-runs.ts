/**
 * Executions of the site export and import state machines, one per job, named
 * `export-<exportid>` / `import-<importid>` (StartExecution is then idempotent per job); a
 * restarted import's attempts are `import-<importid>-<attempt>` (executions.ts).
 */
import { config } from '../config.ts';
import { attemptExecutionName, executionArnOf, startExecution, stopExecution } from './executions.ts';
import { siteExportInputSchema, siteImportInputSchema } from './site-transfer-contract.ts';

export function startExportExecution(exportid: number): Promise<string> {
  return startExecution(
    config().SITE_EXPORT_STATE_MACHINE_ARN,
    `export-${exportid}`,
    siteExportInputSchema.parse({ exportid }),
  );
}

export function importExecutionArn(importid: number, attempt = 1): string {
  return executionArnOf(config().SITE_IMPORT_STATE_MACHINE_ARN, attemptExecutionName('import', importid, attempt));
}

export function startSiteImportExecution(importid: number, attempt = 1): Promise<string> {
  return startExecution(
    config().SITE_IMPORT_STATE_MACHINE_ARN,
    attemptExecutionName('import', importid, attempt),
    siteImportInputSchema.parse({ importid, attempt }),
  );
}

/** Stops a cancelled site job's execution (the job is marked cancelled first), named as a module import's stop is. */
export function stopSiteJobExecution(executionArn: string, cause: string): Promise<void> {
  return stopExecution(executionArn, 'ImportCancelled', cause);
}
