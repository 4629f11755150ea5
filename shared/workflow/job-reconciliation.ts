/**
 * Read-time reconciliation of a background job the table still calls working (a module import,
 * a site export or import; decisions 85 and 166): its execution is described, judged by the one
 * rule (shared/domain/job-interruption.ts), and a job it can no longer finish is written failed as
 * interrupted, conditional on the execution judged, so a newer attempt is never touched.
 */
import { nowSeconds } from '../clock.ts';
import { jobInterruption, type ExecutionState } from '../domain/job-interruption.ts';
import { log } from '../observability/logger.ts';
import { describeExecution } from './executions.ts';

export interface WorkingJob<R> {
  /** What the log calls the job ('module import', 'site export'), and its id fields. */
  kind: string;
  ids: Record<string, number>;
  executionArn: string;
  /** When its current attempt was marked started (see JobFacts). */
  startedAt: number;
  succeededIsLost: boolean;
  /** Writes it failed as interrupted for `reason`, on condition of `executionArn`; undefined once it moved on. */
  markInterrupted(reason: string, now: number): Promise<R | undefined>;
  /** The job as stored, after another write moved it on. */
  reread(): Promise<R>;
  /** Removes what the interrupted execution wrote, once the job is marked. */
  removeOutput?(): Promise<unknown>;
}

/** The job as it stands: `record` while its execution may still finish it, else failed as interrupted. */
export async function reconciledJob<R>(record: R, job: WorkingJob<R>): Promise<R> {
  let execution: ExecutionState;
  try {
    execution = await describeExecution(job.executionArn);
  } catch (error) {
    // Step Functions unreachable or throttling: answer what the table says; the next read retries.
    log().warn(`${job.kind}: could not describe the execution`, { ...job.ids, error: (error as Error).message });
    return record;
  }
  const found = jobInterruption(execution, {
    startedAt: job.startedAt,
    now: nowSeconds(),
    succeededIsLost: job.succeededIsLost,
  });
  if (!found) return record;
  const failed = await job.markInterrupted(found.reason, nowSeconds());
  if (!failed) return job.reread();
  await job.removeOutput?.();
  return failed;
}
