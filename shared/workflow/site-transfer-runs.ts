/**
 * Executions of the site export and import state machines, one per job, named
 * `export-<exportid>` / `import-<importid>` (StartExecution is then idempotent per job).
 */
import { config } from '../config.ts';
import { sfn } from './sfn.ts';
import { siteExportInputSchema, siteImportInputSchema } from './site-transfer-contract.ts';

export async function startExportExecution(exportid: number): Promise<string> {
  const { client, sdk } = await sfn();
  const result = await client.send(
    new sdk.StartExecutionCommand({
      stateMachineArn: config().SITE_EXPORT_STATE_MACHINE_ARN,
      name: `export-${exportid}`,
      input: JSON.stringify(siteExportInputSchema.parse({ exportid })),
    }),
  );
  return result.executionArn!;
}

/** A restart after an interruption is a new execution: Step Functions keeps a name taken for 90 days. */
const importExecutionName = (importid: number, attempt: number) =>
  attempt <= 1 ? `import-${importid}` : `import-${importid}-${attempt}`;

export function importExecutionArn(importid: number, attempt = 1): string {
  const executionsOf = config().SITE_IMPORT_STATE_MACHINE_ARN.replace(':stateMachine:', ':execution:');
  return `${executionsOf}:${importExecutionName(importid, attempt)}`;
}

export async function startSiteImportExecution(importid: number, attempt = 1): Promise<string> {
  const { client, sdk } = await sfn();
  const result = await client.send(
    new sdk.StartExecutionCommand({
      stateMachineArn: config().SITE_IMPORT_STATE_MACHINE_ARN,
      name: importExecutionName(importid, attempt),
      input: JSON.stringify(siteImportInputSchema.parse({ importid, attempt })),
    }),
  );
  return result.executionArn!;
}
