/**
 * When a background job the table still calls working can no longer finish: the one rule behind
 * the read-time reconciliation of module imports (functions/modules) and of site exports and
 * imports (functions/site-transfer; decisions 85 and 166). Pure: the caller describes the job's
 * execution and writes the verdict, conditional on the execution it judged.
 */

/** What Step Functions says of the job's execution; undefined: no such execution. */
export type ExecutionState = { status: string; error?: string } | undefined;

export interface JobInterruption {
  reason: string;
  /** The execution no longer exists (rather than having ended). */
  gone: boolean;
}

/**
 * An execution that has just been asked for may not be visible yet (the job is marked started
 * before StartExecution): "no such execution" counts as an interruption only this long after.
 */
export const START_GRACE_SECONDS = 15;

export interface JobFacts {
  /** When the job's current attempt was marked started (or its last write, for module imports). */
  startedAt: number;
  now: number;
  /**
   * Whether an execution that SUCCEEDED while the job still works lost its last save. Site jobs:
   * yes, their last step saves before the execution ends (decision 166). Module imports: no, it
   * is left alone (RecordVersion wrote before the execution ended; the read raced it).
   */
  succeededIsLost: boolean;
}

/**
 * Why the job's execution can no longer finish it, or undefined while it still may. Gone (a local
 * runner restarted; past Step Functions' retention), TIMED_OUT, ABORTED (stopped other than by a
 * cancel, which marks the job first) and FAILED (the failure path itself failed) all mean the
 * pipeline will never write again.
 */
export function jobInterruption(execution: ExecutionState, job: JobFacts): JobInterruption | undefined {
  if (!execution) {
    if (job.now - job.startedAt < START_GRACE_SECONDS) return undefined;
    return { reason: 'Its execution no longer exists (the workflow runner was restarted)', gone: true };
  }
  switch (execution.status) {
    case 'RUNNING':
    case 'PENDING_REDRIVE':
      return undefined;
    case 'SUCCEEDED':
      return job.succeededIsLost
        ? { reason: 'Its execution ended SUCCEEDED without finishing the job', gone: false }
        : undefined;
    default:
      return {
        reason:
          `Its execution ended ${execution.status}${execution.error ? ` (${execution.error})` : ''} before the ` +
          'import was recorded',
        gone: false,
      };
  }
}
