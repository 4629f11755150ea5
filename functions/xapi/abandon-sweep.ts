/**
 * The cmi5 abandon sweep on a schedule (docs/lrs.md): sessions launched longer ago than
 * ABANDON_AFTER_SECONDS and never terminated are abandoned (the LMS states `abandoned`). The
 * same code as POST /admin/cmi5/sessions/abandon_stale, a page of 100 at a time until none is
 * left or the budget is spent. Deployed, an EventBridge rule invokes abandon-sweep.handler.ts
 * (infra/cdk/stacks/events-stack.ts); locally `npm start` runs that handler on a timer
 * (infra/local/schedule.ts, STEPWISE_CMI5_ABANDON_SWEEP_MS; 0 turns it off, as the stacks the
 * tests start do).
 */
import { nowSeconds } from '../../shared/clock.ts';
import { ABANDON_AFTER_SECONDS, abandonStale } from './cmi5.service.ts';

/** Abandons the stale sessions at `now`, up to `budget`; answers how many. */
export async function sweepAbandonedSessions(now = nowSeconds(), budget = 2000): Promise<number> {
  let total = 0;
  while (total < budget) {
    const { abandoned } = await abandonStale({ older_than_seconds: ABANDON_AFTER_SECONDS }, undefined, now);
    total += abandoned.length;
    // A page that abandoned nothing (all ended meanwhile, or none left): the next run carries on.
    if (abandoned.length === 0) break;
  }
  return total;
}
