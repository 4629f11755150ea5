/**
 * Executions of the module import state machine, one per attempt of an import, named
 * `import-<importid>` (then `import-<importid>-<attempt>` for restarts after an interruption;
 * executions.ts).
 */
import { config } from '../config.ts';
import { attemptExecutionName, executionArnOf, startExecution, stopExecution } from './executions.ts';
import { moduleImportInputSchema, type ModuleImportInput } from './module-import-contract.ts';

/** The execution input: the pipeline's contract (module-import-contract.ts). */
export type ImportExecutionInput = ModuleImportInput;

/** The error name a cancelled import's execution stops with. */
const IMPORT_CANCELLED = 'ImportCancelled';

export function importExecutionArn(importid: number, attempt = 1): string {
  return executionArnOf(config().MODULE_IMPORT_STATE_MACHINE_ARN, attemptExecutionName('import', importid, attempt));
}

export function startImportExecution(input: ImportExecutionInput, attempt = 1): Promise<string> {
  return startExecution(
    config().MODULE_IMPORT_STATE_MACHINE_ARN,
    attemptExecutionName('import', input.importid, attempt),
    // Parsed first: an input the pipeline would refuse never starts an execution.
    moduleImportInputSchema.parse(input),
  );
}

export function stopImportExecution(executionArn: string, cause: string): Promise<void> {
  return stopExecution(executionArn, IMPORT_CANCELLED, cause);
}
