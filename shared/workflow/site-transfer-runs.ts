/**
 * Executions of the site export and import state machines, one per job, named
 * `export-<exportid>` / `import-<importid>` (StartExecution is then idempotent per job).
 */
import { config } from '../config.ts';
import { sfn } from './sfn.ts';

export async function startExportExecution(exportid: number): Promise<string> {
  const { client, sdk } = await sfn();
  const result = await client.send(
    new sdk.StartExecutionCommand({
      stateMachineArn: config().SITE_EXPORT_STATE_MACHINE_ARN,
      name: `export-${exportid}`,
      input: JSON.stringify({ exportid }),
    }),
  );
  return result.executionArn!;
}

export function importExecutionArn(importid: number): string {
  return `${config().SITE_IMPORT_STATE_MACHINE_ARN.replace(':stateMachine:', ':execution:')}:import-${importid}`;
}

export async function startSiteImportExecution(importid: number): Promise<string> {
  const { client, sdk } = await sfn();
  const result = await client.send(
    new sdk.StartExecutionCommand({
      stateMachineArn: config().SITE_IMPORT_STATE_MACHINE_ARN,
      name: `import-${importid}`,
      input: JSON.stringify({ importid }),
    }),
  );
  return result.executionArn!;
}
