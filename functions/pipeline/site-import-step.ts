/** Site import: one step (shared/site-archive/import-step.ts); the state machine loops until done. */
import { runImportStep } from '../../shared/site-archive/import-step.ts';
import { jobStep, requireJobId } from './site-job-input.ts';

export async function handler(input: unknown): Promise<{ importid: number; attempt: number; done: boolean }> {
  const importid = requireJobId(input, 'importid');
  // Executions started before attempts were numbered carry none: attempt 1.
  const attempt = Number((input as { attempt?: unknown }).attempt ?? 1);
  const { done } = await jobStep(`Import ${importid}`, () => runImportStep(importid, attempt));
  // The output is the next step's input: the attempt goes round with it.
  return { importid, attempt, done };
}
