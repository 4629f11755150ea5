/** The one rule of interrupted jobs (shared/domain/job-interruption.ts), for module imports and site jobs. */
import { describe, expect, it } from 'vitest';
import { jobInterruption, START_GRACE_SECONDS } from '../../shared/domain/job-interruption.ts';

const site = { startedAt: 1000, now: 1000 + START_GRACE_SECONDS, succeededIsLost: true };
const moduleImport = { ...site, succeededIsLost: false };

describe('jobInterruption', () => {
  it('leaves a job whose execution still runs (or waits for a redrive) alone', () => {
    for (const status of ['RUNNING', 'PENDING_REDRIVE']) {
      expect(jobInterruption({ status }, site)).toBeUndefined();
      expect(jobInterruption({ status }, moduleImport)).toBeUndefined();
    }
  });

  it('an execution that no longer exists interrupts the job only once the start grace has passed', () => {
    expect(jobInterruption(undefined, { ...site, now: site.startedAt + START_GRACE_SECONDS - 1 })).toBeUndefined();
    expect(jobInterruption(undefined, site)).toEqual({
      reason: 'Its execution no longer exists (the workflow runner was restarted)',
      gone: true,
    });
    expect(jobInterruption(undefined, moduleImport)?.gone).toBe(true);
  });

  it('an execution that ended otherwise interrupts the job at once, naming the status and error', () => {
    const early = { ...site, now: site.startedAt };
    expect(jobInterruption({ status: 'TIMED_OUT' }, early)).toEqual({
      reason: 'Its execution ended TIMED_OUT before the import was recorded',
      gone: false,
    });
    expect(jobInterruption({ status: 'FAILED', error: 'States.Runtime' }, moduleImport)?.reason).toBe(
      'Its execution ended FAILED (States.Runtime) before the import was recorded',
    );
    expect(jobInterruption({ status: 'ABORTED' }, moduleImport)?.gone).toBe(false);
  });

  it('SUCCEEDED while the job works: a site job lost its last save; a module import is left alone', () => {
    expect(jobInterruption({ status: 'SUCCEEDED' }, { ...site, now: site.startedAt })).toEqual({
      reason: 'Its execution ended SUCCEEDED without finishing the job',
      gone: false,
    });
    expect(jobInterruption({ status: 'SUCCEEDED' }, moduleImport)).toBeUndefined();
  });
});
