/**
 * A scheduled function on the local stack (`npm start`): what an EventBridge rate rule does
 * deployed. The handler module is loaded by its entry, as the pipeline's tasks are
 * (local-functions.ts), and invoked every `intervalMs`, one run at a time (`repeatEvery`); 0 never.
 */
import { type Repeating, repeatEvery } from '../../shared/clock.ts';
import { log } from '../../shared/observability/logger.ts';

export function startSchedule(
  name: string,
  handler: { entry: string; exportName: string },
  intervalMs: number,
): Repeating {
  if (intervalMs <= 0) return { stop: async () => {}, wake: () => {} };
  return repeatEvery(
    intervalMs,
    async () => {
      const module = (await import(`../../${handler.entry}`)) as Record<string, () => Promise<unknown>>;
      return module[handler.exportName]!();
    },
    (error) => log().error(`${name} failed`, { error }),
  );
}
