/** Site import: one step (shared/site-archive/import-step.ts); the state machine loops until done. */
import { runImportStep } from '../../shared/site-archive/import-step.ts';
import { jobStep, requireJobId } from './site-job-input.ts';

export async function handler(input: unknown): Promise<{ importid: number; done: boolean }> {
  const importid = requireJobId(input, 'importid');
  const { done } = await jobStep(`Import ${importid}`, () => runImportStep(importid));
  return { importid, done };
}
