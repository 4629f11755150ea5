/**
 * The cmi5 abandon sweep on AWS (infra/cdk/stacks/events-stack.ts): an EventBridge rule invokes
 * it on its schedule (functions/schedules.ts) with the real clock (abandon-sweep.ts). A run
 * bounded by its budget leaves the rest to the next.
 */
import { log } from '../../shared/observability/logger.ts';
import { sweepAbandonedSessions } from './abandon-sweep.ts';

export async function sweep(): Promise<void> {
  const abandoned = await sweepAbandonedSessions();
  log().info('cmi5 abandon sweep', { abandoned });
}
