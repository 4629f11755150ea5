/**
 * The clock: what time it is, in the epoch seconds every stored date uses. Apart from
 * shared/db/keys.ts (key conventions, pure) and from shared/domain (rules take the time as a
 * parameter, so they stay deterministic); decision 190.
 */
export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

/** A loop started by `repeatEvery`: stop() ends it after the round in progress. */
export interface Repeating {
  stop(): Promise<void>;
}

/**
 * Runs `round` `intervalMs` after the start and then after each round ends, one round at a time,
 * until stopped: the local stack's stand-in for a deployed schedule (functions/schedules.ts: the
 * event deliverer, infra/local/schedule.ts). A round's failure goes to `onError`; the loop goes on.
 */
export function repeatEvery(
  intervalMs: number,
  round: () => Promise<unknown>,
  onError: (error: unknown) => void,
): Repeating {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  const tick = () => {
    running = round()
      .catch(onError)
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
