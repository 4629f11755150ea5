/**
 * The notice sweep on AWS (infra/cdk/stacks/events-stack.ts): an EventBridge rule invokes it on
 * its schedule (functions/schedules.ts) with the real clock, as the local stack's timer does. The same
 * code as POST /notices/sweep (shared/training/notice-sweep.ts). A run bounded by its budget leaves the
 * rest to the next.
 */
import { nowSeconds } from '../../shared/clock.ts';
import { log } from '../../shared/observability/logger.ts';
import { sweepNotices } from '../../shared/training/notice-sweep.ts';

/** Items one invocation handles at most (well inside its timeout). */
const BUDGET = 20_000;

export async function sweep(): Promise<void> {
  const result = await sweepNotices(nowSeconds(), BUDGET);
  log().info('notice sweep', { ...result });
}
