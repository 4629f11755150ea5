/**
 * The state that flows through the module import state machine: its contract is
 * shared/workflow/module-import-contract.ts (the execution input the modules group starts it
 * with, plus what each task learned). A task checks its input and its output against it.
 */
import {
  contractProblem,
  moduleImportStateSchema,
  type ModuleImportState,
} from '../../shared/workflow/module-import-contract.ts';
import { PipelineError, PipelineErrorName } from './errors.ts';

export type ImportState = ModuleImportState;

/** The task's input as the contract says, or InvalidInput naming what is wrong (not retried). */
export function requireImportState(input: unknown): ImportState {
  const parsed = moduleImportStateSchema.safeParse(input);
  if (!parsed.success)
    throw new PipelineError(
      PipelineErrorName.InvalidInput,
      `Not a module import state (${contractProblem(parsed.error)})`,
    );
  return parsed.data;
}

/** A task's result as the contract says: a task that breaks it fails here, not in the next task. */
export function checkedOutput(taskName: string, output: ImportState): ImportState {
  const parsed = moduleImportStateSchema.safeParse(output);
  if (!parsed.success)
    throw new PipelineError(
      PipelineErrorName.InvalidInput,
      `${taskName} returned a state that breaks the contract (${contractProblem(parsed.error)})`,
    );
  return parsed.data;
}

export function requireSize(state: ImportState): number {
  if (typeof state.size !== 'number')
    throw new PipelineError(PipelineErrorName.InvalidInput, 'The package size is missing (InspectPackage runs first)');
  return state.size;
}
