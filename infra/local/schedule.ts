/**
 * The scheduled functions on the local stack (`npm start`): what an EventBridge rate rule does
 * deployed (functions/schedules.ts). Each handler module is loaded by its entry, as the pipeline's
 * tasks are (local-functions.ts), and invoked every `localEvery` ms, one run at a time
 * (`repeatEvery`); 0 never. The retry sweep is not among them: the local deliverer loop does its work.
 */
import { scheduledFunctions, type ScheduledFunction } from '../../functions/schedules.ts';
import { type Repeating, repeatEvery } from '../../shared/clock.ts';
import { config } from '../../shared/config.ts';
import { log } from '../../shared/observability/logger.ts';

export function startSchedule(schedule: ScheduledFunction, intervalMs: number): Repeating {
  if (intervalMs <= 0) return { stop: async () => {}, wake: () => {} };
  return repeatEvery(
    intervalMs,
    async () => {
      const module = (await import(`../../${schedule.entry}`)) as Record<string, () => Promise<unknown>>;
      return module[schedule.exportName]!();
    },
    (error) => log().error(`${schedule.title} failed`, { error }),
  );
}

/** Starts every schedule the local stack runs on a timer; stop() stops them all. */
export function startSchedules(): Pick<Repeating, 'stop'> {
  const running = scheduledFunctions
    .filter((schedule) => schedule.local === 'timer')
    .map((schedule) => startSchedule(schedule, config()[schedule.localEvery]));
  return {
    async stop() {
      await Promise.all(running.map((schedule) => schedule.stop()));
    },
  };
}
