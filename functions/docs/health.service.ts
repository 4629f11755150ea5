/**
 * GET /health: whether this deployment answers, for a canary, a load balancer or an operator.
 * Each store gets its cheapest call (a GetItem of a key no item has, a HeadBucket), all at once,
 * each bounded in time so the route answers within a few seconds whatever hangs.
 */
import { config } from '../../shared/config.ts';
import { readProbeKey } from '../../shared/db/entities/health-probe.ts';
import { log } from '../../shared/observability/logger.ts';
import { headBucket } from '../../shared/storage/objects.ts';
import type { Health } from '../../shared/views/health-views.ts';

const CHECK_TIMEOUT_MS = 3000;

/** 'ok' when `check` resolves in time; the reason goes to the log, never to the (open) answer. */
async function answers(name: string, check: () => Promise<void>): Promise<'ok' | 'unavailable'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer in ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
  });
  try {
    await Promise.race([check(), timeout]);
    return 'ok';
  } catch (error) {
    log().warn('health: a check failed', {
      check: name,
      error: (error as Error).name,
      reason: (error as Error).message,
    });
    return 'unavailable';
  } finally {
    clearTimeout(timer);
  }
}

export async function health(): Promise<Health> {
  const { MEDIA_BUCKET, MODULES_BUCKET, STEPWISE_VERSION } = config();
  const [table, media_bucket, modules_bucket] = await Promise.all([
    answers('table', readProbeKey),
    answers('media_bucket', () => headBucket(MEDIA_BUCKET)),
    answers('modules_bucket', () => headBucket(MODULES_BUCKET)),
  ]);
  const checks = { table, media_bucket, modules_bucket };
  const status = Object.values(checks).every((answer) => answer === 'ok') ? 'ok' : 'unavailable';
  return { status, version: STEPWISE_VERSION, checks };
}
