/**
 * A scheduled function on the local stack (`npm start`): what an EventBridge rate rule does
 * deployed. The handler module is loaded by its entry, as the pipeline's tasks are
 * (local-functions.ts), and invoked every `intervalMs`, one run at a time; 0 never.
 */
import { log } from '../../shared/observability/logger.ts';

export function startSchedule(
  name: string,
  handler: { entry: string; exportName: string },
  intervalMs: number,
): { stop(): Promise<void> } {
  if (intervalMs <= 0) return { stop: async () => {} };
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  const tick = () => {
    running = import(`../../${handler.entry}`)
      .then((module) => (module as Record<string, () => Promise<unknown>>)[handler.exportName]!())
      .catch((error) => log().error(`${name} failed`, { error }))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, intervalMs);
      });
  };
  timer = setTimeout(tick, intervalMs);
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
