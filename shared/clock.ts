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
  /**
   * Runs a round now instead of at its time (right after the round in progress, if one runs):
   * something the loop reads was just written. Wakes in one turn of the event loop make one round.
   */
  wake(): void;
}

/**
 * The longest a local loop that reads what writes leave (the event deliverer, the table's stream) waits
 * while it finds nothing: a write through the API wakes it at once, others (a pipeline's, a retry that
 * fell due) are seen within this (decision 345).
 */
export const IDLE_POLL_CEILING_MS = 500;

export interface RepeatOptions {
  /**
   * While rounds find nothing (resolve to 0 or false), the wait doubles up to this; a round that finds
   * something, or wake(), brings it back to `intervalMs`. Without it the wait never changes.
   */
  idleUpToMs?: number;
}

/**
 * Runs `round` `intervalMs` after the start and then after each round ends, one round at a time,
 * until stopped: the local stack's stand-in for a deployed schedule or event source (functions/schedules.ts:
 * the event deliverer, infra/local/schedule.ts; the table's stream). A round's failure goes to `onError`
 * and counts as a round that found something; the loop goes on.
 */
export function repeatEvery(
  intervalMs: number,
  round: () => Promise<unknown>,
  onError: (error: unknown) => void,
  options: RepeatOptions = {},
): Repeating {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  let inRound = false;
  let wokenDuringRound = false;
  let waitMs = intervalMs;
  const schedule = (ms: number) => {
    timer = setTimeout(tick, ms);
  };
  const tick = () => {
    timer = undefined;
    inRound = true;
    running = round()
      .then(
        (found) => found === 0 || found === false,
        (error) => {
          onError(error);
          return false;
        },
      )
      .then((idle) => {
        inRound = false;
        if (stopped) return;
        waitMs = idle && options.idleUpToMs ? Math.min(waitMs * 2, options.idleUpToMs) : intervalMs;
        if (wokenDuringRound) {
          wokenDuringRound = false;
          schedule(0);
        } else schedule(waitMs);
      });
  };
  schedule(intervalMs);
  return {
    wake() {
      if (stopped) return;
      waitMs = intervalMs;
      if (inRound) {
        wokenDuringRound = true;
        return;
      }
      if (timer) clearTimeout(timer);
      schedule(0);
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
