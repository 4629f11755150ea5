/** Site export: one step (shared/site-archive/export-step.ts); the state machine loops until done. */
import { runExportStep } from '../../shared/site-archive/export-step.ts';
import { jobStep, requireJobId } from './site-job-input.ts';

export async function handler(input: unknown): Promise<{ exportid: number; done: boolean }> {
  const exportid = requireJobId(input, 'exportid');
  const { done } = await jobStep(`Export ${exportid}`, () => runExportStep(exportid));
  return { exportid, done };
}
